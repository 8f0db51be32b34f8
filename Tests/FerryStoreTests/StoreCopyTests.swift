import Foundation
import Testing
import FerryKit
@testable import FerryStore

/// `ferry store copy`: a deployment moves between databases without losing or doubling a row.
@Suite struct StoreCopyTests {
    enum Pair: String, CaseIterable, Sendable {
        case sqliteToSQLite = "sqlite → sqlite"
        case sqliteToPostgres = "sqlite → postgres"
        case postgresToSQLite = "postgres → sqlite"

        static var available: [Pair] {
            allCases.filter { $0 == .sqliteToSQLite || StoreContractTests.postgresURL != nil }
        }

        func stores() async throws -> (any CopyableStore, any CopyableStore) {
            func sqlite() async throws -> SQLiteStore {
                try await SQLiteStore.open(path: FileManager.default.temporaryDirectory
                    .appendingPathComponent("ferry-copy-\(UUID().uuidString)/ferry.sqlite").path)
            }
            func postgres() async throws -> PostgresStore {
                try await StoreContractTests.makeStore(.postgres) as! PostgresStore
            }
            switch self {
            case .sqliteToSQLite: return (try await sqlite(), try await sqlite())
            case .sqliteToPostgres: return (try await sqlite(), try await postgres())
            case .postgresToSQLite: return (try await postgres(), try await sqlite())
            }
        }
    }

    static let now = Date(timeIntervalSince1970: StoreContractTests.day2 + 3600)

    /// A deployment with a bit of everything; raw visits span more than one page.
    static func seed(_ store: any LinkStore) async throws {
        var app = StoreContractTests.app
        app.sdkKey = "fy_sdk_AbCdEfGhIjKlMnOpQrStUv"
        try await store.save(app)
        try await store.save(Domain(host: "go.acme.example", appID: "acme", alternateHost: "open.acme.example"))
        try await store.insert([Link(code: "abc", domain: "go.acme.example", path: "/u/1", tags: LinkTags(campaign: "spring")),
                                Link(code: "xyz", domain: "go.acme.example", path: "/u/2", preview: PreviewMetadata(title: "Zed's \"page\""),
                                     tags: LinkTags(campaign: "summer", utmTerm: "t", utmContent: "c"))])
        try await store.insert(APIKeyRecord(id: "k1", name: "ci", hash: String(repeating: "a", count: 64), createdAt: now - 100))
        try await store.insert(APIKeyRecord(id: "k2", name: "old", hash: String(repeating: "b", count: 64), createdAt: now - 200, revokedAt: now - 50))
        try await store.insert([
            StoreContractTests.intent("tokenLIVELIVELIVELIVELI", createdAt: now - 60),
            StoreContractTests.intent("tokenUSEDUSEDUSEDUSEDUS", createdAt: now - 60),
            StoreContractTests.intent("tokenGONEGONEGONEGONEGO", createdAt: now - 7200),
        ])
        _ = try await store.consumeIntent(token: "tokenUSEDUSEDUSEDUSEDUS", appID: "acme", at: now - 30)
        let many = (0..<2500).map { index in
            StoreContractTests.visit(StoreContractTests.day1 + Double(index), StoreContractTests.iPhone, decision: .appStore, country: "FR",
                                     ip: "ip\(index % 40)")
        }
        try await store.record(many + StoreContractTests.firstBatch + StoreContractTests.secondBatch)
        try await StoreContractTests.recordEvents(store)
    }

    static func period() throws -> StatsPeriod { try StoreContractTests.twoDays() }

    @Test(arguments: Pair.available)
    func aCopyHasEverythingAndASecondCopyDoublesNothing(_ pair: Pair) async throws {
        let (source, target) = try await pair.stores()
        defer { Task { await source.close(); await target.close() } }
        try await Self.seed(source)
        // Raw visits pruned at the source are gone, but their numbers must arrive.
        #expect(try await source.pruneVisits(before: Date(timeIntervalSince1970: StoreContractTests.day1 + 100)) == 100)
        let sourceStats = try await source.stats(.app("acme", domains: ["go.acme.example"]), try Self.period())

        let reports = try await StoreCopy.run(from: source, to: target, now: Self.now)
        #expect(reports.first { $0.table == "visits" }?.rows == 2410)
        #expect(reports.first { $0.table == "deferred_intents" }?.rows == 2, "the expired intent stays behind")

        try await Self.expectSame(source, target)
        #expect(try await target.stats(.app("acme", domains: ["go.acme.example"]), try Self.period()) == sourceStats)
        #expect(try await target.consumeIntent(token: "tokenLIVELIVELIVELIVELI", appID: "acme", at: Self.now) != nil, "a pending intent still matches")
        #expect(try await target.consumeIntent(token: "tokenUSEDUSEDUSEDUSEDUS", appID: "acme", at: Self.now) == nil, "a consumed one stays consumed")

        // The old server keeps taking visits until it stops; the second copy brings only those.
        try await source.record([StoreContractTests.visit(StoreContractTests.day2 + 500, StoreContractTests.pixel, decision: .playStore, ip: "late")])
        let again = try await StoreCopy.run(from: source, to: target, now: Self.now)
        #expect(again.first { $0.table == "visits" }?.rows == 1)
        #expect(try await target.visitCount() == source.visitCount())
        let link = StatsScope.link(domain: "go.acme.example", code: "abc", appID: "acme")
        #expect(try await target.stats(link, try Self.period()) == source.stats(link, try Self.period()))
        #expect(try await StoreCopy.run(from: source, to: target, now: Self.now).first { $0.table == "visits" }?.rows == 0)
        #expect(try await target.visitCount() == 2411)
        #expect(try await target.appEvents(appID: "acme").count == 4, "events not doubled")
    }

    static func expectSame(_ source: any LinkStore, _ target: any LinkStore) async throws {
        #expect(try await target.apps() == source.apps())
        #expect(try await target.app(sdkKey: "fy_sdk_AbCdEfGhIjKlMnOpQrStUv")?.id == "acme")
        #expect(try await target.domains(appID: nil) == source.domains(appID: nil))
        #expect(try await target.links(LinkQuery(limit: 100)) == source.links(LinkQuery(limit: 100)), "same links in the same order")
        #expect(try await target.apiKeys() == source.apiKeys())
        #expect(try await target.visitCount() == source.visitCount())
        #expect(try await target.appEvents(appID: "acme") == source.appEvents(appID: "acme"))
    }

    @Test func aDatabaseIsNotCopiedOntoItself() async throws {
        let store = try await SQLiteStore.open(path: ":memory:")
        await #expect(throws: StoreError.self) { try await StoreCopy.run(from: store, to: store) }
        await store.close()
    }
}
