/// What a token found in a user agent says about the visitor.
///
/// Several spellings map to one signal; the classifier reads signals, never raw strings.
enum Signal: Int, CaseIterable {
    // Apple
    case iPhone, iPod, iPad, iPhoneOS, cpuOS, iPhOS, iOSWord, likeMacOSX
    case macintosh, macOSX, macOSWord, osXWord, darwin, cfNetwork, intelArchitecture
    // Other platforms
    case android, androidShort, androidApp, windowsPhone, windowsNT, windows, windowsLegacy
    case chromeOS, x11, linux, bsd, kaiOS, tizen
    case mobile, tablet, androidWebView
    // Vendors
    case samsung, samsungModel, huawei, honor, hmsCore, harmonyOS, xiaomi, amazonDevice, pixel
    // Browsers
    case edge, opera, samsungBrowser, yandex, ucBrowser, huaweiBrowser, miuiBrowser, qqBrowser
    case duckDuckGo, silk, chromeIOS, firefoxIOS, edgeIOS, firefox, chrome, internetExplorer, safari, safariVersion
    // In-app browsers
    case facebook, messenger, instagram, threads, whatsAppBrowser, weChat, line, telegram
    case twitter, linkedIn, snapchat, tikTok, pinterest, googleApp, kakaoTalk, weibo, naver
    // Bots
    case previewCrawler, previewCrawlerAtStart, searchCrawler, otherBot
    case botWord, automationMarker, notABot

    /// Where the classifier keeps the position of signals that a version number follows.
    var versionSlot: Int? {
        switch self {
        case .iPhoneOS: 0
        case .cpuOS: 1
        case .iPhOS: 2
        case .iOSWord: 3
        case .macOSX: 4
        case .darwin: 5
        case .android: 6
        case .androidShort: 7
        case .windowsNT: 8
        case .chromeOS: 9
        default: nil
        }
    }
}

/// Where a token must stand to count.
enum TokenPlacement {
    /// Anywhere.
    case anywhere
    /// Not glued to a preceding letter or digit (`Line/` but not `Timeline/`).
    case wordStart
    /// At the very beginning of the user agent (`WhatsApp/2.23` is the preview fetcher).
    case atStart
    /// Followed by a digit (`Java/1.8.0` is an HTTP library, `Java/ASVM` a phone browser).
    case beforeDigit
}

/// The token table. Tokens are matched case-insensitively. The lists describe the product's
/// knowledge of platforms, apps and crawlers; tests check them against public corpora
/// (`../shared/testdata`), never copy from them.
enum UserAgentTokens {
    static let table: [(String, Signal, TokenPlacement)] = apple + platforms + vendors + browsers + inApp + crawlers

    static let apple: [(String, Signal, TokenPlacement)] = [
        ("iphone", .iPhone, .anywhere),
        ("ipod", .iPod, .anywhere),
        ("ipad", .iPad, .anywhere),
        ("iphone os ", .iPhoneOS, .anywhere),
        ("cpu os ", .cpuOS, .anywhere),
        ("iph os ", .iPhOS, .wordStart),
        ("ios ", .iOSWord, .wordStart),
        ("ios;", .iOSWord, .wordStart),
        ("[pinterest/ios]", .iOSWord, .anywhere),
        ("like mac os x", .likeMacOSX, .anywhere),
        ("macintosh", .macintosh, .anywhere),
        ("mac os x ", .macOSX, .anywhere),
        ("mac os x;", .macOSX, .anywhere),
        ("mac os x/", .macOSX, .anywhere),
        ("macos x ", .macOSX, .anywhere),
        ("macos", .macOSWord, .wordStart),
        ("os x ", .osXWord, .wordStart),
        ("darwin/", .darwin, .anywhere),
        ("darwin;", .darwin, .wordStart),
        ("cfnetwork/", .cfNetwork, .anywhere),
        ("(x86_64)", .intelArchitecture, .anywhere),
        ("(i386)", .intelArchitecture, .anywhere),
        ("i386/", .intelArchitecture, .wordStart),
        ("macbook", .intelArchitecture, .anywhere),
        ("macmini", .intelArchitecture, .anywhere),
    ]

