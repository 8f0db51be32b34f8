import FerryKit
import FerryStore
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A cluster of this test's own and the script that stops and starts it (`scripts/with-postgres`
/// makes both; the other tests use another cluster, which stays up).
let outageURL = ProcessInfo.processInfo.environment["FERRY_TEST_POSTGRES_OUTAGE_URL"].flatMap { $0.isEmpty ? nil : $0 }
let postgresControl = ProcessInfo.processInfo.environment["FERRY_TEST_POSTGRES_OUTAGE_CONTROL"]

/// PostgreSQL stopped under load and started again: cached links keep being answered, the
/// node says it is not ready, visits wait in the queue and are all written once it is back.
@Suite(.serialized, .enabled(if: outageURL != nil && postgresControl != nil,
                             "needs a cluster this run controls: .ci/run (scripts/with-postgres) provides one"))
struct OutageTests {
    let live = ServeLiveTests()

    /// Stops or starts the cluster, waiting without blocking a thread (the server under test
    /// and the load need them).
    /// (The start is judged by the server becoming ready again: the postmaster outlives the
    /// control script, and Foundation does not always see the script end.)
    func postgres(_ action: String) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: postgresControl!)
        process.arguments = [action]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        guard action == "stop" else { return }
        for _ in 0..<600 where process.isRunning { try await Task.sleep(for: .milliseconds(50)) }
        #expect(!process.isRunning && process.terminationStatus == 0, "postgres stop")
    }

    func status(_ server: ServeLiveTests.Server, _ path: String, host: String = "go.demo.ferry.test") async -> Int {
        (try? await live.get(server, path, host: host, userAgent: ServeLiveTests.desktop).1.statusCode) ?? 0
    }

    @Test func cachedLinksAreServedWhilePostgreSQLIsAwayAndNoVisitIsLost() async throws {
        let database = try await PostgresStore.createDatabase(named: "ferry_outage", besides: try #require(outageURL))
        // Cached entries expire after a second, so the outage outlasts them; a visit write that
        // the outage left hanging is given up on after 30 s (4 × the statement timeout, at least 30 s).
        let server = try await live.start(database: database, environment: ["FERRY_CACHE_SECONDS": "1", "FERRY_DATABASE_TIMEOUT": "5"])
        let warmed = [await status(server, "/hello"), await status(server, "/sale")]
        #expect(warmed == [302, 302])

        let clock = ContinuousClock()
        let loadEnds = clock.now + .seconds(6)
        let load = Task {
            var statuses: [Int: Int] = [:]
            while clock.now < loadEnds {
                async let one = status(server, "/hello")
                async let two = status(server, "/sale")
                for code in await [one, two] { statuses[code, default: 0] += 1 }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return statuses
        }
        try await Task.sleep(for: .milliseconds(500))
        try await postgres("stop")
        try await Task.sleep(for: .seconds(2))
        #expect(await status(server, "/readyz", host: "127.0.0.1") == 503, "not ready while the database is away")
        try await postgres("start")
        var ready = false
        for _ in 0..<40 where !ready {
            ready = await status(server, "/readyz", host: "127.0.0.1") == 200
            if !ready { try await Task.sleep(for: .milliseconds(250)) }
        }
        #expect(ready, "ready again once the database is back")
        let statuses = await load.value
        #expect(statuses.keys.sorted() == [302], "every cached link answered throughout: \(statuses)")

        let (metrics, _) = try await live.get(server, "/metrics", host: "127.0.0.1", userAgent: "test")
        let text = String(decoding: metrics, as: UTF8.self)
        let answered = text.split(separator: "\n").filter { $0.hasPrefix("ferry_decisions_total") }
            .compactMap { Int($0.split(separator: " ").last ?? "") }.reduce(0, +)
        #expect(text.contains("ferry_visits_dropped_total 0\n"))
        #expect(await live.stop(server) == 0)
        let store = try await Stores.open(database)
        let visits = try await store.visitCount()
        let stats = try await store.stats(.app("demo", domains: ["go.demo.ferry.test"]),
                                          try StatsPeriod(from: Date() - 3600, to: Date() + 3600, bucket: .hour))
        await store.close()
        #expect(answered > 100)
        #expect(visits == answered, "every answered click written once the database was back")
        #expect(stats.totals.humanVisits + stats.totals.botVisits == answered, "and counted")
    }
}
