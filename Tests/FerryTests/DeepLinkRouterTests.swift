import Foundation
import Testing
import FerryKit
@testable import Ferry

@Suite struct DeepLinkRouterTests {
    final class Opened: @unchecked Sendable {
        private let lock = NSLock()
        private var _ids: [String] = []
        var ids: [String] { lock.withLock { _ids } }
        func append(_ id: String) { lock.withLock { _ids.append(id) } }
    }

    func router(_ opened: Opened) -> DeepLinkRouter {
        var router = DeepLinkRouter(linkDomains: ["go.acme.example", "open.acme.example"], customSchemes: ["acme"])
        router.register("/u/{userId}") { opened.append("user \($0.parameters["userId"]!)") }
        router.register("/p/{sku}/reviews") { opened.append("reviews \($0.parameters["sku"]!)") }
        return router
    }

    @Test func universalLinksOpenTheirScreen() {
        let opened = Opened()
        let router = router(opened)
        #expect(router.open(URL(string: "https://go.acme.example/u/42?ref=mail&ferry_token=x")!))
        #expect(router.open(URL(string: "https://open.acme.example/p/a%20b/reviews")!))
        #expect(opened.ids == ["user 42", "reviews a b"])
        let match = router.match(URL(string: "https://go.acme.example/u/42?ref=mail&ferry_token=x")!)
        #expect(match?.query == ["ref": "mail"], "Ferry's own parameters stay out of the app's way")
    }

    @Test func customSchemeURLsRouteByHostAndPath() {
        let opened = Opened()
        #expect(router(opened).open(URL(string: "acme://u/7")!))
        #expect(opened.ids == ["user 7"])
    }

    @Test func otherURLsAreNotFerryLinks() {
        let router = router(Opened())
        #expect(router.match(URL(string: "https://evil.example/u/42")!) == nil)
        #expect(router.match(URL(string: "https://go.acme.example/unknown/path")!) == nil)
        #expect(router.match(URL(string: "other://u/42")!) == nil)
    }
}
