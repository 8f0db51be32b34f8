import FerryKit
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import FerryServer

@Suite struct WellKnownTests {
    typealias F = ServerFixtures

    func withClient(_ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let app = Application(router: buildRouter(try await F.services()))
        try await app.test(.router, body)
    }

    @Test(arguments: ["/.well-known/apple-app-site-association", "/apple-app-site-association"])
    func appleAppSiteAssociation(_ path: String) async throws {
        try await withClient { client in
            // Apple's CDN fetches with AASA-Bot; old devices with swcd. Any user agent gets the file.
            for userAgent in ["AASA-Bot/1.0.0", "swcd (unknown version) CFNetwork/1410.0.3 Darwin/22.6.0", ""] {
                let response = try await client.execute(uri: path, method: .get, headers: [HTTPField.Name("Host")!: "open.acme.example", .userAgent: userAgent])
                #expect(response.status == .ok)
                #expect(Data(buffer: response.body) == AASAGenerator.data(for: F.app), "byte for byte")
                #expect(response.headers[.contentType] == "application/json")
                #expect(response.headers[.eTag]?.hasPrefix("\"") == true)
                #expect(response.headers[.lastModified]?.hasSuffix(" GMT") == true)
                #expect(response.headers[.setCookie] == nil)
                #expect(response.headers[.location] == nil)
            }
        }
    }

    @Test func assetLinks() async throws {
        try await withClient { client in
            let response = try await client.execute(uri: "/.well-known/assetlinks.json", method: .get, headers: [HTTPField.Name("Host")!: "go.acme.example"])
            #expect(response.status == .ok)
            #expect(Data(buffer: response.body) == AssetLinksGenerator.data(for: F.app))
            #expect(response.headers[.contentType] == "application/json")
        }
    }

    @Test func conditionalRequestsGetNotModified() async throws {
        try await withClient { client in
            let first = try await client.execute(uri: "/.well-known/assetlinks.json", method: .get, headers: [HTTPField.Name("Host")!: "go.acme.example"])
            let etag = try #require(first.headers[.eTag])
            let again = try await client.execute(uri: "/.well-known/assetlinks.json", method: .get,
                                                 headers: [HTTPField.Name("Host")!: "go.acme.example", .ifNoneMatch: etag])
            #expect(again.status == .notModified)
            #expect(again.body.readableBytes == 0)
            let other = try await client.execute(uri: "/.well-known/assetlinks.json", method: .get,
                                                 headers: [HTTPField.Name("Host")!: "go.acme.example", .ifNoneMatch: "\"something-else\""])
            #expect(other.status == .ok)
        }
    }

    @Test func filesFollowTheAppWhenItChanges() async throws {
        let services = try await F.services()
        let app = Application(router: buildRouter(services))
        try await app.test(.router) { client in
            let before = try await client.execute(uri: "/.well-known/apple-app-site-association", method: .get, headers: [HTTPField.Name("Host")!: "go.acme.example"])
            var changed = F.app
            changed.routes.append(Route(pattern: "/p/{sku}"))
            try await services.store.save(changed)
            services.catalog.invalidateApp(id: "acme")
            let after = try await client.execute(uri: "/.well-known/apple-app-site-association", method: .get, headers: [HTTPField.Name("Host")!: "go.acme.example"])
            #expect(Data(buffer: after.body) == AASAGenerator.data(for: changed))
            #expect(after.headers[.eTag] != before.headers[.eTag])
        }
    }
}

@Suite struct HealthTests {
    @Test func healthReadinessMetrics() async throws {
        let services = try await ServerFixtures.services()
        let app = Application(router: buildRouter(services))
        try await app.test(.router) { client in
            #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
            #expect(try await client.execute(uri: "/readyz", method: .get).status == .ok)
            _ = try await client.execute(uri: "/spring", method: .get, headers: [HTTPField.Name("Host")!: "go.acme.example", .userAgent: ServerFixtures.desktop])
            let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            #expect(metrics.contains(#"ferry_decisions_total{decision="desktop"} 1"#))
            #expect(metrics.contains("ferry_visits_queued_total 1"))
            #expect(metrics.contains(#"ferry_http_requests_total{status="2xx"} 2"#), "healthz and readyz")
            #expect(metrics.contains(#"ferry_http_requests_total{status="3xx"} 1"#))
        }
    }
}

