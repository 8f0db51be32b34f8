import Foundation
import Testing
import FerryKit
import FerryStore
@testable import FerryServer

@Suite struct LinkResolverTests {
    static let iPhone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"
    static let desktop = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36"

    func resolver() async throws -> LinkResolver<MemoryStore> {
        let store = MemoryStore()
        try await store.save(App(
            id: "acme", name: "Acme", ios: IOSApp(teamID: "ABCDE12345", bundleID: "com.acme.app", appStoreID: "123"),
            web: WebSettings(fallbackURL: URL(string: "https://acme.example")!),
            routes: [Route(pattern: "/u/{id}", webURL: "https://acme.example/users/{id}")]))
        try await store.save(Domain(host: "go.acme.example", appID: "acme", alternateHost: "open.acme.example"))
        try await store.insert(Link(code: "abc", domain: "go.acme.example", path: "/u/7", desktopURL: URL(string: "https://acme.example/promo")))
        return LinkResolver(store: store)
    }

    @Test func shortCodeOnEitherHost() async throws {
        let resolver = try await resolver()
        for host in ["go.acme.example", "open.acme.example:443"] {
            let resolution = try #require(try await resolver.resolve(host: host, path: "/abc", query: [], headers: RequestHeaders(userAgent: Self.desktop)))
            #expect(resolution.decision == .redirect("https://acme.example/promo", .desktop))
        }
    }

    @Test func routePathWithoutARecord() async throws {
        let resolver = try await resolver()
        let resolution = try #require(try await resolver.resolve(host: "go.acme.example", path: "/u/42", query: [.init("ref", "mail")],
                                                                 headers: RequestHeaders(userAgent: Self.desktop)))
        #expect(resolution.link?.tags.ref == "mail")
        #expect(resolution.decision.kind == .desktop)
        let iPhone = try #require(try await resolver.resolve(host: "go.acme.example", path: "/u/42", query: [],
                                                             headers: RequestHeaders(userAgent: Self.iPhone), deferredToken: "t"))
        #expect(iPhone.decision.kind == .previewPage)
        #expect(iPhone.visitor.platform == .iOS)
    }

    @Test func unknownCodeIsNotFoundAndUnknownHostIsNothing() async throws {
        let resolver = try await resolver()
        let unknown = try await resolver.resolve(host: "go.acme.example", path: "/nope", query: [], headers: RequestHeaders(userAgent: Self.desktop))
        #expect(unknown?.decision == .notFound)
        #expect(try await resolver.resolve(host: "evil.example", path: "/abc", query: [], headers: RequestHeaders(userAgent: Self.desktop)) == nil)
    }
}
