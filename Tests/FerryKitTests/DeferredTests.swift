import Foundation
import Testing
@testable import FerryKit

@Suite struct DeferredTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func intent(_ token: String, minutesAgo: Double = 5, ip: String = "ip-1", os: Version? = Version(17, 4),
                       model: String? = nil, screen: Screen? = Screen(width: 393, height: 852), timeZone: String? = "Europe/London",
                       languages: [String] = ["en-gb"], platform: Platform = .iOS) -> DeferredIntent {
        let created = now - minutesAgo * 60
        return DeferredIntent(token: token, appID: "acme", domain: "go.acme.example", code: "spring", path: "/spring",
                              signals: DeviceSignals(ipHash: ip, platform: platform, osVersion: os, deviceModel: model, languages: languages,
                                                     timeZone: timeZone, screen: screen),
                              createdAt: created, expiresAt: created + 3600)
    }

    static let install = DeviceSignals(ipHash: "ip-1", platform: .iOS, osVersion: Version(17, 4, 1), deviceModel: "iPhone15,2",
                                       languages: ["en-GB", "en"], timeZone: "Europe/London", screen: Screen(width: 852, height: 393))

    @Test func aClearlyFittingClickIsMatched() throws {
        let (intent, confidence) = try #require(DeferredMatcher().best(for: Self.install, at: Self.now, among: [Self.intent("a")]))
        #expect(intent.token == "a")
        #expect(confidence > 0.8 && confidence <= 1, "IP, OS, screen (either orientation), zone and language agree")
    }

    @Test func anotherAddressOrPlatformIsNeverAMatch() {
        let matcher = DeferredMatcher()
        #expect(matcher.best(for: Self.install, at: Self.now, among: [Self.intent("a", ip: "ip-2")]) == nil)
        #expect(matcher.best(for: Self.install, at: Self.now, among: [Self.intent("a", platform: .android)]) == nil)
        var noIP = Self.install
        noIP.ipHash = nil
        #expect(matcher.best(for: noIP, at: Self.now, among: [Self.intent("a")]) == nil)
    }

    @Test func aSignalThatDisagreesRulesTheClickOut() {
        let matcher = DeferredMatcher()
        #expect(matcher.best(for: Self.install, at: Self.now, among: [Self.intent("a", os: Version(16, 7))]) == nil)
        #expect(matcher.best(for: Self.install, at: Self.now, among: [Self.intent("a", screen: Screen(width: 375, height: 667))]) == nil)
        #expect(matcher.best(for: Self.install, at: Self.now, among: [Self.intent("a", timeZone: "America/New_York")]) == nil)
        #expect(matcher.best(for: Self.install, at: Self.now, among: [Self.intent("a", model: "iPhone12,1")]) == nil)
    }

    @Test func twoCloseCandidatesGiveNoAnswer() {
        // Two phones on one Wi-Fi, alike in every signal: refuse rather than guess.
        let matcher = DeferredMatcher()
        #expect(matcher.best(for: Self.install, at: Self.now, among: [Self.intent("a", minutesAgo: 5), Self.intent("b", minutesAgo: 6)]) == nil)
        // One that fits far better than the other wins.
        let weak = Self.intent("b", minutesAgo: 50, screen: nil, timeZone: nil, languages: [])
        #expect(matcher.best(for: Self.install, at: Self.now, among: [Self.intent("a"), weak])?.intent.token == "a")
    }

    @Test func nothingOutsideTheWindow() {
        #expect(DeferredMatcher().best(for: Self.install, at: Self.now, among: [Self.intent("a", minutesAgo: 61)]) == nil)
        #expect(DeferredMatcher().best(for: Self.install, at: Self.now, among: [Self.intent("a", minutesAgo: -1)]) == nil, "not a click from the future")
    }

    @Test func tokensComeOutOfCopiedURLsAndInstallReferrers() {
        let token = "AbCdEfGhIjKlMnOpQrStUv"
        #expect(DeferredToken.fromURL("https://go.acme.example/spring?ferry_token=\(token)") == token)
        #expect(DeferredToken.fromURL("  https://go.acme.example/spring?a=1&ferry_token=\(token)\n") == token)
        #expect(DeferredToken.fromURL("https://go.acme.example/spring") == nil)
        #expect(DeferredToken.fromURL("javascript:alert(1)?ferry_token=\(token)") == nil)
        #expect(DeferredToken.fromURL("https://go.acme.example/?ferry_token=short") == nil)
        #expect(DeferredToken.fromURL("https://go.acme.example/?ferry_token=\(token)%3Cscript") == nil)
        // What Google Play's Install Referrer API returns for the referrer Ferry put in the store URL.
        let referrer = StoreLinks.installReferrer(token: token, tags: LinkTags(campaign: "spring", utmSource: "mail"))
        #expect(DeferredToken.fromInstallReferrer(referrer) == token)
        #expect(DeferredToken.fromInstallReferrer("utm_source=google-play&utm_medium=organic") == nil)
        #expect(InstallReport(platform: .android, appVersion: Version(1), installReferrer: referrer).deferredToken == token)
    }

    @Test func aResolvedLinkCarriesRouteParametersTagsAndTheVersionCheck() throws {
        let route = Route(pattern: try RoutePattern(text: "/u/{userId}"), webURL: "https://acme.example/users/{userId}",
                          minimumVersion: MinimumAppVersions(ios: Version(3, 2)))
        let app = App(id: "acme", name: "Acme", web: WebSettings(fallbackURL: URL(string: "https://acme.example")!), routes: [route])
        let link = Link(code: "spring", domain: "go.acme.example", path: "/u/42", parameters: ["tab": "posts"], tags: LinkTags(campaign: "spring"))
        let current = ResolvedLink(link: link, app: app, platform: .iOS, appVersion: Version(3, 4))
        #expect(current.url == "https://go.acme.example/spring")
        #expect(current.route == "/u/{userId}" && current.parameters == ["userId": "42", "tab": "posts"])
        #expect(!current.requiresUpdate && current.webURL == nil)
        let old = ResolvedLink(link: link, app: app, platform: .iOS, appVersion: Version(3, 1))
        #expect(old.requiresUpdate)
        #expect(old.webURL == "https://go.acme.example/_ferry/web?path=%2Fspring", "the web page through the path the AASA excludes")
        #expect(!ResolvedLink(link: link, app: app, platform: .android, appVersion: Version(1)).requiresUpdate, "no Android minimum")
        let routeLink = ResolvedLink(link: Link.routeLink(domain: "go.acme.example", path: "/u/7", query: [("ref", "mail"), ("x", "1")]),
                                     app: app, platform: .iOS, appVersion: nil)
        #expect(routeLink.code == nil && routeLink.parameters == ["userId": "7", "x": "1"] && routeLink.tags.ref == "mail")
    }

    @Test func deferredSettingsHaveSafeDefaultsAndLimits() throws {
        let decoded = try JSONDecoder().decode(App.self, from: Data(#"{"id":"a","name":"A","web":{"fallbackURL":"https://a.example"}}"#.utf8))
        #expect(decoded.deferred == DeferredSettings(windowMinutes: 60, probabilisticIOS: false, probabilisticAndroid: true))
        #expect(!decoded.allowsProbabilisticMatching(on: .iOS) && !decoded.allowsProbabilisticMatching(on: .iPadOS))
        #expect(decoded.allowsProbabilisticMatching(on: .android) && !decoded.allowsProbabilisticMatching(on: .windows))
        var app = decoded
        app.deferred.windowMinutes = 0
        #expect(throws: ValidationError.self) { try app.validate() }
        app.deferred.windowMinutes = 120
        app.sdkKey = "secret"
        #expect { try app.validate() } throws: { ($0 as? ValidationError)?.field == "sdkKey" }
        app.sdkKey = "fy_sdk_AbCdEfGhIjKlMnOpQrStUv"
        try app.validate()
    }
}
