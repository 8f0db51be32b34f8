import Foundation
import Testing
@testable import Ferry
import FerryKit
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The client's own behaviour with doubles for the network, pasteboard and memory. (Against a
/// real server: `Tests/FerryCLITests/DeferredLinkLiveTests.swift`.)
@Suite struct FerryClientTests {
    /// Answers each request with what `answer` returns, and keeps the requests.
    final class FakeServer: HTTPTransport, @unchecked Sendable {
        private let lock = NSLock()
        private var seen: [URLRequest] = []
        let answer: @Sendable (URLRequest) throws -> (Int, String)

        init(_ answer: @escaping @Sendable (URLRequest) throws -> (Int, String)) { self.answer = answer }

        func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
            lock.withLock { seen.append(request) }
            let (status, body) = try answer(request)
            return (Data(body.utf8), HTTPURLResponse(url: request.url!, statusCode: status, httpVersion: "HTTP/1.1", headerFields: nil)!)
        }

        var requests: [URLRequest] { lock.withLock { seen } }

        func body<T: Decodable>(_ index: Int, as type: T.Type) throws -> T {
            try JSONDecoder().decode(type, from: try #require(requests[index].httpBody))
        }

        static let down = FakeServer { _ in throw URLError(.cannotConnectToHost) }
    }

    final class FakePasteboard: Pasteboard, @unchecked Sendable {
        private let lock = NSLock()
        private var text: String?
        private var readCount = 0
        init(_ text: String?) { self.text = text }
        func probablyHoldsURL() async -> Bool { lock.withLock { text?.hasPrefix("https://") ?? false } }
        func string() async -> String? { lock.withLock { readCount += 1; return text } }
        func clear() async { lock.withLock { text = nil } }
        var reads: Int { lock.withLock { readCount } }
        var contents: String? { lock.withLock { text } }
    }

    static let device = FixedDeviceFacts(osVersion: Version(17, 4), model: "iPhone15,2", screen: Screen(width: 393, height: 852),
                                         languages: ["en-GB"], timeZone: "Europe/London")

    static let token = "AbCdEfGhIjKlMnOpQrStUv"
    static let resolved = #"{"url":"https://go.acme.example/spring","domain":"go.acme.example","code":"spring","path":"/u/42","route":"/u/{userId}","parameters":{"userId":"42"},"tags":{"campaign":"spring"},"requiresUpdate":false}"#

    func client(_ server: FakeServer, pasteboard: FakePasteboard = FakePasteboard(nil), memory: InMemoryLaunchMemory = InMemoryLaunchMemory(),
                appVersion: Version = Version(3, 4), platform: Platform = .iOS) -> FerryClient {
        FerryClient(
            configuration: FerryConfiguration(
                serverURL: URL(string: "https://go.acme.example")!, sdkKey: "fy_sdk_TestKeyTestKeyTestKey",
                linkDomains: ["go.acme.example", "open.acme.example"], customSchemes: ["acme"],
                routes: [Route(pattern: "/u/{userId}", minimumVersion: MinimumAppVersions(ios: Version(3, 2)))],
                appVersion: appVersion, platform: platform),
            transport: server, pasteboard: pasteboard, device: Self.device, memory: memory)
    }

    @Test func routeURLsOpenFromTheRouteTableEvenWithTheServerDown() async {
        let ferry = client(.down)
        let opened = Box<Int?>(nil)
        ferry.register("/u/{userId}") { link in opened.value = link["userId", as: Int.self] }
        let outcome = await ferry.handle(URL(string: "https://open.acme.example/u/42?ref=mail&tab=posts")!)
        guard case .opened(let link) = outcome else { Issue.record("not opened: \(outcome)"); return }
        #expect(link.route == "/u/{userId}" && link.parameters == ["userId": "42", "tab": "posts"] && link.tags.ref == "mail")
        #expect(opened.value == 42)
        guard case .opened(let scheme) = await ferry.handle(URL(string: "acme://u/7")!) else { Issue.record("custom scheme"); return }
        #expect(scheme.parameters["userId"] == "7")
    }

    @Test func anAppTooOldForTheRouteSendsThePersonToTheWebPage() async {
        let outcome = await client(.down, appVersion: Version(3, 1)).handle(URL(string: "https://go.acme.example/u/42")!)
        #expect(outcome == .openInBrowser(URL(string: "https://go.acme.example/_ferry/web?path=%2Fu%2F42")!))
    }

    @Test func shortLinksAreResolvedByTheServerWhichRecordsTheOpen() async throws {
        let server = FakeServer { request in
            #expect(request.url?.path == "/sdk/v1/open" && request.httpMethod == "POST")
            #expect(request.value(forHTTPHeaderField: "X-Ferry-SDK-Key") == "fy_sdk_TestKeyTestKeyTestKey")
            return (200, Self.resolved)
        }
        let outcome = await client(server).handle(URL(string: "https://go.acme.example/spring")!)
        guard case .opened(let link) = outcome else { Issue.record("not opened: \(outcome)"); return }
        #expect(link.path == "/u/42" && link.resolved.code == "spring" && link.tags.campaign == "spring")
        let report = try server.body(0, as: OpenReport.self)
        #expect(report == OpenReport(url: "https://go.acme.example/spring", platform: .iOS, appVersion: Version(3, 4)))
    }

