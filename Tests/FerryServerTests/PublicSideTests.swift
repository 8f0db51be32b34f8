import FerryKit
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import FerryServer

/// Every decision row over HTTP: status, Location, page content, headers.
@Suite struct PublicSideTests {
    typealias F = ServerFixtures

    func withServer(_ body: @Sendable (FerryServices<MemoryStore>, any TestClientProtocol) async throws -> Void) async throws {
        let services = try await F.services()
        let app = Application(router: buildRouter(services))
        try await app.test(.router) { client in try await body(services, client) }
    }

    func get(_ client: any TestClientProtocol, _ path: String, host: String = "go.acme.example", userAgent: String,
             headers extra: HTTPFields = [:], method: HTTPRequest.Method = .get) async throws -> TestResponse {
        try await client.execute(uri: path, method: method, headers: F.headers(userAgent, extra + [HTTPField.Name("Host")!: host]))
    }

    @Test func iPhoneSafariGetsThePreviewPage() async throws {
        try await withServer { _, client in
            let response = try await get(client, "/spring", userAgent: F.iPhone)
            #expect(response.status == .ok)
            let html = String(buffer: response.body)
            #expect(html.contains("<h1>Ada&#39;s profile</h1>"))
            #expect(html.contains(#"id="open" href="https://open.acme.example/spring""#), "Open in app points at the alternate domain")
            #expect(html.contains(#"id="get" href="https://apps.apple.com/app/id123456789?ct=spring" data-copy="https://go.acme.example/spring?ferry_token="#))
            #expect(html.contains(#"<meta name="apple-itunes-app" content="app-id=123456789, app-argument=https://go.acme.example/spring">"#))
            #expect(response.headers[HTTPField.Name("Content-Security-Policy")!]?.contains("script-src 'sha256-") == true)
            #expect(response.headers[.cacheControl] == "no-store")
            #expect(html.utf8.count < 30_000)
            #expect(html.components(separatedBy: "<script").count == 2, "one inline script")
            #expect(!html.contains("src=\"http://") && !html.contains("<link "), "no external scripts, styles or fonts")
        }
    }

    @Test func desktopIsRedirectedToTheWeb() async throws {
        try await withServer { _, client in
            let response = try await get(client, "/spring", userAgent: F.desktop)
            #expect(response.status == .found)
            #expect(response.headers[.location] == "https://acme.example/users/42")
        }
    }

    @Test func androidChromeGetsAnIntentWithTheTokenInTheReferrer() async throws {
        try await withServer { _, client in
            let response = try await get(client, "/spring", userAgent: F.android)
            #expect(response.status == .found)
            let location = try #require(response.headers[.location])
            #expect(location.hasPrefix("intent://go.acme.example/spring#Intent;scheme=https;package=com.acme.app;S.browser_fallback_url=https%3A%2F%2Fplay.google.com%2Fstore%2Fapps%2Fdetails%3Fid%3Dcom.acme.app%26referrer%3Dferry_token%253D"))
            #expect(location.hasSuffix(";end"))
        }
    }

