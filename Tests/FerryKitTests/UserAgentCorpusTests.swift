import Foundation
import Testing
@testable import FerryKit

/// Classification measured against public corpora (uap-core, crawler-user-agents). The
/// figures are printed so the README can quote them; the thresholds are the product's promise.
@Suite struct UserAgentCorpusTests {
    let classifier = VisitorClassifier.shared

    /// uap-core's OS families mapped to Ferry's platforms. Families that are neither phone
    /// platforms Ferry serves nor desktops (Symbian, BlackBerry, watchOS…) are left out.
    static func expectedPlatforms(for family: String) -> Set<Platform>? {
        switch family {
        case "iOS": [.iOS, .iPadOS]
        case "Android": [.android]
        case "Windows": [.windows]
        case "Mac OS X": [.macOS]
        case "Linux", "Ubuntu": [.linux]
        case "Chrome OS": [.chromeOS]
        default: nil
        }
    }

    @Test func platformsOfUAPCoreOperatingSystems() throws {
        var checked = 0
        var misses: [String] = []
        for (userAgent, family) in try Fixtures.uapCases("test_os.yaml") {
            guard let expected = Self.expectedPlatforms(for: family) else { continue }
            checked += 1
            let platform = classifier.classify(userAgent: userAgent).platform
            if !expected.contains(platform) { misses.append("\(family) → \(platform): \(userAgent)") }
        }
        let accuracy = Double(checked - misses.count) / Double(checked)
        print("uap-core test_os.yaml: platform correct for \(checked - misses.count) of \(checked) iOS, Android and desktop cases (\(String(format: "%.2f", accuracy * 100))%)")
        for miss in misses { print("  miss: \(miss)") }
        #expect(checked > 300)
        #expect(accuracy >= 0.995)
    }

    /// uap-core browser families that are in-app browsers, and the host Ferry must name.
    static let inAppFamilies: [String: Set<InAppHost>] = [
        "Facebook": [.facebook, .messenger], "Facebook Messenger": [.messenger], "Instagram": [.instagram], "Pinterest": [.pinterest],
        "WeChat Browser": [.wechat], "LINE": [.line], "Snapchat": [.snapchat], "TikTok": [.tiktok],
        "Twitter": [.twitter], "Weibo": [.weibo], "Telegram": [.telegram], "Google": [.googleApp],
        "KakaoTalk": [.kakaoTalk],
    ]

    @Test func inAppBrowsersOfUAPCore() throws {
        var checked = 0
        var crawlers = 0
        var misses: [String] = []
        for (userAgent, family) in try Fixtures.uapCases("test_ua.yaml") {
            guard let hosts = Self.inAppFamilies[family] else { continue }
            let visitor = classifier.classify(userAgent: userAgent)
            // `Pinterest/0.2 (+http://www.pinterest.com/)` is Pinterest's fetcher, not its app:
            // a user agent that links to a bot page is a crawler, whatever its family.
            if visitor.bot != .none, userAgent.contains("http") {
                crawlers += 1
                continue
            }
            checked += 1
            if !hosts.contains(where: { $0 == visitor.inAppHost }) { misses.append("\(family) → \(String(describing: visitor.inAppHost)): \(userAgent)") }
        }
        print("uap-core test_ua.yaml: in-app host named for \(checked - misses.count) of \(checked) in-app browser user agents (\(crawlers) self-declared crawlers of those families classified as bots)")
        for miss in misses { print("  miss: \(miss)") }
        #expect(checked > 60)
        #expect(misses.isEmpty)
    }

    @Test func knownBotsOfUAPCore() throws {
        let bots: [String: BotKind] = [
            "Googlebot": .searchCrawler, "Twitterbot": .linkPreview, "LinkedInBot": .linkPreview,
            "FacebookBot": .linkPreview, "Pinterestbot": .linkPreview,
        ]
        var checked = 0
        var misses: [String] = []
        for (userAgent, family) in try Fixtures.uapCases("test_ua.yaml") {
            guard let kind = bots[family] else { continue }
            checked += 1
            let visitor = classifier.classify(userAgent: userAgent)
            if visitor.bot != kind { misses.append("\(family) → \(visitor.bot): \(userAgent)") }
        }
        for miss in misses { print("  miss: \(miss)") }
        #expect(checked >= 10)
        #expect(misses.isEmpty)
    }

