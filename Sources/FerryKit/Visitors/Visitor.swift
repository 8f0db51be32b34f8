/// Who is asking for a link, as far as the request headers tell.
///
/// ```swift
/// let visitor = VisitorClassifier.shared.classify(RequestHeaders(userAgent: ua))
/// if visitor.bot == .linkPreview { /* answer with Open Graph tags, no redirect */ }
/// ```
public struct Visitor: Sendable, Hashable, Codable {
    public var platform: Platform
    public var osVersion: Version?
    public var deviceClass: DeviceClass
    public var browser: BrowserFamily
    /// The app whose embedded browser made the request, if any.
    public var inAppHost: InAppHost?
    public var bot: BotKind
    /// A Mac Safari user agent, which an iPad in desktop mode sends too; only the page can tell
    /// (`navigator.maxTouchPoints > 1`).
    public var maybeIPad: Bool
    public var vendor: DeviceVendor
    /// `false` when the device is known to lack Google Play services (Huawei since 2019,
    /// HarmonyOS); `nil` when nothing says.
    public var hasGoogleServices: Bool?
    /// Device model from the `Sec-CH-UA-Model` hint or the user agent, when given.
    public var model: String?
    /// The `Accept-Language` header as sent (at most 256 characters).
    public var acceptLanguage: String?

    /// Language tags from `Accept-Language`, most preferred first (parsed when asked: most
    /// clicks never need them).
    public var languages: [String] { RequestHeaders.languages(from: acceptLanguage) }

    public init(
        platform: Platform = .other, osVersion: Version? = nil, deviceClass: DeviceClass = .other,
        browser: BrowserFamily = .other, inAppHost: InAppHost? = nil, bot: BotKind = .none,
        maybeIPad: Bool = false, vendor: DeviceVendor = .unknown, hasGoogleServices: Bool? = nil,
        model: String? = nil, acceptLanguage: String? = nil
    ) {
        self.platform = platform
        self.osVersion = osVersion
        self.deviceClass = deviceClass
        self.browser = browser
        self.inAppHost = inAppHost
        self.bot = bot
        self.maybeIPad = maybeIPad
        self.vendor = vendor
        self.hasGoogleServices = hasGoogleServices
        self.model = model
        self.acceptLanguage = acceptLanguage
    }

    public var isBot: Bool { bot != .none }
    /// iPhone, iPad or iPod: the platforms of the App Store and of universal links.
    public var isApple: Bool { platform == .iOS || platform == .iPadOS }
    public var isMobile: Bool { isApple || platform == .android }
}

public enum Platform: String, Sendable, Hashable, Codable, CaseIterable {
    case iOS = "ios"
    case iPadOS = "ipados"
    case android
    case macOS = "macos"
    case windows
    case linux
    case chromeOS = "chromeos"
    case other

    public var isDesktop: Bool {
        switch self {
        case .macOS, .windows, .linux, .chromeOS: true
        default: false
        }
    }
}

public enum DeviceClass: String, Sendable, Hashable, Codable, CaseIterable {
    case phone, tablet, desktop, other
}

public enum BrowserFamily: String, Sendable, Hashable, Codable, CaseIterable {
    case safari, chrome, firefox, edge, opera
    case samsungInternet = "samsung-internet"
    case ucBrowser = "uc-browser"
    case yandex
    case huaweiBrowser = "huawei-browser"
    case miuiBrowser = "miui-browser"
    case qqBrowser = "qq-browser"
    case duckDuckGo = "duckduckgo"
    case silk
    case internetExplorer = "internet-explorer"
    /// An embedded web view (an app's in-app browser, Android `; wv)`, iOS `WKWebView`).
    case webView = "webview"
    case other
}

/// Apps whose embedded browsers Ferry recognises. Each behaves differently with app links and
/// store links, which is why the decision needs to know.
public enum InAppHost: String, Sendable, Hashable, Codable, CaseIterable {
    case facebook, messenger, instagram, threads, whatsapp, wechat, line, telegram
    case twitter, linkedin, snapchat, tiktok, pinterest
    case googleApp = "google-app"
    case kakaoTalk = "kakaotalk"
    case weibo
    case naver
    /// A web view inside an app Ferry does not know by name.
    case genericWebView = "webview"

    /// Hosts that neither open universal links / App Links nor let a page reach the store:
    /// the user has to be told to open the link in the system browser.
    public var blocksAppAndStoreLinks: Bool {
        self == .wechat
    }

    /// The name to show to people ("Open this link in Safari instead of WeChat").
    public var displayName: String {
        switch self {
        case .facebook: "Facebook"
        case .messenger: "Messenger"
        case .instagram: "Instagram"
        case .threads: "Threads"
        case .whatsapp: "WhatsApp"
        case .wechat: "WeChat"
        case .line: "LINE"
        case .telegram: "Telegram"
        case .twitter: "X"
        case .linkedin: "LinkedIn"
        case .snapchat: "Snapchat"
        case .tiktok: "TikTok"
        case .pinterest: "Pinterest"
        case .googleApp: "Google"
        case .kakaoTalk: "KakaoTalk"
        case .weibo: "Weibo"
        case .naver: "NAVER"
        case .genericWebView: "this app"
        }
    }
}

public enum BotKind: String, Sendable, Hashable, Codable, CaseIterable {
    case none
    /// Fetches a page to draw a preview card in a chat or feed (Slackbot, facebookexternalhit…).
    case linkPreview = "link-preview"
    /// Indexes the web for search (Googlebot, bingbot…).
    case searchCrawler = "search-crawler"
    /// Any other automated client: HTTP libraries, monitors, SEO and AI crawlers.
    case other
}

/// Who made the device, as far as store choice is concerned.
public enum DeviceVendor: String, Sendable, Hashable, Codable, CaseIterable {
    case apple, samsung, huawei, honor, xiaomi, amazon, google, other
    case unknown
}
