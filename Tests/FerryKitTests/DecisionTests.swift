import Foundation
import Testing
@testable import FerryKit

/// DESIGN.md §2 as a table: visitor × link settings → decision.
@Suite struct DecisionTests {
    static let fingerprint = String(repeating: "AB:", count: 31) + "AB"
    static let app = App(
        id: "acme", name: "Acme", iconURL: URL(string: "https://acme.example/icon.png"),
        ios: IOSApp(teamID: "ABCDE12345", bundleID: "com.acme.app", appStoreID: "123456789", customScheme: "acme"),
        android: AndroidApp(packageName: "com.acme.app", sha256CertFingerprints: [fingerprint],
                            stores: [AndroidStoreListing(.googlePlay), AndroidStoreListing(.huaweiAppGallery, storeAppID: "C101234567"),
                                     AndroidStoreListing(.amazon)]),
        web: WebSettings(fallbackURL: URL(string: "https://acme.example")!),
        routes: [Route(pattern: "/u/{userId}", webURL: "https://acme.example/users/{userId}", customScheme: "acme://user/{userId}")])
    static let domain = Domain(host: "go.acme.example", appID: "acme", alternateHost: "open.acme.example")
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func link(_ configure: (inout Link) -> Void = { _ in }) -> Link {
        var link = Link(code: "x7Kp2", domain: "go.acme.example", path: "/u/42")
        link.preview = PreviewMetadata(title: "Ada's profile", description: "Follow Ada on Acme")
        link.tags = LinkTags(campaign: "spring", utmSource: "newsletter")
        configure(&link)
        return link
    }

    static func decision(_ userAgent: String, link: Link? = link(), host: String = "go.acme.example", app: App = app) -> Decision {
        let visitor = VisitorClassifier.shared.classify(userAgent: userAgent)
        let request = LinkRequest(domain: domain, host: host, path: "/x7Kp2", now: now, deferredToken: "tok123")
        return decide(link: link, app: app, visitor: visitor, request: request)
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var visitor: String
        var userAgent: String
        var setting: String
        var link: Link?
        var kind: DecisionKind
        /// The start of the redirect's `Location`, for redirects.
        var location: String?
        var testDescription: String { "\(visitor), \(setting) → \(kind.rawValue)" }
    }

