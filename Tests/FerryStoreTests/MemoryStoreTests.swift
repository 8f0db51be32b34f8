import Foundation
import Testing
import FerryKit
@testable import FerryStore

/// The store contract, run against the in-memory store. Later stores (SQLite, PostgreSQL) run
/// the same cases.
@Suite struct MemoryStoreTests {
    static let app = App(
        id: "acme", name: "Acme",
        ios: IOSApp(teamID: "ABCDE12345", bundleID: "com.acme.app", appStoreID: "123"),
        web: WebSettings(fallbackURL: URL(string: "https://acme.example")!),
        routes: [Route(pattern: "/u/{id}")])

    func seeded() async throws -> MemoryStore {
        let store = MemoryStore()
        try await store.save(Self.app)
        try await store.save(Domain(host: "go.acme.example", appID: "acme", alternateHost: "open.acme.example"))
        try await store.insert(Link(code: "abc", domain: "go.acme.example", path: "/u/1"))
        return store
    }

    @Test func findsDomainsByEitherHost() async throws {
        let store = try await seeded()
        #expect(await store.domain(host: "GO.acme.example")?.host == "go.acme.example")
        #expect(await store.domain(host: "open.acme.example")?.host == "go.acme.example")
        #expect(await store.domain(host: "other.example") == nil)
    }

    @Test func codesAreUniquePerDomain() async throws {
        let store = try await seeded()
        await #expect(throws: StoreError.conflict("the code 'abc' is already taken on go.acme.example")) {
            try await store.insert(Link(code: "abc", domain: "go.acme.example", path: "/u/2"))
        }
        #expect(await store.link(domain: "go.acme.example", code: "abc")?.path == "/u/1", "the first link is untouched")
    }

    @Test func invalidValuesAreRefusedAndNothingIsWritten() async throws {
        let store = try await seeded()
        do {
            try await store.insert(Link(code: "bad", domain: "go.acme.example", path: "/nowhere"))
            Issue.record("expected a refusal")
        } catch {
            #expect(error.isInvalid && error.message.contains("path"))
        }
        #expect(await store.link(domain: "go.acme.example", code: "bad") == nil)
        do {
            try await store.save(Domain(host: "open.acme.example", appID: "acme"))
            Issue.record("expected a conflict")
        } catch {
            #expect(error.isConflict)
        }
        do {
            try await store.save(Domain(host: "x.example", appID: "missing"))
            Issue.record("expected not found")
        } catch {
            #expect(error.isNotFound)
        }
    }
}