    static let platforms: [(String, Signal, TokenPlacement)] = [
        ("android", .android, .anywhere),
        ("fb4a", .androidApp, .anywhere),
        ("dalvik/", .androidApp, .anywhere),
        ("adr ", .androidShort, .wordStart),
        ("juc (", .androidApp, .wordStart),
        ("juc(", .androidApp, .wordStart),
        ("oculusbrowser", .androidApp, .anywhere),
        ("windows phone", .windowsPhone, .anywhere),
        ("windows mobile", .windowsPhone, .anywhere),
        ("windows nt ", .windowsNT, .anywhere),
        ("windows", .windows, .anywhere),
        ("win nt", .windowsLegacy, .wordStart),
        ("winnt", .windowsLegacy, .wordStart),
        ("win 9x", .windowsLegacy, .wordStart),
        ("win9", .windowsLegacy, .wordStart),
        ("win16", .windowsLegacy, .wordStart),
        ("win3", .windowsLegacy, .wordStart),
        ("win64", .windowsLegacy, .wordStart),
        ("cros ", .chromeOS, .wordStart),
        ("x11", .x11, .wordStart),
        ("linux", .linux, .anywhere),
        ("ubuntu", .linux, .anywhere),
        ("fedora", .linux, .anywhere),
        ("freebsd", .bsd, .anywhere),
        ("openbsd", .bsd, .anywhere),
        ("netbsd", .bsd, .anywhere),
        ("sunos", .bsd, .anywhere),
        ("kaios", .kaiOS, .anywhere),
        ("tizen", .tizen, .anywhere),
        ("mobile", .mobile, .anywhere),
        ("tablet", .tablet, .anywhere),
        ("; wv)", .androidWebView, .anywhere),
    ]

    static let vendors: [(String, Signal, TokenPlacement)] = [
        ("samsung", .samsung, .anywhere),
        ("sm-", .samsungModel, .wordStart),
        ("huawei", .huawei, .anywhere),
        ("honor", .honor, .anywhere),
        ("hmscore", .hmsCore, .anywhere),
        ("harmonyos", .harmonyOS, .anywhere),
        ("openharmony", .harmonyOS, .anywhere),
        ("xiaomi", .xiaomi, .anywhere),
        ("redmi", .xiaomi, .anywhere),
        ("kindle", .amazonDevice, .anywhere),
        ("silk/", .amazonDevice, .anywhere),
        ("; kf", .amazonDevice, .anywhere),
        ("pixel", .pixel, .wordStart),
    ]

    static let browsers: [(String, Signal, TokenPlacement)] = [
        ("edg/", .edge, .wordStart),
        ("edge/", .edge, .wordStart),
        ("edga/", .edge, .wordStart),
        ("edgios/", .edgeIOS, .wordStart),
        ("opr/", .opera, .wordStart),
        ("opera", .opera, .wordStart),
        ("opios/", .opera, .wordStart),
        ("opt/", .opera, .wordStart),
        ("samsungbrowser/", .samsungBrowser, .anywhere),
        ("yabrowser/", .yandex, .anywhere),
        ("yaapp_", .yandex, .anywhere),
        ("ucbrowser", .ucBrowser, .anywhere),
        ("ucweb", .ucBrowser, .anywhere),
        ("huaweibrowser", .huaweiBrowser, .anywhere),
        ("miuibrowser", .miuiBrowser, .anywhere),
        ("mqqbrowser", .qqBrowser, .anywhere),
        ("qqbrowser", .qqBrowser, .anywhere),
        ("duckduckgo/", .duckDuckGo, .anywhere),
        ("ddg/", .duckDuckGo, .wordStart),
        ("silk/", .silk, .anywhere),
        ("crios/", .chromeIOS, .anywhere),
        ("fxios/", .firefoxIOS, .anywhere),
        ("firefox/", .firefox, .anywhere),
        ("chrome/", .chrome, .wordStart),
        ("chromium/", .chrome, .wordStart),
        ("msie ", .internetExplorer, .anywhere),
        ("trident/", .internetExplorer, .anywhere),
        ("safari/", .safari, .wordStart),
        ("version/", .safariVersion, .wordStart),
    ]

    static let inApp: [(String, Signal, TokenPlacement)] = [
        ("fban/", .facebook, .anywhere),
        ("fbav/", .facebook, .anywhere),
        ("fb_iab/", .facebook, .anywhere),
        ("fbios", .facebook, .anywhere),
        ("metaiab", .facebook, .anywhere),
        ("messengerforios", .messenger, .anywhere),
        ("fb_iab/messenger", .messenger, .anywhere),
        ("orca-android", .messenger, .anywhere),
        ("messengerlite", .messenger, .anywhere),
        ("instagram", .instagram, .wordStart),
        ("barcelona ", .threads, .wordStart),
        ("waios/", .whatsAppBrowser, .anywhere),
        ("wa4a/", .whatsAppBrowser, .anywhere),
        ("micromessenger", .weChat, .anywhere),
        ("wxwork/", .weChat, .anywhere),
        ("line/", .line, .wordStart),
        ("telegram", .telegram, .wordStart),
        ("twitter for ", .twitter, .anywhere),
        ("twitterandroid", .twitter, .anywhere),
        ("linkedinapp", .linkedIn, .anywhere),
        ("snapchat/", .snapchat, .wordStart),
        ("musical_ly", .tikTok, .anywhere),
        ("bytedancewebview", .tikTok, .anywhere),
        ("trill_", .tikTok, .wordStart),
        ("tiktok", .tikTok, .wordStart),
        ("pinterest", .pinterest, .wordStart),
        ("gsa/", .googleApp, .wordStart),
        ("kakaotalk", .kakaoTalk, .anywhere),
        ("weibo", .weibo, .anywhere),
        ("naver(inapp", .naver, .anywhere),
    ]