@Suite struct ClientAddressTests {
    @Test func forwardedHeadersAreBelievedOnlyFromTrustedProxies() {
        let rules = ClientAddress(trustedProxies: ["10.0.0.0/8", "127.0.0.1"])
        #expect(rules.clientIP(peer: "198.51.100.4", headers: [.xForwardedFor: "1.2.3.4"]) == "198.51.100.4")
        #expect(rules.clientIP(peer: "10.1.2.3", headers: [.xForwardedFor: "203.0.113.9, 10.0.0.5"]) == "203.0.113.9")
        #expect(rules.clientIP(peer: "127.0.0.1", headers: [.forwarded: "for=192.0.2.60;proto=http, for=\"[2001:db8::1]:443\""]) == "2001:db8::1")
        #expect(rules.clientIP(peer: "127.0.0.1", headers: [:]) == "127.0.0.1")
    }

    @Test func theCountryIsBelievedOnlyFromTrustedProxies() {
        let rules = ClientAddress(trustedProxies: ["10.0.0.0/8"], countryHeader: "CF-IPCountry")
        let header = HTTPField.Name("CF-IPCountry")!
        #expect(rules.country(peer: "10.1.2.3", headers: [header: "de"]) == "DE")
        #expect(rules.country(peer: "198.51.100.4", headers: [header: "DE"]) == nil, "anyone can send the header")
        #expect(rules.country(peer: "10.1.2.3", headers: [header: "XX"]) == nil, "Cloudflare's unknown")
        #expect(rules.country(peer: "10.1.2.3", headers: [header: "D1"]) == nil)
        #expect(rules.country(peer: "10.1.2.3", headers: [header: "<script>"]) == nil)
        #expect(ClientAddress(trustedProxies: ["10.0.0.0/8"]).country(peer: "10.1.2.3", headers: [header: "DE"]) == nil, "no header set")
    }

    @Test func hostsLoseTheirPort() {
        #expect(PublicSide<MemoryStore>.hostWithoutPort("Go.Acme.example:443") == "go.acme.example")
        #expect(PublicSide<MemoryStore>.hostWithoutPort("go.acme.example") == "go.acme.example")
        #expect(PublicSide<MemoryStore>.hostWithoutPort("[2001:db8::1]") == "[2001:db8::1]")
    }

    @Test func tokensAreURLSafeAndUnguessable() {
        let tokens = (0..<1000).map { _ in Tokens.random() }
        #expect(Set(tokens).count == 1000)
        #expect(tokens.allSatisfy { $0.count == 22 && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" } })
        #expect(Tokens.random(bytes: 32).count == 43)
    }

    @Test(arguments: [0, 951_782_400, 946_684_799, 1_709_164_800, 1_709_251_199, 1_795_245_222, 4_102_444_800])
    func httpDatesAreIMFFixdates(seconds: Int) {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        #expect(HTTPDate.format(seconds: seconds) == formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds))))
    }

    @Test func ipHashesAreKeyedAndStable() {
        let one = IPHasher(secret: "a"), two = IPHasher(secret: "b")
        #expect(one.hash("203.0.113.9") == one.hash("203.0.113.9"))
        #expect(one.hash("203.0.113.9") != two.hash("203.0.113.9"))
        #expect(one.hash("203.0.113.9").count == 64)
        #expect(!one.hash("203.0.113.9").contains("203"))
        // HMAC-SHA256 under SHA-256("ferry-ip:" + secret), so hashes stay comparable across
        // versions (Python: hmac.new(sha256(b"ferry-ip:a").digest(), b"203.0.113.9", sha256)).
        #expect(one.hash("203.0.113.9") == "ea880e6009aec8a402377c430a025acfc455bc7132686ba4e7b083b6bdfff201")
        #expect(one.hash("") != one.hash("203.0.113.9"))
    }
}
