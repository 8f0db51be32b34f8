import Ferry
import FerryKit
import FerryStore
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Deferred deep linking end to end: `ferry serve` as a process, real HTTP, and the `Ferry`
/// library with test doubles only for the pasteboard and what it remembers across launches.
@Suite(.serialized) struct DeferredLinkLiveTests {
    let live = ServeLiveTests()

    /// A pasteboard holding one string, which reports reads and clears.
    final class FakePasteboard: Pasteboard, @unchecked Sendable {
        private let lock = NSLock()
        private var text: String?
        private(set) var reads = 0

        init(_ text: String?) { self.text = text }

        func probablyHoldsURL() async -> Bool { lock.withLock { text.map { URL(string: $0)?.scheme == "https" } ?? false } }
        func string() async -> String? { lock.withLock { reads += 1; return text } }
        func clear() async { lock.withLock { text = nil } }
        var contents: String? { lock.withLock { text } }
    }

    static let device = FixedDeviceFacts(osVersion: Version(17, 4), model: "iPhone15,2", screen: Screen(width: 393, height: 852),
                                         languages: ["en-US"], timeZone: "Europe/London")

    /// The demo app as `ferry app show demo --json` prints it: its SDK key and route table.
    func demoApp(of server: ServeLiveTests.Server) throws -> App {
        let process = Process()
        process.executableURL = FerryCommandTests.executable
        process.arguments = ["app", "show", "demo", "--json", "--database", server.database]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return try JSONDecoder().decode(App.self, from: data)
    }

    func client(_ server: ServeLiveTests.Server, app: App, platform: Platform, pasteboard: any Pasteboard = FakePasteboard(nil),
                memory: any LaunchMemory = InMemoryLaunchMemory()) -> FerryClient {
        FerryClient(
            configuration: FerryConfiguration(
                serverURL: URL(string: "http://127.0.0.1:\(server.port)")!, sdkKey: app.sdkKey ?? "",
                linkDomains: ["go.demo.ferry.test", "open.demo.ferry.test"], customSchemes: ["ferrydemo"], routes: app.routes,
                appVersion: Version(1, 0), platform: platform),
            pasteboard: pasteboard, device: Self.device, memory: memory)
    }

    @Test func iPhoneTokenFromTheClipboardOpensTheLinkOnFirstLaunchOnce() async throws {
        let server = try await live.start()
        let demo = try demoApp(of: server)
        // The tap: the preview page, whose "Get the app" copies the link with its token.
        let (page, response) = try await live.get(server, "/hello", userAgent: ServeLiveTests.iPhone)
        #expect(response.statusCode == 200)
        let html = String(decoding: page, as: UTF8.self)
        let copied = try #require(html.firstMatch(of: /data-copy="([^"]+)"/)?.1).replacingOccurrences(of: "&amp;", with: "&")
        #expect(copied.hasPrefix("https://go.demo.ferry.test/hello?ferry_token="))

        // First launch after the install: the SDK finds the URL on the pasteboard.
        let pasteboard = FakePasteboard(copied)
        let memory = InMemoryLaunchMemory()
        let app = client(server, app: demo, platform: .iOS, pasteboard: pasteboard, memory: memory)
        let opened = Locked(false)
        #expect(demo.sdkKey?.hasPrefix("fy_sdk_") == true)
        app.register("/u/{userId}") { link in opened.set(link["userId", as: Int.self] == 42) }
        let outcome = try #require(await app.checkDeferredDeepLink())
        #expect(outcome.matchType == .deterministic && outcome.confidence == 1)
        #expect(outcome.link.path == "/u/42" && outcome.link.route == "/u/{userId}")
        #expect(outcome.link.tags.campaign == "demo")
        #expect(opened.value, "the handler for the route ran")
        #expect(pasteboard.contents == nil, "the pasteboard is cleared after use")

        // The second launch asks nothing.
        #expect(await app.checkDeferredDeepLink() == nil)
        // Another install presenting the same token gets nothing: an intent is consumed once.
        let again = client(server, app: demo, platform: .iOS, pasteboard: FakePasteboard(copied))
        let second = try await again.deferredDeepLink()
        #expect(second == nil)
        #expect(await live.stop(server) == 0)
        // Both installs were recorded, matched and not.
        let store = try await SQLiteStore.open(path: server.database)
        let events = try await store.appEvents(appID: "demo")
        await store.close()
        #expect(events.filter { $0.kind == .install }.map(\.matchType) == [.deterministic, MatchType.none])
    }

    @Test func androidInstallReferrerFromTheIntentFallbackOpensTheLink() async throws {
        let server = try await live.start()
        let demo = try demoApp(of: server)
        let (_, response) = try await live.get(server, "/sale?ref=news", userAgent: ServeLiveTests.android)
        let intent = try #require(response.value(forHTTPHeaderField: "Location"))
        #expect(intent.hasPrefix("intent://go.demo.ferry.test/sale?ref=news#Intent;"))
        // The fallback is the Play Store with the token in `referrer`; Play hands the referrer to the app.
        let fallback = try #require(intent.firstMatch(of: /S\.browser_fallback_url=([^;]+);/)?.1).removingPercentEncoding!
        let play = try #require(URLComponents(string: fallback))
        #expect(play.host == "play.google.com")
        let referrer = try #require(play.queryItems?.first { $0.name == "referrer" }?.value)
        #expect(referrer.hasPrefix("ferry_token="))

        let app = client(server, app: demo, platform: .android)
        let outcome = try #require(await app.checkDeferredDeepLink(installReferrer: referrer))
        #expect(outcome.matchType == .deterministic)
        #expect(outcome.link.path == "/p/sku-123" && outcome.link.parameters["sku"] == "sku-123")
        #expect(outcome.link.tags.utmCampaign == "spring")
        #expect(await app.checkDeferredDeepLink(installReferrer: referrer) == nil)
        #expect(await live.stop(server) == 0)
    }

    @Test func opensAreResolvedAndRecorded() async throws {
        let server = try await live.start()
        let demo = try demoApp(of: server)
        let app = client(server, app: demo, platform: .iOS)
        guard case .opened(let short) = await app.handle(URL(string: "https://open.demo.ferry.test/hello")!) else {
            Issue.record("the short link did not open")
            return
        }
        #expect(short.path == "/u/42" && short.resolved.code == "hello")
        guard case .opened(let route) = await app.handle(URL(string: "ferrydemo://u/7?ref=mail")!) else {
            Issue.record("the custom-scheme URL did not open")
            return
        }
        #expect(route.parameters["userId"] == "7" && route.tags.ref == "mail")
        #expect(await app.handle(URL(string: "https://elsewhere.example/hello")!) == .notFerryLink)
        #expect(try await app.resolve(code: "sale").path == "/p/sku-123")
        do {
            _ = try await app.resolve(code: "nope")
            Issue.record("an unknown code resolved")
        } catch {
            #expect(error == .server(status: 404, code: "not_found", message: "no link 'nope' on the domains of app 'demo'"))
        }
        #expect(await live.stop(server) == 0)
        let store = try await SQLiteStore.open(path: server.database)
        let opens = try await store.appEvents(appID: "demo").filter { $0.kind == .open }
        await store.close()
        // The route open is reported in the background; the short link's open is the resolution itself.
        #expect(opens.contains { $0.code == "hello" })
    }
}

/// A value shared with a handler.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func set(_ value: Value) { lock.withLock { stored = value } }
}
