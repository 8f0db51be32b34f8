import FerryStore
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `ferry serve` as a process, real HTTP on 127.0.0.1, SIGTERM, and the database afterwards.
@Suite(.serialized) struct ServeLiveTests {
    /// Keeps redirects as answers instead of following them.
    final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
        func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
            completionHandler(nil)
        }
    }

    struct Server {
        let process: Process
        let port: Int
        let database: String
        let output: Pipe
    }

    static let iPhone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"
    static let android = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36"
    static let desktop = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36"

    /// `ferry serve --demo` on a fresh SQLite file, or on `database` (a PostgreSQL URL).
    func start(database given: String? = nil, environment extra: [String: String] = [:]) async throws -> Server {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-live-\(UUID().uuidString)")
        let database = given ?? folder.appendingPathComponent("ferry.sqlite").path
        let port = Int.random(in: 20_000...40_000)
        let process = Process()
        process.executableURL = FerryCommandTests.executable
        // The port and log level come from the environment, the rest from flags: both paths of the settings.
        process.arguments = ["serve", "--demo", "--database", database]
        process.environment = ProcessInfo.processInfo.environment.merging(
            ["FERRY_PORT": String(port), "FERRY_LOG_LEVEL": "warning", "FERRY_SECRET": "live-test-secret-live-test-secret"]
                .merging(extra) { $1 }) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let server = Server(process: process, port: port, database: database, output: output)
        // Ready when /healthz answers (at most 20 s).
        for _ in 0..<200 {
            if let (_, response) = try? await get(server, "/healthz", host: "127.0.0.1", userAgent: "test"), response.statusCode == 200 {
                return server
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        process.terminate()
        throw CancellationError()
    }

    let session = URLSession(configuration: .ephemeral, delegate: NoRedirects(), delegateQueue: nil)

    func get(_ server: Server, _ path: String, host: String = "go.demo.ferry.test", userAgent: String) async throws -> (Data, HTTPURLResponse) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)\(path)")!)
        request.setValue(host, forHTTPHeaderField: "Host")
        request.setValue(userAgent, forHTTPHeaderField: "User-Agent")
        request.timeoutInterval = 10
        let (data, response) = try await session.data(for: request)
        return (data, response as! HTTPURLResponse)
    }

    func stop(_ server: Server) async -> Int32 {
        kill(server.process.processIdentifier, SIGTERM)
        for _ in 0..<300 where server.process.isRunning {
            try? await Task.sleep(for: .milliseconds(100))
        }
        if server.process.isRunning {
            // It did not stop within 30 s: fail with what it said rather than hang the run.
            kill(server.process.processIdentifier, SIGKILL)
            server.process.waitUntilExit()
            try? server.output.fileHandleForWriting.close()
            let said = String(decoding: server.output.fileHandleForReading.readDataToEndOfFile().suffix(20_000), as: UTF8.self)
            Issue.record("the server did not stop within 30 s of SIGTERM; its output:\n\(said)")
            return -1
        }
        server.process.waitUntilExit()
        return server.process.terminationStatus
    }

    /// Where a live server keeps its data: SQLite always; PostgreSQL when the run has a
    /// cluster (`FERRY_TEST_POSTGRES_URL`, set by `.ci/run` through scripts/with-postgres).
    enum Database: String, CaseIterable, Sendable {
        case sqlite, postgres

        static var available: [Database] {
            allCases.filter { $0 == .sqlite || postgresURL != nil }
        }

        static let postgresURL = ProcessInfo.processInfo.environment["FERRY_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }

        /// A fresh location: `nil` for a new SQLite file, else a new database in the cluster.
        func location() async throws -> String? {
            guard self == .postgres, let url = Self.postgresURL else { return nil }
            return try await PostgresStore.createDatabase(
                named: "ferry_live_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased(), besides: url)
        }
    }

    @Test(arguments: Database.available)
    func servesLinksAndWritesEveryVisitBeforeExiting(_ database: Database) async throws {
        let server = try await start(database: try await database.location())
        var linkRequests = 0
        let (page, iPhone) = try await get(server, "/hello", userAgent: Self.iPhone)
        linkRequests += 1
        #expect(iPhone.statusCode == 200)
        #expect(String(decoding: page, as: UTF8.self).contains("Ada on Ferry Demo"))
        let (_, desktop) = try await get(server, "/hello", userAgent: Self.desktop)
        linkRequests += 1
        #expect(desktop.statusCode == 302)
        #expect(desktop.value(forHTTPHeaderField: "Location") == "https://ferry.example/users/42")
        let (_, android) = try await get(server, "/sale", userAgent: Self.android)
        linkRequests += 1
        #expect(android.value(forHTTPHeaderField: "Location")?.hasPrefix("intent://go.demo.ferry.test/sale#Intent;") == true)
        let (aasa, wellKnown) = try await get(server, "/.well-known/apple-app-site-association", userAgent: "AASA-Bot/1.0.0")
        #expect(wellKnown.statusCode == 200 && wellKnown.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(String(decoding: aasa, as: UTF8.self).contains("ABCDE12345.com.example.ferrydemo"))
        #expect(try await get(server, "/nope", userAgent: Self.desktop).1.statusCode == 404)
        #expect(try await get(server, "/hello", host: "unknown.example", userAgent: Self.desktop).1.statusCode == 404)

        // A burst right before the stop: every one answered must be written.
        let answered = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<200 {
                group.addTask {
                    let (_, response) = try await get(server, index % 2 == 0 ? "/hello" : "/u/\(index)", userAgent: index % 3 == 0 ? Self.android : Self.iPhone)
                    return response.statusCode < 400 ? 1 : 0
                }
            }
            return try await group.reduce(0, +)
        }
        linkRequests += answered
        #expect(answered == 200)

        #expect(await stop(server) == 0, "a graceful stop exits 0")
        let store = try await Stores.open(server.database)
        let visits = try await store.visitCount()
        await store.close()
        #expect(visits == linkRequests, "every answered link request is a visit in the database")
    }
}
