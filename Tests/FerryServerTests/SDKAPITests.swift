import FerryKit
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
@testable import FerryServer

/// `/sdk/v1` and the deferred intents that clicks leave behind.
@Suite struct SDKAPITests {
    typealias F = ServerFixtures
    static let key = "fy_sdk_TestKeyTestKeyTestKey"

    func withSDK(settings: ServerSettings? = nil, app edit: (inout App) -> Void = { _ in },
                 _ body: @Sendable (FerryServices<MemoryStore>, any TestClientProtocol) async throws -> Void) async throws {
        let seeded = try await F.services()
        var app = F.app
        app.sdkKey = Self.key
        edit(&app)
        try await seeded.store.save(app)
        let services = FerryServices(store: seeded.store, settings: settings ?? seeded.settings)
        try await Application(router: buildRouter(services)).test(.router) { client in try await body(services, client) }
    }

    func post(_ client: any TestClientProtocol, _ path: String, _ json: String, key: String? = key) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let key { headers[.ferrySDKKey] = key }
        return try await client.execute(uri: path, method: .post, headers: headers, body: ByteBuffer(string: json))
    }

    func click(_ client: any TestClientProtocol, _ path: String, userAgent: String) async throws -> TestResponse {
        try await client.execute(uri: path, method: .get, headers: F.headers(userAgent, [HTTPField.Name("Host")!: "go.acme.example"]))
    }

    func answer(_ response: TestResponse) throws -> InstallAnswer {
        try JSONDecoder().decode(InstallAnswer.self, from: Data(buffer: response.body))
    }

    static func token(inPage response: TestResponse) throws -> String {
        let html = String(buffer: response.body)
        return try #require(html.firstMatch(of: /ferry_token=([A-Za-z0-9_-]{22})/)?.1).description
    }

    @Test func theSDKKeyIsRequired() async throws {
        try await withSDK { _, client in
            for key in [nil, "fy_sdk_WrongWrongWrongWrongWr", "not-a-key"] {
                let response = try await post(client, "/sdk/v1/install", #"{"platform":"ios","appVersion":"1.0"}"#, key: key)
                #expect(response.status == .unauthorized)
                #expect(String(buffer: response.body).contains(#""code":"unauthorized""#))
            }
        }
    }

    @Test func requestsAreRateLimitedPerAddress() async throws {
        try await withSDK(settings: ServerSettings(secret: "s", sdkRequestsPerMinutePerIP: 3)) { _, client in
            var statuses: [HTTPResponse.Status] = []
            for _ in 0..<5 {
                statuses.append(try await client.execute(uri: "/sdk/v1/links/spring", method: .get, headers: [.ferrySDKKey: Self.key]).status)
            }
            #expect(statuses == [.ok, .ok, .ok, .tooManyRequests, .tooManyRequests])
            let limited = try await client.execute(uri: "/sdk/v1/links/spring", method: .get, headers: [.ferrySDKKey: Self.key])
            #expect(Int(limited.headers[.retryAfter] ?? "") ?? 0 >= 1)
            #expect(String(buffer: limited.body).contains(#""code":"rate_limited""#))
        }
    }

    @Test func requestsAreRateLimitedPerKey() async throws {
        try await withSDK(settings: ServerSettings(secret: "s", sdkRequestsPerMinutePerIP: 1000, sdkRequestsPerMinutePerKey: 2)) { _, client in
            var statuses: [HTTPResponse.Status] = []
            for _ in 0..<3 {
                statuses.append(try await client.execute(uri: "/sdk/v1/links/spring", method: .get, headers: [.ferrySDKKey: Self.key]).status)
            }
            #expect(statuses == [.ok, .ok, .tooManyRequests])
        }
    }

    @Test func theJanitorPurgesExpiredIntentsAndOldVisitsButKeepsTheNumbers() async throws {
        let store = MemoryStore()
        let now = Date()
        let past = now - 7200
        try await store.insert([DeferredIntent(token: "tokenEXPIREDEXPIREDEXP", appID: "acme", domain: "go.acme.example", code: nil, path: "/u/1",
                                               signals: DeviceSignals(ipHash: "h", platform: .iOS), createdAt: past, expiresAt: past + 3600)])
        let visitor = VisitorClassifier.shared.classify(userAgent: F.iPhone)
        let old = Visit(at: now - 40 * 86_400, domain: "go.acme.example", code: "spring", path: "/spring", visitor: visitor,
                        decision: .appStore, referrerHost: nil, tags: LinkTags(), ipHash: "h")
        var recent = old
        recent.at = now - 86_400
        try await store.record([old, recent])
        let scope = StatsScope.link(domain: "go.acme.example", code: "spring", appID: "acme")
        let period = try StatsPeriod(from: now - 60 * 86_400, to: now, bucket: .day)
        let janitor = Janitor(store: store, retentionDays: 30, logger: Logger(label: "test"), every: .milliseconds(20))
        let stored = { try await store.intentCandidates(appID: "acme", ipHash: "h", at: past + 10).count }
        #expect(try await stored() == 1)
        let task = Task { try await janitor.run() }
        for _ in 0..<100 {
            let done = try await stored() == 0
            if done, await store.visitCount() == 1 { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        task.cancel()
        #expect(try await stored() == 0, "gone from the store")
        #expect(await store.visitCount() == 1, "the visit from 40 days ago is pruned, yesterday's kept")
        #expect(try await store.stats(scope, period).totals.humanVisits == 2, "the numbers still count both")

        let keepingAll = Janitor(store: store, retentionDays: 0, logger: Logger(label: "test"))
        await keepingAll.sweep(now: now + 400 * 86_400)
        #expect(await store.visitCount() == 1, "0 keeps raw visits for ever")
    }

    @Test func aPreviewPageTokenIsMatchedOnceDeterministically() async throws {
        try await withSDK { services, client in
            let page = try await click(client, "/spring?ref=mail", userAgent: F.iPhone)
            let token = try Self.token(inPage: page)
            let install = #"{"platform":"ios","appVersion":"2.0","osVersion":"17.4","token":"\#(token)"}"#
            let first = try answer(try await post(client, "/sdk/v1/install", install))
            #expect(first.matchType == .deterministic && first.confidence == 1)
            #expect(first.link?.code == "spring" && first.link?.path == "/u/42" && first.link?.parameters["userId"] == "42")
            #expect(first.link?.tags.campaign == "spring")
            let second = try answer(try await post(client, "/sdk/v1/install", install))
            #expect(second == .none, "a token is matched once, and a presented token is never replaced by a guess")
            let events = try await services.store.appEvents(appID: "acme")
            #expect(events.map(\.kind) == [.install, .install] && events.map(\.matchType) == [.deterministic, MatchType.none])
        }
    }

    @Test func aDirectAppStoreRedirectLeavesAnIntentOnlyWhenIOSOptedIn() async throws {
        try await withSDK { services, client in
            try await services.store.insert(Link(code: "direct", domain: "go.acme.example", path: "/u/5", previewPage: .never))
            #expect(try await click(client, "/direct", userAgent: F.iPhone).status == .found)
            await services.recorder.flush()
            let unknown = services.sdkHasherForTests.hash("unknown")
            #expect(try await services.store.intentCandidates(appID: "acme", ipHash: unknown, at: Date()).isEmpty,
                    "the App Store carries no token and iOS guesses are off: nothing to keep")
            let install = #"{"platform":"ios","appVersion":"2.0","osVersion":"17.4"}"#
            #expect(try answer(try await post(client, "/sdk/v1/install", install)) == .none)
        }
        try await withSDK(app: { $0.deferred.probabilisticIOS = true }) { services, client in
            try await services.store.insert(Link(code: "direct", domain: "go.acme.example", path: "/u/5", previewPage: .never))
            #expect(try await click(client, "/direct", userAgent: F.iPhone).status == .found)
            let install = #"{"platform":"ios","appVersion":"2.0","osVersion":"17.4","languages":["en-US"]}"#
            let matched = try answer(try await post(client, "/sdk/v1/install", install))
            #expect(matched.matchType == .probabilistic)
            #expect(matched.confidence >= 0.6 && matched.confidence < 1)
            #expect(matched.link?.path == "/u/5")
        }
    }

    @Test func androidClicksAreMatchedByReferrerOrBySignals() async throws {
        try await withSDK { services, client in
            let redirect = try await click(client, "/spring", userAgent: F.android)
            let location = try #require(redirect.headers[.location])
            let referrer = try #require(location.firstMatch(of: /referrer%3D(ferry_token%253D[A-Za-z0-9_-]{22}[^;]*)/)?.1)
                .removingPercentEncoding!.removingPercentEncoding!
            let byReferrer = try answer(try await post(client, "/sdk/v1/install",
                                                       #"{"platform":"android","appVersion":"1.0","installReferrer":"\#(referrer)"}"#))
            #expect(byReferrer.matchType == .deterministic && byReferrer.link?.code == "spring")
            // Another click, and an install without a referrer (another store): matched by its
            // signals — the address, Android 14 and the language both sides see.
            _ = try await client.execute(uri: "/spring", method: .get, headers: F.headers(
                F.android, [HTTPField.Name("Host")!: "go.acme.example", .acceptLanguage: "en-US,en;q=0.9"]))
            let bySignals = try answer(try await post(client, "/sdk/v1/install", #"{"platform":"android","appVersion":"1.0","osVersion":"14","languages":["en-US"]}"#))
            #expect(bySignals.matchType == .probabilistic && bySignals.link?.code == "spring")
            #expect(try answer(try await post(client, "/sdk/v1/install", #"{"platform":"android","appVersion":"1.0","osVersion":"14","languages":["en-US"]}"#)) == .none,
                    "each click is matched once")
            _ = services
        }
    }

    @Test func thePreviewPageBeaconAddsSignalsToItsIntent() async throws {
        try await withSDK { services, client in
            let token = try Self.token(inPage: try await click(client, "/spring", userAgent: F.iPhone))
            let beacon = #"{"t":"\#(token)","w":852,"h":393,"tz":"Europe/London","l":["en-GB","en"]}"#
            let response = try await client.execute(uri: "/_ferry/beacon", method: .post,
                                                    headers: [HTTPField.Name("Host")!: "go.acme.example", .contentType: "text/plain;charset=UTF-8"],
                                                    body: ByteBuffer(string: beacon))
            #expect(response.status == .noContent)
            let junk = try await client.execute(uri: "/_ferry/beacon", method: .post, headers: [HTTPField.Name("Host")!: "go.acme.example"],
                                                body: ByteBuffer(string: "<script>"))
            #expect(junk.status == .noContent, "nonsense is ignored")
            await services.recorder.flush()
            let unknown = services.sdkHasherForTests.hash("unknown")
            let intent = try #require(try await services.store.intentCandidates(appID: "acme", ipHash: unknown, at: Date()).first)
            #expect(intent.token == token)
            #expect(intent.signals.screen == Screen(width: 393, height: 852) && intent.signals.timeZone == "Europe/London")
            #expect(intent.signals.languages == ["en-gb", "en"])
            #expect(intent.expiresAt.timeIntervalSince(intent.createdAt) == 3600, "the app's window, one hour by default")
        }
    }

    @Test func opensAreResolvedAndRecordedAndOldVersionsGetTheWebPage() async throws {
        let minimum = Route(pattern: try RoutePattern("/p/{sku}"), webURL: "https://acme.example/p/{sku}",
                            minimumVersion: MinimumAppVersions(ios: Version(3, 0)))
        try await withSDK(app: { $0.routes.append(minimum) }) { services, client in
            let short = try await post(client, "/sdk/v1/open", #"{"url":"https://open.acme.example/spring","platform":"ios","appVersion":"1.0"}"#)
            #expect(short.status == .ok)
            let link = try JSONDecoder().decode(ResolvedLink.self, from: Data(buffer: short.body))
            #expect(link.code == "spring" && link.path == "/u/42" && !link.requiresUpdate)
            let old = try JSONDecoder().decode(ResolvedLink.self, from: Data(buffer: try await post(
                client, "/sdk/v1/open", #"{"url":"acme://p/sku-9","platform":"ios","appVersion":"2.9"}"#).body))
            #expect(old.requiresUpdate && old.webURL == "https://go.acme.example/_ferry/web?path=%2Fp%2Fsku-9")
            #expect(old.parameters["sku"] == "sku-9")
            let current = try JSONDecoder().decode(ResolvedLink.self, from: Data(buffer: try await post(
                client, "/sdk/v1/open", #"{"url":"https://go.acme.example/p/sku-9?utm_source=mail","platform":"ios","appVersion":"3.0"}"#).body))
            #expect(!current.requiresUpdate && current.tags.utmSource == "mail")
            #expect(try await post(client, "/sdk/v1/open", #"{"url":"https://go.acme.example/off","platform":"ios"}"#).status == .gone)
            #expect(try await post(client, "/sdk/v1/open", #"{"url":"https://elsewhere.example/spring","platform":"ios"}"#).status == .notFound)
            #expect(try await post(client, "/sdk/v1/open", #"{"url":"https://go.acme.example/nothing/here","platform":"ios"}"#).status == .notFound)
            let invalid = try await post(client, "/sdk/v1/open", #"{"platform":"ios"}"#)
            #expect(invalid.status == .badRequest && String(buffer: invalid.body).contains(#""field":"url""#))
            #expect(try await services.store.appEvents(appID: "acme").filter { $0.kind == .open }.count == 3)
        }
    }

    @Test func linksResolveWithoutBeingRecorded() async throws {
        try await withSDK { services, client in
            let response = try await client.execute(uri: "/sdk/v1/links/spring?platform=ios&appVersion=1.0", method: .get, headers: [.ferrySDKKey: Self.key])
            #expect(response.status == .ok)
            #expect(try JSONDecoder().decode(ResolvedLink.self, from: Data(buffer: response.body)).path == "/u/42")
            #expect(try await client.execute(uri: "/sdk/v1/links/off", method: .get, headers: [.ferrySDKKey: Self.key]).status == .gone)
            #expect(try await client.execute(uri: "/sdk/v1/links/nope", method: .get, headers: [.ferrySDKKey: Self.key]).status == .notFound)
            #expect(try await client.execute(uri: "/sdk/v1/links/spring?platform=beos", method: .get, headers: [.ferrySDKKey: Self.key]).status == .badRequest)
            #expect(try await services.store.appEvents(appID: "acme").isEmpty)
        }
    }
}

extension FerryServices {
    /// The hasher the server keys IPs with.
    var sdkHasherForTests: IPHasher { IPHasher(secret: settings.secret) }
}
