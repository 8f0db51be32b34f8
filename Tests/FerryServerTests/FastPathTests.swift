import FerryKit
import FerryStore
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import FerryServer
#if canImport(Glibc)
import Glibc
#endif

/// The event-loop fast path (``LinkFastPath``) over real TCP: warm links answer exactly as the
/// router does, responses keep the order of pipelined requests, `Connection: close` is honoured
/// and changes through the API reach the next click.
@Suite struct FastPathTests {
    typealias F = ServerFixtures

    func withLiveServer(_ body: @Sendable (FerryServices<MemoryStore>, Int) async throws -> Void) async throws {
        let services = try await F.services()
        try await buildApplication(services).test(.live) { client in
            try await body(services, try #require(client.port))
        }
    }

    /// One request on a connection of its own, so the link is in the cache afterwards.
    static func warmUp(_ path: String, port: Int) async throws {
        let connection = try RawConnection(port: port)
        connection.send(request(path))
        _ = try await connection.readResponse()
    }

    static func request(_ path: String, userAgent: String = F.desktop, host: String = "go.acme.example", method: String = "GET",
                        extra: String = "", body: String = "") -> String {
        "\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\nUser-Agent: \(userAgent)\r\n\(extra)"
            + (body.isEmpty ? "" : "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n") + "\r\n" + body
    }

    /// Cold (through Hummingbird) and then warm (on the event loop): the same answer.
    @Test func warmLinksAnswerExactlyAsColdOnes() async throws {
        try await withLiveServer { services, port in
            let connection = try RawConnection(port: port)
            let cases: [(path: String, userAgent: String, method: String)] = [
                ("/spring", F.desktop, "GET"), ("/spring", F.iPhone, "GET"), ("/spring", F.android, "GET"),
                ("/spring", F.slackbot, "GET"), ("/spring", F.iPhone, "HEAD"), ("/u/42?ref=mail", F.desktop, "GET"),
                ("/off", F.iPhone, "GET"), ("/old", F.desktop, "GET"), ("/missing", F.iPhone, "GET"),
            ]
            for item in cases {
                // Forget what the catalog holds, so the first request is a cold one.
                services.catalog.invalidateDomains()
                services.catalog.invalidateLinks(domain: "go.acme.example")
                let fastBefore = services.metrics.fastPathCount
                connection.send(Self.request(item.path, userAgent: item.userAgent, method: item.method))
                let cold = try await connection.readResponse(head: item.method == "HEAD")
                connection.send(Self.request(item.path, userAgent: item.userAgent, method: item.method))
                let warm = try await connection.readResponse(head: item.method == "HEAD")
                #expect(services.metrics.fastPathCount == fastBefore + 1, "\(item.path): the second request took the fast path")
                #expect(warm.status == cold.status, "\(item.path)")
                #expect(warm.comparableHeaders == cold.comparableHeaders, "\(item.path)")
                #expect(warm.comparableBody == cold.comparableBody, "\(item.path)")
                #expect(warm.header("Server") == "Ferry" && warm.header("Date")?.hasSuffix(" GMT") == true)
            }
            #expect(services.recorder.counts.queued == 2 * 8, "every link request is a visit, the unknown code is not")
        }
    }

    /// First clicks arriving together on several connections (and event loops) fetch the app
    /// at once; the links must still be compiled against one generation of it, or no click on
    /// some event loop would ever find its link warm.
    @Test func afterABurstOfFirstClicksEveryConnectionIsWarm() async throws {
        try await withLiveServer { services, port in
            let connections = try (0..<8).map { _ in try RawConnection(port: port) }
            for connection in connections { connection.send(Self.request("/spring")) }
            for connection in connections { #expect(try await connection.readResponse().status == 302) }
            let before = services.metrics.fastPathCount
            for connection in connections { connection.send(Self.request("/spring")) }
            for connection in connections { #expect(try await connection.readResponse().status == 302) }
            #expect(services.metrics.fastPathCount == before + 8)
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        try await withLiveServer { _, port in
            try await Self.warmUp("/spring", port: port)
            // One write: warm link, router, warm link, API without a key, route link, cold code.
            let connection = try RawConnection(port: port)
            connection.send(Self.request("/spring") + Self.request("/healthz") + Self.request("/spring", userAgent: F.android)
                            + Self.request("/api/v1/apps") + Self.request("/u/7") + Self.request("/xss"))
            var answers: [RawConnection.Response] = []
            for _ in 0..<6 { answers.append(try await connection.readResponse()) }
            #expect(answers.map(\.status) == [302, 200, 302, 401, 302, 302])
            #expect(answers[0].header("Location") == "https://acme.example/users/42")
            #expect(answers[1].body == "ok\n")
            #expect(answers[2].header("Location")?.hasPrefix("intent://go.acme.example/spring#Intent;") == true)
            #expect(answers[4].header("Location") == "https://acme.example/users/7")
            #expect(answers[5].header("Location") == "https://acme.example/users/3")
        }
    }

    @Test func connectionCloseIsHonouredOnWarmLinks() async throws {
        try await withLiveServer { _, port in
            try await Self.warmUp("/spring", port: port)
            let connection = try RawConnection(port: port)
            connection.send(Self.request("/spring", extra: "Connection: close\r\n"))
            #expect(try await connection.readResponse().status == 302)
            #expect(await connection.isClosedByServer())
        }
    }

    @Test func aLinkDisabledThroughTheAPIIsGoneOnTheNextClick() async throws {
        try await withLiveServer { services, port in
            let (_, key) = try await APIKeys.create(name: "test", in: services.store)
            let connection = try RawConnection(port: port)
            for _ in 0..<2 {
                connection.send(Self.request("/spring"))
                #expect(try await connection.readResponse().status == 302)
            }
            let disabled = #"{"code":"spring","domain":"go.acme.example","path":"/u/42","disabled":true}"#
            connection.send(Self.request("/api/v1/links/go.acme.example/spring", host: "127.0.0.1", method: "PUT",
                                         extra: "Authorization: Bearer \(key)\r\n", body: disabled))
            #expect(try await connection.readResponse().status == 200)
            connection.send(Self.request("/spring"))
            #expect(try await connection.readResponse().status == 410)
            connection.send(Self.request("/spring"))
            #expect(try await connection.readResponse().status == 410, "and stays gone on the fast path")
        }
    }
}

/// One TCP connection with blocking reads and writes, so a test decides exactly which bytes go
/// on the wire (several requests in one write, `Connection: close`). Reads block a thread of
/// their own, never one of the concurrency pool that the server's handlers need. Used by one
/// test at a time.
final class RawConnection: @unchecked Sendable {
    struct Response {
        let status: Int
        let headers: [(name: String, value: String)]
        let body: String

        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        /// Headers that must not differ between two answers to the same request.
        var comparableHeaders: [String] {
            headers.filter { $0.name.lowercased() != "date" }.map { "\($0.name.lowercased()): \(Self.masked($0.value))" }.sorted()
        }

        var comparableBody: String { Self.masked(body) }

        /// Deferred-intent tokens are new on every request.
        static func masked(_ text: String) -> String {
            text.replacingOccurrences(of: #"ferry_token(=|%3D|%253D)[A-Za-z0-9_-]{22}"#, with: "ferry_token=…", options: .regularExpression)
        }
    }

    private let socket: Int32
    private var buffer: [UInt8] = []

    init(port: Int) throws {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo("localhost", String(port), &hints, &list) == 0 else { throw Failure("cannot resolve localhost") }
        defer { freeaddrinfo(list) }
        var candidate = list
        while let info = candidate {
            let fd = Glibc.socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            if fd >= 0, connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 {
                var timeout = timeval(tv_sec: 10, tv_usec: 0)
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                socket = fd
                return
            }
            if fd >= 0 { close(fd) }
            candidate = info.pointee.ai_next
        }
        throw Failure("cannot connect to localhost:\(port)")
    }

    deinit { close(socket) }

    func send(_ text: String) {
        var bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeMutableBytes { Glibc.send(socket, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return }
            sent += count
        }
    }

    /// The next response; `head` for the answer to a HEAD request (its Content-Length has no body).
    func readResponse(head: Bool = false) async throws -> Response {
        try await Self.onOwnThread { try self.readResponseBlocking(head: head) }
    }

    /// True when the server closed the connection (a read returns end of file).
    func isClosedByServer() async -> Bool {
        (try? await Self.onOwnThread { try self.fill() }) == false
    }

    private static func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }

    private func readResponseBlocking(head: Bool) throws -> Response {
        while true {
            if let end = headEnd() {
                let text = String(decoding: buffer[..<end], as: UTF8.self)
                var lines = text.components(separatedBy: "\r\n")
                let statusLine = lines.removeFirst().split(separator: " ")
                guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw Failure("bad status line in \(text)") }
                let headers = lines.filter { !$0.isEmpty }.map { line -> (String, String) in
                    let parts = line.split(separator: ":", maxSplits: 1)
                    return (String(parts[0]), parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : "")
                }
                let length = head ? 0 : Int(headers.first { $0.0.lowercased() == "content-length" }?.1 ?? "0") ?? 0
                while buffer.count < end + 4 + length {
                    guard try fill() else { throw Failure("connection closed inside a body") }
                }
                let body = String(decoding: buffer[(end + 4)..<(end + 4 + length)], as: UTF8.self)
                buffer.removeFirst(end + 4 + length)
                return Response(status: status, headers: headers, body: body)
            }
            guard try fill() else { throw Failure("connection closed before a response") }
        }
    }

    private func headEnd() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for index in 0...(buffer.count - 4) where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
            return index
        }
        return nil
    }

    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        if count < 0 { throw Failure("read failed or timed out (errno \(errno))") }
        buffer += chunk[..<count]
        return count > 0
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
