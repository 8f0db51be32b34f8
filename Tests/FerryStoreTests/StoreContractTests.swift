import Foundation
import Testing
import FerryKit
@testable import FerryStore

/// The store contract, one suite for every implementation (STYLE.md: Shlink's way).
@Suite struct StoreContractTests {
    enum Kind: String, CaseIterable, Sendable {
        case memory, sqliteMemory = "sqlite (in memory)", sqliteFile = "sqlite (file)", postgres

        /// PostgreSQL only when `FERRY_TEST_POSTGRES_URL` names a server (`.ci/run` starts one).
        static var available: [Kind] {
            allCases.filter { $0 != .postgres || postgresURL != nil }
        }
    }

    static let postgresURL = ProcessInfo.processInfo.environment["FERRY_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }

    static func makeStore(_ kind: Kind) async throws -> any LinkStore {
        switch kind {
        case .memory: MemoryStore()
        case .sqliteMemory: try await SQLiteStore.open(path: ":memory:")
        case .sqliteFile:
            try await SQLiteStore.open(path: FileManager.default.temporaryDirectory
                .appendingPathComponent("ferry-contract-\(UUID().uuidString)/ferry.sqlite").path)
        case .postgres:
            // A database of its own for every test, in the run's throwaway cluster.
            try await PostgresStore.open(url: try await PostgresStore.createDatabase(
                named: "ferry_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased(), besides: postgresURL!))
        }
    }

    static let app = App(
        id: "acme", name: "Acme",
        ios: IOSApp(teamID: "ABCDE12345", bundleID: "com.acme.app", appStoreID: "123"),
        web: WebSettings(fallbackURL: URL(string: "https://acme.example")!),
        routes: [Route(pattern: "/u/{id}")])

    /// Opens a store, runs `body`, and closes the store whatever happened.
    func using(_ kind: Kind, seeded: Bool = true, _ body: (any LinkStore) async throws -> Void) async throws {
        let store = seeded ? try await Self.seeded(kind) : try await Self.makeStore(kind)
        do {
            try await body(store)
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }

    static func seeded(_ kind: Kind) async throws -> any LinkStore {
        let store = try await makeStore(kind)
        try await store.save(app)
        try await store.save(Domain(host: "go.acme.example", appID: "acme", alternateHost: "open.acme.example"))
        try await store.insert(Link(code: "abc", domain: "go.acme.example", path: "/u/1", tags: LinkTags(campaign: "spring")))
        return store
    }

    func expectError(_ check: (StoreError) -> Bool, _ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("expected an error")
        } catch let error as StoreError {
            #expect(check(error), "\(error)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test(arguments: Kind.available)
    func appsRoundTrip(_ kind: Kind) async throws {
        try await using(kind) { store in
            #expect(try await store.app(id: "acme") == Self.app)
            var changed = Self.app
            changed.name = "Acme 2"
            try await store.save(changed)
            #expect(try await store.apps().map(\.name) == ["Acme 2"])
            await expectError(\.isInvalid) { try await store.save(App(id: "Bad Id", name: "x", web: Self.app.web)) }
        }
    }

    @Test(arguments: Kind.available)
    func domainsByEitherHost(_ kind: Kind) async throws {
        try await using(kind) { store in
            #expect(try await store.domain(host: "GO.acme.example")?.host == "go.acme.example")
            #expect(try await store.domain(host: "open.acme.example")?.host == "go.acme.example")
            #expect(try await store.domain(host: "other.example") == nil)
            #expect(try await store.domains(appID: "acme").count == 1)
            #expect(try await store.domains(appID: "other").isEmpty)
            await expectError(\.isConflict) { try await store.save(Domain(host: "open.acme.example", appID: "acme")) }
            await expectError(\.isConflict) { try await store.save(Domain(host: "x.acme.example", appID: "acme", alternateHost: "go.acme.example")) }
            await expectError(\.isNotFound) { try await store.save(Domain(host: "x.example", appID: "missing")) }
            // Changing a domain's own alternate host is not a conflict.
            try await store.save(Domain(host: "go.acme.example", appID: "acme", alternateHost: "app.acme.example"))
            #expect(try await store.domain(host: "app.acme.example")?.host == "go.acme.example")
            #expect(try await store.domain(host: "open.acme.example") == nil)
        }
    }

    @Test(arguments: Kind.available)
    func linkCodesAreUniquePerDomainAndBulkIsAllOrNothing(_ kind: Kind) async throws {
        try await using(kind) { store in
            await expectError(\.isConflict) { try await store.insert(Link(code: "abc", domain: "go.acme.example", path: "/u/2")) }
            #expect(try await store.link(domain: "go.acme.example", code: "abc")?.path == "/u/1", "the first link is untouched")
            // One bad link in a batch: nothing of the batch is written.
            await expectError(\.isConflict) {
                try await store.insert([Link(code: "new1", domain: "go.acme.example", path: "/u/3"),
                                        Link(code: "abc", domain: "go.acme.example", path: "/u/4")])
            }
            #expect(try await store.link(domain: "go.acme.example", code: "new1") == nil)
            await expectError(\.isInvalid) {
                try await store.insert([Link(code: "new2", domain: "go.acme.example", path: "/u/3"),
                                        Link(code: "bad", domain: "go.acme.example", path: "/nowhere")])
            }
            #expect(try await store.link(domain: "go.acme.example", code: "new2") == nil)
            await expectError(\.isNotFound) { try await store.insert(Link(code: "x", domain: "nope.example", path: "/u/1")) }
            try await store.insert((1...300).map { Link(code: "bulk\($0)", domain: "go.acme.example", path: "/u/\($0)") })
            #expect(try await store.links(LinkQuery(limit: 1000)).count == 301)
        }
    }

    @Test(arguments: Kind.available)
    func linkUpdatesAndQueries(_ kind: Kind) async throws {
        try await using(kind) { store in
            var link = try #require(try await store.link(domain: "go.acme.example", code: "abc"))
            link.disabled = true
            link.expiresAt = Date(timeIntervalSince1970: 1_900_000_000.25)
            link.preview.title = "Spring Sale"
            try await store.update(link)
            #expect(try await store.link(domain: "go.acme.example", code: "abc") == link)
            await expectError(\.isNotFound) { try await store.update(Link(code: "zzz", domain: "go.acme.example", path: "/u/1")) }
            try await store.insert(Link(code: "second", domain: "go.acme.example", path: "/u/9"))
            #expect(try await store.links(LinkQuery()).map(\.code) == ["second", "abc"], "newest first")
            #expect(try await store.links(LinkQuery(campaign: "spring")).map(\.code) == ["abc"])
            #expect(try await store.links(LinkQuery(text: "sale")).map(\.code) == ["abc"])
            #expect(try await store.links(LinkQuery(text: "/u/9")).map(\.code) == ["second"])
            #expect(try await store.links(LinkQuery(limit: 1, offset: 1)).map(\.code) == ["abc"])
            #expect(try await store.links(LinkQuery(domain: "other.example")).isEmpty)
        }
    }

    @Test(arguments: Kind.available)
    func deletesCascade(_ kind: Kind) async throws {
        try await using(kind) { store in
            try await store.deleteLink(domain: "go.acme.example", code: "abc")
            #expect(try await store.link(domain: "go.acme.example", code: "abc") == nil)
            await expectError(\.isNotFound) { try await store.deleteLink(domain: "go.acme.example", code: "abc") }
            try await store.insert(Link(code: "again", domain: "go.acme.example", path: "/u/1"))
            try await store.deleteApp(id: "acme")
            #expect(try await store.app(id: "acme") == nil)
            #expect(try await store.domain(host: "go.acme.example") == nil, "the app's domains go with it")
            #expect(try await store.link(domain: "go.acme.example", code: "again") == nil, "and their links")
            await expectError(\.isNotFound) { try await store.deleteApp(id: "acme") }
            await expectError(\.isNotFound) { try await store.deleteDomain(host: "go.acme.example") }
        }
    }

    @Test(arguments: Kind.available)
    func apiKeysAreKeptByHash(_ kind: Kind) async throws {
        try await using(kind, seeded: false) { store in
            let key = APIKeyRecord(id: "k1", name: "ci", hash: String(repeating: "a", count: 64), createdAt: Date(timeIntervalSince1970: 1000))
            try await store.insert(key)
            #expect(try await store.apiKey(hash: key.hash) == key)
            #expect(try await store.apiKey(hash: "other") == nil)
            try await store.revokeAPIKey(id: "k1", at: Date(timeIntervalSince1970: 2000))
            #expect(try await store.apiKeys().first?.isActive == false)
            await expectError(\.isNotFound) { try await store.revokeAPIKey(id: "nope", at: Date()) }
            await expectError(\.isConflict) { try await store.insert(key) }
        }
    }

    @Test(arguments: Kind.available)
    func visitsAreAppended(_ kind: Kind) async throws {
        try await using(kind) { store in
            let visitor = VisitorClassifier.shared.classify(userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1")
            // More than one statement's worth (1,000 rows), so the batch spans statements in one transaction.
            let visits = (0..<2450).map { index in
                Visit(at: Date(timeIntervalSince1970: Double(1_800_000_000 + index)), domain: "go.acme.example", code: "abc", path: "/abc",
                      visitor: visitor, decision: .previewPage, referrerHost: "t.co", tags: LinkTags(campaign: "spring"), ipHash: "h\(index % 7)")
            }
            try await store.record(visits)
            try await store.record([])
            try await store.record(Array(visits.prefix(1)))
            #expect(try await store.visitCount() == 2451)
        }
    }

    static func intent(_ token: String, ip: String = "ip-1", createdAt: Date, minutes: Double = 60) -> DeferredIntent {
        DeferredIntent(token: token, appID: "acme", domain: "go.acme.example", code: "abc", path: "/abc",
                       signals: DeviceSignals(ipHash: ip, platform: .iOS, osVersion: Version(17, 4)),
                       createdAt: createdAt, expiresAt: createdAt + minutes * 60)
    }

    @Test(arguments: Kind.available)
    func deferredIntentsAreConsumedOnceAndExpire(_ kind: Kind) async throws {
        try await using(kind) { store in
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            let first = Self.intent("tokenAAAAAAAAAAAAAAAAA", createdAt: now - 60)
            try await store.insert([first, Self.intent("tokenBBBBBBBBBBBBBBBBBB", createdAt: now - 120),
                                    Self.intent("tokenCCCCCCCCCCCCCCCCCC", ip: "ip-2", createdAt: now - 60),
                                    Self.intent("tokenOLDOLDOLDOLDOLDOLD", createdAt: now - 7200)])
            try await store.insert([Self.intent("tokenAAAAAAAAAAAAAAAAA", ip: "other", createdAt: now)])  // a stored token stays as it is
            #expect(try await store.intentCandidates(appID: "acme", ipHash: "ip-1", at: now).map(\.token)
                    == ["tokenBBBBBBBBBBBBBBBBBB", "tokenAAAAAAAAAAAAAAAAA"], "live ones at this address, oldest first")
            try await store.updateSignals(token: "tokenAAAAAAAAAAAAAAAAA", screen: Screen(width: 852, height: 393), timeZone: "Europe/London",
                                          languages: ["en-GB"])
            try await store.updateSignals(token: "tokenUNKNOWNUNKNOWNUNKN", screen: nil, timeZone: "UTC", languages: [])
            #expect(try await store.consumeIntent(token: "tokenAAAAAAAAAAAAAAAAA", appID: "other-app", at: now) == nil, "another app's token")
            var expected = first
            expected.signals.merge(screen: Screen(width: 393, height: 852), timeZone: "Europe/London", languages: ["en-gb"])
            #expect(try await store.consumeIntent(token: "tokenAAAAAAAAAAAAAAAAA", appID: "acme", at: now) == expected)
            #expect(try await store.consumeIntent(token: "tokenAAAAAAAAAAAAAAAAA", appID: "acme", at: now) == nil, "consumed once")
            #expect(try await store.consumeIntent(token: "tokenOLDOLDOLDOLDOLDOLD", appID: "acme", at: now) == nil, "expired")
            #expect(try await store.intentCandidates(appID: "acme", ipHash: "ip-1", at: now).map(\.token) == ["tokenBBBBBBBBBBBBBBBBBB"])
            #expect(try await store.purgeIntents(expiredBefore: now) == 1)
            #expect(try await store.purgeIntents(expiredBefore: now) == 0)
        }
    }

    @Test(arguments: Kind.available)
    func twoInstallsRacingForOneTokenGetItOnce(_ kind: Kind) async throws {
        try await using(kind) { store in
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            try await store.insert([Self.intent("tokenRACERACERACERACERA", createdAt: now - 10)])
            let winners = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 {
                    group.addTask { try await store.consumeIntent(token: "tokenRACERACERACERACERA", appID: "acme", at: now) == nil ? 0 : 1 }
                }
                return try await group.reduce(0, +)
            }
            #expect(winners == 1)
        }
    }

    @Test(arguments: Kind.available)
    func appEventsAndSDKKeys(_ kind: Kind) async throws {
        try await using(kind) { store in
            var app = Self.app
            app.sdkKey = "fy_sdk_AbCdEfGhIjKlMnOpQrStUv"
            try await store.save(app)
            #expect(try await store.app(sdkKey: "fy_sdk_AbCdEfGhIjKlMnOpQrStUv")?.id == "acme")
            #expect(try await store.app(sdkKey: "fy_sdk_nope") == nil)
            let link = ResolvedLink(link: Link(code: "abc", domain: "go.acme.example", path: "/u/1", tags: LinkTags(campaign: "spring")),
                                    app: app, platform: .iOS, appVersion: nil)
            let events = [
                AppEvent(at: Date(timeIntervalSince1970: 1_800_000_000), appID: "acme", kind: .install, platform: .iOS, appVersion: Version(1, 2),
                         matchType: .deterministic, confidence: 1, link: link, ipHash: "h"),
                AppEvent(at: Date(timeIntervalSince1970: 1_800_000_060), appID: "acme", kind: .open, platform: .android, appVersion: nil,
                         link: nil, ipHash: "h"),
            ]
            try await store.record(events: events)
            try await store.record(events: [])
            #expect(try await store.appEvents(appID: "acme") == events)
            #expect(try await store.appEvents(appID: "other").isEmpty)
        }
    }

    @Test func sqliteSurvivesReopening() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-reopen-\(UUID().uuidString)/ferry.sqlite").path
        let first = try await SQLiteStore.open(path: path)
        try await first.save(Self.app)
        try await first.save(Domain(host: "go.acme.example", appID: "acme"))
        try await first.insert(Link(code: "abc", domain: "go.acme.example", path: "/u/1"))
        await first.close()
        let second = try await SQLiteStore.open(path: path)
        #expect(try await second.link(domain: "go.acme.example", code: "abc")?.path == "/u/1")
        await second.close()
    }

    @Test func sqliteReportsAnUnopenableDatabase() async {
        do {
            _ = try await SQLiteStore.open(path: "/proc/ferry-cannot-create/ferry.sqlite")
            Issue.record("expected a failure")
        } catch {
            #expect(error.isUnavailable)
        }
    }
}