    static let rows: [Row] = [
        // Preview crawlers: 200 preview HTML, no redirect.
        Row(visitor: "Slackbot", userAgent: UserAgents.slackbot, setting: "default", link: link(), kind: .crawlerPreview),
        Row(visitor: "facebookexternalhit", userAgent: UserAgents.facebookCrawler, setting: "default", link: link(), kind: .crawlerPreview),
        Row(visitor: "WhatsApp fetcher", userAgent: UserAgents.whatsAppFetcher, setting: "default", link: link(), kind: .crawlerPreview),
        Row(visitor: "iMessage preview", userAgent: UserAgents.iMessagePreview, setting: "default", link: link(), kind: .crawlerPreview),
        Row(visitor: "TelegramBot", userAgent: UserAgents.telegramBot, setting: "default", link: link(), kind: .crawlerPreview),
        Row(visitor: "Googlebot", userAgent: UserAgents.googlebot, setting: "default", link: link(), kind: .web, location: "https://acme.example/users/42"),
        // Desktops: 302 to the desktop URL.
        Row(visitor: "Windows Chrome", userAgent: UserAgents.windowsChrome, setting: "default", link: link(), kind: .desktop, location: "https://acme.example/users/42?utm_source=newsletter"),
        Row(visitor: "Windows Chrome", userAgent: UserAgents.windowsChrome, setting: "desktop URL", link: link { $0.desktopURL = URL(string: "https://acme.example/desktop")! }, kind: .desktop, location: "https://acme.example/desktop"),
        Row(visitor: "Mac Chrome", userAgent: UserAgents.macChrome, setting: "default", link: link(), kind: .desktop, location: "https://acme.example/users/42"),
        Row(visitor: "Linux Firefox", userAgent: UserAgents.linuxFirefox, setting: "default", link: link(), kind: .desktop, location: "https://acme.example/users/42"),
        Row(visitor: "ChromeOS", userAgent: UserAgents.chromeOS, setting: "default", link: link(), kind: .desktop, location: "https://acme.example/users/42"),
        // The ambiguous iPad: Mac Safari.
        Row(visitor: "Mac Safari (maybe iPad)", userAgent: UserAgents.macSafari, setting: "default", link: link(), kind: .ipadProbe),
        // iOS Safari, per link.
        Row(visitor: "iPhone Safari", userAgent: UserAgents.iPhoneSafari, setting: "default (store, auto)", link: link(), kind: .previewPage),
        Row(visitor: "iPhone Safari", userAgent: UserAgents.iPhoneSafari, setting: "straight to the store", link: link { $0.previewPage = .never }, kind: .appStore, location: "https://apps.apple.com/app/id123456789?ct=spring"),
        Row(visitor: "iPhone Safari", userAgent: UserAgents.iPhoneSafari, setting: "web when missing", link: link { $0.ios.whenAppMissing = .web }, kind: .web, location: "https://acme.example/users/42"),
        Row(visitor: "iPhone Safari", userAgent: UserAgents.iPhoneSafari, setting: "iOS web URL", link: link { $0.ios = PlatformBehaviour(webURL: URL(string: "https://m.acme.example/u/42")!, whenAppMissing: .web) }, kind: .web, location: "https://m.acme.example/u/42"),
        Row(visitor: "iPhone Safari", userAgent: UserAgents.iPhoneSafari, setting: "web, preview always", link: link { $0.ios.whenAppMissing = .web; $0.previewPage = .always }, kind: .previewPage),
        Row(visitor: "iPhone Chrome", userAgent: UserAgents.iPhoneChrome, setting: "default", link: link(), kind: .previewPage),
        Row(visitor: "iPad Safari", userAgent: UserAgents.iPadSafari, setting: "default", link: link(), kind: .previewPage),
        // iOS in-app browsers: the preview page, whose button tap lets iOS open the app.
        Row(visitor: "iPhone Facebook", userAgent: UserAgents.iPhoneFacebook, setting: "default", link: link(), kind: .previewPage),
        Row(visitor: "iPhone Instagram", userAgent: UserAgents.iPhoneInstagram, setting: "web when missing", link: link { $0.ios.whenAppMissing = .web }, kind: .previewPage),
        Row(visitor: "iPhone LinkedIn", userAgent: UserAgents.iPhoneLinkedIn, setting: "default", link: link(), kind: .previewPage),
        Row(visitor: "iPhone Facebook", userAgent: UserAgents.iPhoneFacebook, setting: "never preview", link: link { $0.previewPage = .never }, kind: .appStore),
        // WeChat: open-in-browser guidance.
        Row(visitor: "iPhone WeChat", userAgent: UserAgents.iPhoneWeChat, setting: "default", link: link(), kind: .openInBrowser),
        Row(visitor: "Android WeChat", userAgent: UserAgents.androidWeChat, setting: "default", link: link(), kind: .openInBrowser),
        // Android browsers: intent:// with the store as fallback.
        Row(visitor: "Android Chrome", userAgent: UserAgents.androidChrome, setting: "default", link: link(), kind: .androidIntent, location: "intent://go.acme.example/x7Kp2#Intent;scheme=https;package=com.acme.app;S.browser_fallback_url=https%3A%2F%2Fplay.google.com"),
        Row(visitor: "Samsung Internet", userAgent: UserAgents.androidSamsung, setting: "default", link: link(), kind: .androidIntent),
        Row(visitor: "Android Chrome", userAgent: UserAgents.androidChrome, setting: "web when missing", link: link { $0.android.whenAppMissing = .web }, kind: .androidIntent, location: "intent://go.acme.example/x7Kp2#Intent;scheme=https;package=com.acme.app;S.browser_fallback_url=https%3A%2F%2Facme.example%2Fusers%2F42"),
        Row(visitor: "Android Chrome", userAgent: UserAgents.androidChrome, setting: "preview always", link: link { $0.previewPage = .always }, kind: .previewPage),
        Row(visitor: "Android Firefox", userAgent: UserAgents.androidFirefox, setting: "default", link: link(), kind: .playStore, location: "https://play.google.com/store/apps/details?id=com.acme.app&referrer="),
        Row(visitor: "Huawei without Google", userAgent: UserAgents.huaweiWithoutGoogle, setting: "default", link: link(), kind: .androidIntent, location: "intent://go.acme.example/x7Kp2#Intent;scheme=https;package=com.acme.app;S.browser_fallback_url=https%3A%2F%2Fappgallery.huawei.com%2Fapp%2FC101234567"),
        Row(visitor: "Amazon Fire", userAgent: UserAgents.amazonFire, setting: "default", link: link(), kind: .androidStore, location: "https://www.amazon.com/gp/mas/dl/android?p=com.acme.app"),
        // Android in-app browsers: the preview page with an intent:// button.
        Row(visitor: "Android Facebook", userAgent: UserAgents.androidFacebook, setting: "default", link: link(), kind: .previewPage),
        // Any visitor: expired, disabled, unknown.
        Row(visitor: "iPhone Safari", userAgent: UserAgents.iPhoneSafari, setting: "expired", link: link { $0.expiresAt = now.addingTimeInterval(-1) }, kind: .gone),
        Row(visitor: "Android Chrome", userAgent: UserAgents.androidChrome, setting: "disabled", link: link { $0.disabled = true }, kind: .gone),
        Row(visitor: "Slackbot", userAgent: UserAgents.slackbot, setting: "expired", link: link { $0.expiresAt = now }, kind: .gone),
        Row(visitor: "Windows Chrome", userAgent: UserAgents.windowsChrome, setting: "expired with fallback", link: link { $0.expiresAt = now.addingTimeInterval(-60); $0.expiredURL = URL(string: "https://acme.example/expired")! }, kind: .expiredFallback, location: "https://acme.example/expired"),
        Row(visitor: "iPhone Safari", userAgent: UserAgents.iPhoneSafari, setting: "not expired yet", link: link { $0.expiresAt = now.addingTimeInterval(60) }, kind: .previewPage),
        Row(visitor: "Android Chrome", userAgent: UserAgents.androidChrome, setting: "unknown code", link: nil, kind: .notFound),
    ]