    @Test func previewCrawlersGetTagsAndNoRedirect() async throws {
        try await withServer { _, client in
            let response = try await get(client, "/spring", userAgent: F.slackbot)
            #expect(response.status == .ok)
            #expect(response.headers[.location] == nil)
            let html = String(buffer: response.body)
            #expect(html.contains(#"<meta property="og:title" content="Ada&#39;s profile">"#))
            #expect(html.contains(#"<meta property="og:url" content="https://go.acme.example/spring">"#))
            #expect(html.contains(#"<meta property="al:ios:url" content="acme://u/42">"#) || html.contains(#"<meta property="al:ios:url""#))
            #expect(html.contains(#"<meta name="twitter:card""#))
            #expect(html.range(of: "ferry_token(=|%3D)[A-Za-z0-9_-]{22}", options: .regularExpression) == nil && !html.contains("data-copy=\""),
                    "crawlers never get a deferred-link token")
        }
    }

    @Test func inAppBrowsersGetTheButtonPage() async throws {
        try await withServer { _, client in
            let facebook = try await get(client, "/spring", userAgent: F.facebookIOS)
            #expect(facebook.status == .ok)
            #expect(String(buffer: facebook.body).contains(#"href="https://open.acme.example/spring""#))
            let weChat = try await get(client, "/spring", userAgent: F.weChat)
            #expect(weChat.status == .ok)
            let html = String(buffer: weChat.body)
            #expect(html.contains("Open this link in your browser"))
            #expect(html.contains("WeChat"))
            #expect(html.contains(#"value="https://go.acme.example/spring""#))
        }
    }

    @Test func macSafariGetsTheIPadProbe() async throws {
        try await withServer { _, client in
            let response = try await get(client, "/spring", userAgent: F.macSafari)
            #expect(response.status == .ok)
            let html = String(buffer: response.body)
            #expect(html.contains(#"<body data-desktop="https://acme.example/users/42">"#))
            #expect(html.contains(#"id="open""#))
        }
    }

    @Test func expiredDisabledUnknown() async throws {
        try await withServer { _, client in
            #expect(try await get(client, "/old", userAgent: F.iPhone).status == .gone)
            #expect(try await get(client, "/off", userAgent: F.desktop).status == .gone)
            let missing = try await get(client, "/nope", userAgent: F.iPhone)
            #expect(missing.status == .notFound)
            #expect(String(buffer: missing.body).contains("Link not found"))
            #expect(missing.headers[.contentType] == "text/html; charset=utf-8")
        }
    }

    @Test func unknownHostsGetAPlainNotFound() async throws {
        try await withServer { _, client in
            for path in ["/spring", "/.well-known/apple-app-site-association", "/u/42"] {
                let response = try await get(client, path, host: "evil.example", userAgent: F.iPhone)
                #expect(response.status == .notFound)
                let body = String(buffer: response.body)
                #expect(!body.contains("acme") && !body.contains("Acme") && !body.contains("ABCDE12345"))
            }
        }
    }

    @Test func headAnswersLikeGetWithoutABody() async throws {
        try await withServer { _, client in
            let getResponse = try await get(client, "/spring", userAgent: F.iPhone)
            let head = try await get(client, "/spring", userAgent: F.iPhone, method: .head)
            #expect(head.status == getResponse.status)
            #expect(head.headers[.contentType] == getResponse.headers[.contentType])
            #expect(head.body.readableBytes == 0)
            #expect(Int(head.headers[.contentLength] ?? "") ?? 0 > 1000)
            let redirect = try await get(client, "/spring", userAgent: F.desktop, method: .head)
            #expect(redirect.status == .found && redirect.headers[.location] == "https://acme.example/users/42")
        }
    }

    @Test func routePathsAreLinksToo() async throws {
        try await withServer { _, client in
            let response = try await get(client, "/u/7?utm_source=mail", userAgent: F.desktop)
            #expect(response.status == .found)
            #expect(response.headers[.location] == "https://acme.example/users/7?utm_source=mail")
            #expect(try await get(client, "/not/a/route", userAgent: F.desktop).status == .notFound)
        }
    }

    @Test func everyUserSuppliedValueIsEscaped() async throws {
        try await withServer { _, client in
            for userAgent in [F.iPhone, F.slackbot, F.weChat] {
                let html = String(buffer: try await get(client, "/xss", userAgent: userAgent).body)
                #expect(!html.contains("<script>alert(1)</script>"))
                #expect(!html.contains("<img src=x"))
                #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
            }
        }
    }

    @Test func webFallbackForOldAppVersions() async throws {
        try await withServer { _, client in
            let route = try await get(client, "/_ferry/web?path=/u/42", userAgent: F.iPhone)
            #expect(route.status == .found)
            #expect(route.headers[.location] == "https://acme.example/users/42")
            let short = try await get(client, "/_ferry/web?path=/spring", userAgent: F.iPhone)
            #expect(short.headers[.location] == "https://acme.example/users/42")
            #expect(try await get(client, "/_ferry/web?path=//evil.example", userAgent: F.iPhone).status == .notFound)
            #expect(try await get(client, "/_ferry/web?path=https://evil.example", userAgent: F.iPhone).status == .notFound)
            #expect(try await get(client, "/_ferry/other", userAgent: F.iPhone).status == .notFound)
        }
    }

    @Test func visitsAreRecordedForLinkRequestsOnly() async throws {
        try await withServer { services, client in
            for userAgent in [F.iPhone, F.android, F.desktop, F.slackbot] {
                _ = try await get(client, "/spring", userAgent: userAgent, headers: [.xForwardedFor: "203.0.113.7", .referer: "https://t.co/abc?x=1"])
            }
            _ = try await get(client, "/u/9", userAgent: F.desktop)
            _ = try await get(client, "/nope", userAgent: F.desktop)
            _ = try await get(client, "/.well-known/assetlinks.json", userAgent: F.desktop)
            await services.recorder.flush()
            #expect(try await services.store.visitCount() == 5)
            #expect(services.recorder.counts.written == 5)
            #expect(services.recorder.counts.dropped == 0)
        }
    }
}