    @Test func failuresArePublicErrorsNotCrashes() async {
        #expect(await client(.down).handle(URL(string: "https://go.acme.example/spring")!)
                == .failed(.unreachable(String(describing: URLError(.cannotConnectToHost)))))
        let refusing = FakeServer { _ in (404, #"{"error":{"code":"not_found","message":"no link"}}"#) }
        #expect(await client(refusing).handle(URL(string: "https://go.acme.example/gone")!)
                == .failed(.server(status: 404, code: "not_found", message: "no link")))
        let garbled = FakeServer { _ in (200, "<html>") }
        guard case .failed(.invalidResponse) = await client(garbled).handle(URL(string: "https://go.acme.example/x")!) else {
            Issue.record("an unreadable answer is an error")
            return
        }
    }

    @Test func otherURLsAreNotFerryLinksAndCostNoRequest() async {
        let server = FakeServer { _ in (200, Self.resolved) }
        let ferry = client(server)
        for text in ["https://acme.example/u/42", "https://evil.example/spring", "other://u/42", "mailto:a@b.example"] {
            #expect(await ferry.handle(URL(string: text)!) == .notFerryLink, "\(text)")
        }
        #expect(server.requests.isEmpty)
    }

    @Test func theFirstLaunchReadsOnlyAProbableFerryURLAndClearsItAfterUse() async throws {
        let server = FakeServer { _ in (200, #"{"matchType":"deterministic","confidence":1,"link":\#(Self.resolved)}"#) }
        let pasteboard = FakePasteboard("https://go.acme.example/spring?ferry_token=\(Self.token)")
        let memory = InMemoryLaunchMemory()
        let ferry = client(server, pasteboard: pasteboard, memory: memory)
        let outcome = try #require(await ferry.checkDeferredDeepLink())
        #expect(outcome.matchType == .deterministic && outcome.link.path == "/u/42")
        let report = try server.body(0, as: InstallReport.self)
        #expect(report.token == Self.token && report.platform == .iOS && report.appVersion == Version(3, 4))
        #expect(report.deviceModel == "iPhone15,2" && report.screen == Screen(width: 393, height: 852) && report.timeZone == "Europe/London")
        #expect(pasteboard.contents == nil && memory.deferredLinkChecked)
        #expect(await ferry.checkDeferredDeepLink() == nil, "once")
        #expect(server.requests.count == 1)
    }

    @Test func aPasteboardWithoutAFerryURLIsLeftAlone() async throws {
        let server = FakeServer { _ in (200, #"{"matchType":"none","confidence":0}"#) }
        let plain = FakePasteboard("a shopping list")
        #expect(await client(server, pasteboard: plain).checkDeferredDeepLink() == nil)
        #expect(plain.reads == 0, "not probably a URL: not read, so no paste prompt")
        let foreign = FakePasteboard("https://evil.example/?ferry_token=\(Self.token)")
        #expect(await client(server, pasteboard: foreign).checkDeferredDeepLink() == nil)
        #expect(foreign.contents != nil, "another site's URL is not taken, nor cleared")
        #expect(try server.body(1, as: InstallReport.self).token == nil)
    }

    @Test func withTheServerDownTheNextLaunchAsksAgain() async throws {
        let memory = InMemoryLaunchMemory()
        let pasteboard = FakePasteboard("https://go.acme.example/spring?ferry_token=\(Self.token)")
        do {
            _ = try await client(.down, pasteboard: pasteboard, memory: memory).deferredDeepLink()
            Issue.record("expected an error")
        } catch {
            guard case .unreachable = error else { Issue.record("\(error)"); return }
        }
        #expect(!memory.deferredLinkChecked && pasteboard.contents != nil, "nothing lost")
        let server = FakeServer { _ in (200, #"{"matchType":"deterministic","confidence":1,"link":\#(Self.resolved)}"#) }
        #expect(await client(server, pasteboard: pasteboard, memory: memory).checkDeferredDeepLink()?.matchType == .deterministic)
    }

    @Test func androidPassesItsInstallReferrerAndAppsCanPassAPastedToken() async throws {
        let server = FakeServer { _ in (200, #"{"matchType":"deterministic","confidence":1,"link":\#(Self.resolved)}"#) }
        let pasteboard = FakePasteboard("https://go.acme.example/x?ferry_token=ZZZZZZZZZZZZZZZZZZZZZZ")
        _ = await client(server, pasteboard: pasteboard, platform: .android)
            .checkDeferredDeepLink(installReferrer: "ferry_token=\(Self.token)&utm_source=mail")
        #expect(try server.body(0, as: InstallReport.self).installReferrer == "ferry_token=\(Self.token)&utm_source=mail")
        _ = await client(server, pasteboard: pasteboard).checkDeferredDeepLink(pastedToken: Self.token)
        #expect(try server.body(1, as: InstallReport.self).token == Self.token)
        #expect(pasteboard.reads == 0, "a referrer or a pasted token needs no pasteboard")
    }
}

final class Box<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
