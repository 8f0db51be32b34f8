import Ferry
import FerryKit
import FerryStore
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Two `ferry serve` processes on two ports sharing one PostgreSQL database, as behind a load
/// balancer: a change made through one is served by the other within a second, a click on one
/// is matched by an install reported to the other exactly once, and every visit is counted once.
@Suite(.serialized, .enabled(if: ServeLiveTests.Database.postgresURL != nil, "needs FERRY_TEST_POSTGRES_URL: .ci/run starts a cluster"))
struct TwoNodeTests {
    let live = ServeLiveTests()

    func ferry(_ arguments: String...) throws -> String {
        let process = Process()
        process.executableURL = FerryCommandTests.executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    func send(_ server: ServeLiveTests.Server, _ method: String, _ path: String, key: String, json: String) async throws -> Int {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)\(path)")!)
        request.httpMethod = method
        request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(json.utf8)
        let (_, response) = try await live.session.data(for: request)
        return (response as! HTTPURLResponse).statusCode
    }

    func answered(_ server: ServeLiveTests.Server) async throws -> Int {
        let (data, _) = try await live.get(server, "/metrics", host: "127.0.0.1", userAgent: "test")
        return String(decoding: data, as: UTF8.self).split(separator: "\n")
            .filter { $0.hasPrefix("ferry_decisions_total") }.compactMap { Int($0.split(separator: " ").last ?? "") }.reduce(0, +)
    }

    @Test func twoNodesShareChangesIntentsAndVisits() async throws {
        let database = try #require(try await ServeLiveTests.Database.postgres.location())
        let a = try await live.start(database: database)
        let b = try await live.start(database: database)
        let key = try #require(try ferry("apikey", "create", "--name", "two-nodes", "--database", database).firstMatch(of: /fy_[A-Za-z0-9_-]+/)?.0)

        // A link made through A is served by B.
        let link = #"{"code":"two","domain":"go.demo.ferry.test","path":"/u/9"}"#
        #expect(try await send(a, "POST", "/api/v1/links", key: String(key), json: link) == 201)
        for _ in 0..<2 {  // the second answer comes from B's cache
            let (_, served) = try await live.get(b, "/two", userAgent: ServeLiveTests.desktop)
            #expect(served.statusCode == 302 && served.value(forHTTPHeaderField: "Location") == "https://ferry.example/users/9")
        }
        // Disabled through A: B, which has it cached, answers 410 within a second.
        let disabled = #"{"code":"two","domain":"go.demo.ferry.test","path":"/u/9","disabled":true}"#
        #expect(try await send(a, "PUT", "/api/v1/links/go.demo.ferry.test/two", key: String(key), json: disabled) == 200)
        let clock = ContinuousClock()
        let changedAt = clock.now
        var status = 0
        while clock.now - changedAt < .seconds(1) {
            status = try await live.get(b, "/two", userAgent: ServeLiveTests.desktop).1.statusCode
            if status == 410 { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(status == 410, "B saw the change within a second")

        // A click on A; two installs with its token reported at once, one to each node.
        let (page, _) = try await live.get(a, "/hello", userAgent: ServeLiveTests.iPhone)
        let token = try #require(String(decoding: page, as: UTF8.self).firstMatch(of: /ferry_token=([A-Za-z0-9_-]{22})/)?.1)
        let demo = try JSONDecoder().decode(App.self, from: Data(try ferry("app", "show", "demo", "--json", "--database", database).utf8))
        func install(on server: ServeLiveTests.Server) async throws -> DeferredOutcome? {
            let client = FerryClient(
                configuration: FerryConfiguration(serverURL: URL(string: "http://127.0.0.1:\(server.port)")!, sdkKey: demo.sdkKey ?? "",
                                                  linkDomains: ["go.demo.ferry.test"], routes: demo.routes, appVersion: Version(1), platform: .iOS),
                pasteboard: SystemPasteboard(), device: FixedDeviceFacts(), memory: InMemoryLaunchMemory())
            return try await client.deferredDeepLink(pastedToken: String(token))
        }
        async let onA = install(on: a)
        async let onB = install(on: b)
        let outcomes = try await [onA, onB]
        #expect(outcomes.compactMap { $0 }.count == 1, "matched exactly once across the nodes")
        #expect(outcomes.compactMap { $0 }.first?.link.path == "/u/42")

        // Every visit counted once: what A and B answered is what the database holds.
        let answeredOnA = try await answered(a), answeredOnB = try await answered(b)
        #expect(await live.stop(a) == 0)
        #expect(await live.stop(b) == 0)
        let store = try await Stores.open(database)
        let visits = try await store.visitCount()
        let today = try StatsPeriod(from: Date() - 3600, to: Date() + 3600, bucket: .hour)
        let stats = try await store.stats(.app("demo", domains: ["go.demo.ferry.test"]), today)
        await store.close()
        #expect(answeredOnA > 0 && answeredOnB > 0)
        #expect(visits == answeredOnA + answeredOnB)
        #expect(stats.totals.humanVisits + stats.totals.botVisits == visits, "the counters of both nodes add up to the raw visits")
        #expect(stats.totals.installs["deterministic"] == 1)
    }
}