    /// Families of test_ua.yaml that are people's browsers or apps' web views. (Most of the
    /// file's 1,300 families are crawlers, libraries and feed readers.)
    static let browserFamilies: Set<String> = [
        "Facebook", "Facebook Messenger", "Instagram", "Pinterest", "WeChat Browser", "LINE", "Snapchat",
        "TikTok", "Twitter", "Weibo", "Telegram", "Google", "KakaoTalk", "Mobile Safari UI/WKWebView",
        "Chrome Mobile WebView", "Puffin", "IE", "IE Mobile", "IE Large Screen", "Opera Mini", "Android",
        "UC Browser", "Brave", "NetFront", "NetFront NX", "QQ Browser", "QQ Browser Mobile", "QQ Browser Mini",
        "Safari", "Mobile Safari", "Edge", "Edge Mobile", "Dolphin", "mDolphin", "Whale", "Opera",
        "Opera Mobile", "Opera Tablet", "Opera Touch", "Opera GX", "Opera Neon", "Opera Coast", "Obigo",
        "Teleca Browser", "Yandex Browser", "Nokia Browser", "Nokia OSS Browser", "Ovi Browser",
        "Honor Browser", "Huawei Browser", "HeyTap Browser", "VivoBrowser", "MiuiBrowser", "Chrome",
        "Chrome Mobile", "Chrome Mobile iOS", "Chrome Frame", "Chromium", "Chromium GOST Browser",
        "Amazon Silk", "Vivaldi", "Seznam prohlížeč", "Samsung Internet", "QupZilla", "Pale Moon",
        "BlackBerry WebKit", "Avast Secure Browser", "Aloha Browser", "webOS Browser", "WebKit Nightly",
        "Vewd Browser", "Smart Lenovo Browser", "Midori", "Maxthon", "Ladybird", "Iron", "DuckDuckGo Mobile",
        "Coc Coc", "Baidu Browser", "Baidu Explorer", "Sailfish Browser", "Rekonq", "Phoenix Browser",
        "Oculus Browser", "ONE Browser", "Mypal Browser", "HiBrowser", "Firefox", "Firefox iOS",
        "Firefox Mobile", "Firefox Beta", "Firefox (Shiretoko)", "Ecosia Android", "Ecosia iOS", "Conkeror",
        "Camoufox", "360 Secure Browser", "qutebrowser", "iBrowser Mini", "Wolvic Browser", "Waterfox",
        "UP.Browser", "ThunderBrowse", "Tenta Browser", "Talon Cyber Security Browser", "Sleipnir", "Skyfire",
        "Sber Browser", "RockMelt", "Quark", "Quark PC", "QAX Browser", "Openwave", "Open Wave",
        "MullvadBrowser", "Mint Browser", "Minimo", "Mail.ru Chromium Browser", "LuaKit", "Lite Browser",
        "Konqueror", "Kindle", "JiSu Browser", "IceCat", "ICE Browser", "Hola Browser", "FireWeb", "Dolfin",
        "Decentr Web3 Browser", "Craving Explorer Browser", "Comodo Dragon", "Bunjalloo", "Basilisk",
        "Atom Browser", "AOL Shield Browser", "AOL Desktop Gold Browser", "115 Browser", "NCSA Mosaic",
        "SmartTV WebBrowser", "NetCast Smart TV", "Phantom Browser", "Sparrow Browser",
    ]

    /// The patterns of crawler-user-agents, to leave out uap-core "browser" user agents that are
    /// really crawlers wearing a browser's name (`Chrome` … `Google Web Preview`).
    static func crawlerPatterns() throws -> [NSRegularExpression] {
        let entries = try #require(try Fixtures.json("crawler-user-agents/crawler-user-agents.json") as? [[String: Any]])
        return entries.compactMap { ($0["pattern"] as? String).flatMap { try? NSRegularExpression(pattern: $0) } }
    }

    @Test func noBrowserOfUAPCoreIsABot() throws {
        let crawlerPatterns = try Self.crawlerPatterns()
        var checked = 0
        var misses: [String] = []
        for (userAgent, family) in try Fixtures.uapCases("test_ua.yaml") where Self.browserFamilies.contains(family) {
            let range = NSRange(userAgent.startIndex..., in: userAgent)
            if crawlerPatterns.contains(where: { $0.firstMatch(in: userAgent, range: range) != nil }) { continue }
            // `Pinterest/0.2 (+http://www.pinterest.com/)`: a `+http` link to the publisher is how
            // crawlers sign themselves; no browser sends one.
            if userAgent.contains("(+http") { continue }
            checked += 1
            let visitor = classifier.classify(userAgent: userAgent)
            if visitor.bot != .none { misses.append("\(family) → \(visitor.bot): \(userAgent)") }
        }
        print("uap-core test_ua.yaml: \(checked - misses.count) of \(checked) browser user agents not taken for bots")
        for miss in misses { print("  miss: \(miss)") }
        #expect(checked > 300)
        #expect(misses.isEmpty)
    }

    /// crawler-user-agents tags `MetaIAB Facebook` as a preview fetcher, but the token is what
    /// Facebook's in-app browser sends (REFERENCE.md); Ferry treats it as the in-app browser,
    /// which is the one deliberate disagreement with that list.
    @Test func linkPreviewCrawlersOfCrawlerUserAgents() throws {
        let entries = try #require(try Fixtures.json("crawler-user-agents/crawler-user-agents.json") as? [[String: Any]])
        var checked = 0
        var misses: [String] = []
        for entry in entries where (entry["tags"] as? [String])?.contains("social-preview") == true {
            for instance in entry["instances"] as? [String] ?? [] {
                checked += 1
                let visitor = classifier.classify(userAgent: instance)
                if visitor.bot != .linkPreview { misses.append("\(visitor.bot) / \(String(describing: visitor.inAppHost)): \(instance)") }
            }
        }
        let rate = Double(checked - misses.count) / Double(checked)
        print("crawler-user-agents social-preview: \(checked - misses.count) of \(checked) detected as link-preview crawlers (\(String(format: "%.2f", rate * 100))%)")
        for miss in misses { print("  miss: \(miss)") }
        #expect(checked > 100)
        #expect(rate >= 0.99)
    }

    @Test func everyCrawlerOfCrawlerUserAgentsIsABot() throws {
        let entries = try #require(try Fixtures.json("crawler-user-agents/crawler-user-agents.json") as? [[String: Any]])
        var checked = 0
        var misses: [String] = []
        for entry in entries {
            for instance in entry["instances"] as? [String] ?? [] where !instance.contains("MetaIAB") {
                checked += 1
                if classifier.classify(userAgent: instance).bot == .none { misses.append(instance) }
            }
        }
        let rate = Double(checked - misses.count) / Double(checked)
        print("crawler-user-agents, all instances: \(checked - misses.count) of \(checked) recognised as bots (\(String(format: "%.1f", rate * 100))%)")
        #expect(rate >= 0.8)
    }
}