    @Test(arguments: rows)
    func decisionTable(_ row: Row) {
        let decision = Self.decision(row.userAgent, link: row.link)
        #expect(decision.kind == row.kind)
        if let location = row.location {
            guard case .redirect(let url, _) = decision else {
                Issue.record("expected a redirect, got \(decision)")
                return
            }
            #expect(url.hasPrefix(location), "Location was \(url)")
        }
    }

    // MARK: The details each row depends on

    @Test func androidIntentFallbackCarriesTheTokenAsInstallReferrer() throws {
        guard case .redirect(let intent, .androidIntent) = Self.decision(UserAgents.androidChrome) else {
            Issue.record("expected an intent")
            return
        }
        let text = intent
        #expect(text.hasSuffix(";end"))
        let extra = try #require(text.components(separatedBy: ";").first { $0.hasPrefix("S.browser_fallback_url=") })
        let encoded = String(extra.dropFirst("S.browser_fallback_url=".count))
        // Escaped whole: nothing in it can end the extra or the intent early.
        #expect(!encoded.contains(";") && !encoded.contains("=") && !encoded.contains("&") && !encoded.contains("#"))
        let store = try #require(URLComponents(string: Escaping.percentDecode(encoded)))
        #expect(store.host == "play.google.com")
        #expect(store.queryItems?.first { $0.name == "id" }?.value == "com.acme.app")
        let referrer = try #require(store.queryItems?.first { $0.name == "referrer" }?.value)
        let referrerItems = try #require(URLComponents(string: "x:?" + referrer)?.queryItems)
        #expect(referrerItems.first { $0.name == "ferry_token" }?.value == "tok123")
        #expect(referrerItems.first { $0.name == "utm_source" }?.value == "newsletter")
        #expect(referrerItems.first { $0.name == "utm_campaign" }?.value == "spring")
    }

    @Test func iOSPreviewPageOffersTheAlternateDomainAndCopiesTheToken() throws {
        let page = try #require(Self.decision(UserAgents.iPhoneSafari).page)
        #expect(page.openInAppURL == "https://open.acme.example/x7Kp2")
        #expect(page.storeURL == "https://apps.apple.com/app/id123456789?ct=spring")
        #expect(page.clipboardURL == "https://go.acme.example/x7Kp2?ferry_token=tok123")
        #expect(page.title == "Ada's profile")
        #expect(page.webURL.hasPrefix("https://acme.example/users/42"))
    }