    /// Preview fetchers of chat apps, social networks and unfurling services. A request from
    /// one of them gets the preview HTML and never a redirect.
    static let previewCrawlers = [
        "facebookexternalhit", "facebot", "meta-externalagent", "meta-externalfetcher", "meta-externalhit",
        "meta-webindexer", "twitterbot", "slackbot", "slack-imgproxy", "telegrambot", "discordbot",
        "linkedinbot", "skypeuripreview", "applebot", "pinterestbot", "pinterest.com/bot", "redditbot",
        "vkshare", "iframely", "embedly", "mastodon/", "pleroma", "akkoma", "misskey", "bluesky",
        "odklbot", "linespider", "tiktokspider", "flipboardproxy", "snap url preview", "snapurlpreview",
        "steamchaturllookup", "yahoo link preview", "google web preview", "bingpreview", "microsoftpreview",
        "fastmailua", "github-camo", "hatena", "kakaotalk-scrap", "daum-scrap", "aasa-bot",
        "opengraph.io", "linkpreview", "unfurl", "onebox", "imgproxy", "imageproxy", "mailproxy",
    ]

    /// These identify themselves only by a bare product name, so they count only at the start.
    static let previewCrawlersAtStart = ["whatsapp", "viber", "ning/", "lemmy/", "tumblr/"]

    static let searchCrawlers = [
        "googlebot", "google-inspectiontool", "storebot-google", "adsbot-google", "mediapartners-google",
        "bingbot", "msnbot", "adidxbot", "yandexbot", "yandex.com/bots", "baiduspider", "duckduckbot",
        "slurp", "sogou", "exabot", "seznambot", "yeti/", "naverbot", "petalbot", "qwantify", "qwantbot",
        "mojeekbot", "coccocbot", "daumoa", "yisouspider", "360spider", "haosouspider",
    ]

    /// Automated clients that are neither previewers nor search engines.
    static let otherBots = [
        "curl/", "wget/", "python-requests", "python-urllib", "python-httpx", "aiohttp", "httpie",
        "go-http-client", "java_hotspot", "okhttp", "apache-httpclient", "jakarta commons",
        "libwww-perl", "lwp::", "node-fetch", "axios/", "undici", "ruby/", "php/", "guzzlehttp",
        "postmanruntime", "insomnia", "headlesschrome", "phantomjs", "selenium", "puppeteer",
        "playwright", "lighthouse", "pingdom", "uptimerobot", "statuscake", "site24x7", "newrelic",
        "datadog", "gptbot", "chatgpt-user", "oai-searchbot", "claudebot", "claude-web", "anthropic-ai",
        "perplexitybot", "ccbot", "bytespider", "amazonbot", "ahrefsbot", "semrushbot", "mj12bot",
        "dotbot", "rogerbot", "screaming frog", "dataforseobot", "blexbot", "serpstatbot",
        "ia_archiver", "archive.org_bot", "aws-sdk", "boto3", "botocore", "terraform", "rusoto",
        "webpagetest", "ruxit", "scrapy", "httpclient", "libcurl", "facebookcatalog",
    ]

    /// Words that only automated clients put in a user agent.
    static let automationMarkers = [
        "spider", "crawler", "crawling", "scraper", "preview", "fetcher", "proxy", "http://", "https://",
        "+http", "mailto:", "(bot;", "; bot",
    ]

    static let crawlers: [(String, Signal, TokenPlacement)] =
        previewCrawlers.map { ($0, .previewCrawler, .anywhere) }
        + previewCrawlersAtStart.map { ($0, .previewCrawlerAtStart, .atStart) }
        + searchCrawlers.map { ($0, .searchCrawler, .anywhere) }
        + otherBots.map { ($0, .otherBot, .anywhere) }
        + [("java/", .otherBot, .beforeDigit)]
        + automationMarkers.map { ($0, .automationMarker, .anywhere) }
        + [("bot", .botWord, .anywhere), ("cubot", .notABot, .anywhere), ("robotic", .notABot, .anywhere)]
}