    @Test func onTheAlternateDomainTheButtonPointsBackAtThePrimary() throws {
        let page = try #require(Self.decision(UserAgents.iPhoneSafari, host: "open.acme.example").page)
        #expect(page.openInAppURL == "https://go.acme.example/x7Kp2")
        #expect(page.linkURL == "https://open.acme.example/x7Kp2")
    }

    @Test func withoutAnAlternateDomainTheButtonUsesTheAppScheme() throws {
        let visitor = VisitorClassifier.shared.classify(userAgent: UserAgents.iPhoneSafari)
        let request = LinkRequest(domain: Domain(host: "go.acme.example", appID: "acme"), path: "/x7Kp2", now: Self.now, deferredToken: "t")
        let page = try #require(decide(link: Self.link(), app: Self.app, visitor: visitor, request: request).page)
        #expect(page.openInAppURL == "acme://user/42")
    }

    @Test func androidInAppPageButtonIsTheIntent() throws {
        let page = try #require(Self.decision(UserAgents.androidFacebook).page)
        #expect(page.openInAppURL?.hasPrefix("intent://") == true)
        #expect(page.storeURL?.hasPrefix("https://play.google.com/") == true)
        #expect(page.clipboardURL == nil, "Android uses the install referrer, not the clipboard")
        #expect(page.inAppHost == .facebook)
    }

    @Test func crawlerPreviewHasNoTokenAndTheLinksMetadata() throws {
        let page = try #require(Self.decision(UserAgents.slackbot).page)
        #expect(page.deferredToken == nil)
        #expect(page.metadata.content(of: "og:title") == "Ada's profile")
        #expect(page.metadata.content(of: "og:url") == "https://go.acme.example/x7Kp2")
    }

    @Test func ambiguousIPadCarriesBothAnswers() {
        guard case .ambiguousIPad(let probe) = Self.decision(UserAgents.macSafari) else {
            Issue.record("expected the iPad probe")
            return
        }
        #expect(probe.ipad.kind == .previewPage)
        #expect(probe.ipad.page?.platform == .iPadOS)
        #expect(probe.desktopURL.hasPrefix("https://acme.example/users/42"))
    }

    @Test func appWithoutIOSSendsIPhonesToTheWeb() {
        var app = Self.app
        app.ios = nil
        #expect(Self.decision(UserAgents.iPhoneSafari, app: app).kind == .web)
        #expect(Self.decision(UserAgents.macSafari, app: app).kind == .desktop, "no iPad probe for an app without iOS")
    }

    @Test func linkStoreRuleWinsOverTheDefaultStore() {
        let decision = Self.decision(UserAgents.androidFirefox, link: Self.link { $0.androidStore = .huaweiAppGallery })
        guard case .redirect(let url, .androidStore) = decision else {
            Issue.record("expected AppGallery, got \(decision)")
            return
        }
        #expect(url == "https://appgallery.huawei.com/app/C101234567")
    }

    @Test func queryParametersNeverChooseTheDestination() {
        // An attacker-controlled query can't redirect anywhere: destinations come from the app and link.
        let visitor = VisitorClassifier.shared.classify(userAgent: UserAgents.windowsChrome)
        let request = LinkRequest(domain: Self.domain, path: "/x7Kp2",
                                  query: [.init("url", "https://evil.example"), .init("redirect", "https://evil.example"), .init("ferry_web", "https://evil.example")],
                                  now: Self.now)
        guard case .redirect(let url, _) = decide(link: Self.link(), app: Self.app, visitor: visitor, request: request) else {
            Issue.record("expected a redirect")
            return
        }
        #expect(url.hasPrefix("https://acme.example/"))
    }

    @Test func routeLinksSplitTheirQueryIntoTagsAndParameters() {
        let link = Link.routeLink(domain: "go.acme.example", path: "/u/42",
                                  query: [("utm_source", "mail"), ("ref", "bob"), ("tab", "posts"), ("ferry_token", "x")])
        #expect(link.tags.utmSource == "mail")
        #expect(link.tags.ref == "bob")
        #expect(link.parameters == ["tab": "posts"])
    }
}
