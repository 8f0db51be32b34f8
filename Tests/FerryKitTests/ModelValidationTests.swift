import Foundation
import Testing
@testable import FerryKit

/// Invalid input is refused with an error that names the field and says what is wrong.
extension RoutePattern {
    /// `RoutePattern("…")` with a literal is a literal (and traps when invalid); tests that want
    /// the throwing parser go through a `String` value.
    init(text: String) throws { try self.init(text) }
}

@Suite struct ModelValidationTests {
    static let app = DecisionTests.app

    func error(_ body: () throws -> Void) -> ValidationError? {
        do { try body() } catch { return error as? ValidationError }
        return nil
    }

    @Test func theExampleAppIsValid() throws {
        try Self.app.validate()
        try DecisionTests.link().validate(for: Self.app)
        try DecisionTests.domain.validate()
    }

    @Test func appIDMustBeTeamIDDotBundle() throws {
        let failure = error { _ = try IOSApp(appID: "com.acme.app") }
        #expect(failure?.field == "appID")
        #expect(failure?.message.contains("team ID 'com'") == true)
        #expect(error { _ = try IOSApp(appID: "ABCDE12345") }?.message.contains("TEAMID.bundle") == true)
        #expect(error { _ = try IOSApp(appID: "abcde12345.com.acme") }?.message.contains("10 uppercase") == true)
        #expect(try IOSApp(appID: "ABCDE12345.com.acme.app").bundleID == "com.acme.app")
        var app = Self.app
        app.ios?.teamID = "SHORT"
        #expect(error { try app.validate() }?.field == "ios.appID")
    }

    @Test func javascriptDestinationsAreRefusedAsUnsafe() throws {
        let link = DecisionTests.link { $0.desktopURL = URL(string: "javascript:alert(1)")! }
        let failure = try #require(error { try link.validate() })
        #expect(failure.field == "desktopURL")
        #expect(failure.isUnsafe)
        #expect(failure.message.contains("javascript"))
        for bad in ["data:text/html,<script>alert(1)</script>", "vbscript:x", "file:///etc/passwd"] {
            #expect(error { _ = try URLRules.webURL(bad, field: "webURL") }?.isUnsafe == true, "\(bad)")
        }
    }

    @Test func malformedURLsAreRefused() {
        #expect(error { _ = try URLRules.webURL("not a url", field: "webURL") }?.message.contains("not an absolute URL") == true)
        #expect(error { _ = try URLRules.webURL("ftp://acme.example/x", field: "webURL") }?.message.contains("http or https") == true)
        #expect(error { _ = try URLRules.webURL("https://good.example@evil.example/", field: "webURL") }?.isUnsafe == true)
        #expect(error { _ = try URLRules.webURL("https:///path", field: "webURL") } != nil)
    }

    @Test func unknownPlaceholderInATemplateIsNamed() {
        var app = Self.app
        app.routes = [Route(pattern: "/u/{userId}", webURL: "https://acme.example/users/{id}")]
        let failure = error { try app.validate() }
        #expect(failure?.field == "routes[0].webURL")
        #expect(failure?.message == "unknown placeholder {id} in 'https://acme.example/users/{id}'; the pattern defines {userId}")
        app.routes = [Route(pattern: "/u/{userId}", customScheme: "acme://user/{user}")]
        #expect(error { try app.validate() }?.field == "routes[0].customScheme")
    }

    @Test func aPlaceholderMayNotChooseTheHost() {
        var app = Self.app
        app.routes = [Route(pattern: "/go/{site}", webURL: "https://{site}/")]
        #expect(error { try app.validate() }?.isUnsafe == true)
    }

    @Test func routePatternsAreChecked() {
        #expect(error { _ = try RoutePattern(text: "u/{id}") }?.message.contains("must start with '/'") == true)
        #expect(error { _ = try RoutePattern(text: "/u/{id}/{id}") }?.message.contains("appears twice") == true)
        #expect(error { _ = try RoutePattern(text: "/u/{}") } != nil)
        #expect(error { _ = try RoutePattern(text: "/u//x") }?.message.contains("empty segment") == true)
        #expect(error { _ = try RoutePattern(text: "/.well-known/x") }?.message.contains("reserves") == true)
        #expect(error { _ = try RoutePattern(text: "/_ferry/web") } != nil)
    }

    @Test func routePatternMatchingAndFilling() throws {
        let pattern = try RoutePattern(text: "/p/{sku}/reviews")
        #expect(pattern.match("/p/a%20b/reviews") == ["sku": "a b"])
        #expect(pattern.match("/p/x/reviews/") == ["sku": "x"])
        #expect(pattern.match("/p//reviews") == nil)
        #expect(pattern.match("/p/x") == nil)
        #expect(pattern.path(with: ["sku": "a/b"]) == "/p/a%2Fb/reviews")
        #expect(URLTemplate("https://acme.example/p/{sku}").fill(["sku": "../../evil?x=#"])?.absoluteString == "https://acme.example/p/..%2F..%2Fevil%3Fx%3D%23")
    }

    @Test func linkCodesPathsAndRoutes() {
        #expect(error { try DecisionTests.link { $0.code = "has space" }.validate() }?.field == "code")
        #expect(error { try DecisionTests.link { $0.code = "" }.validate() }?.field == "code")
        #expect(error { try DecisionTests.link { $0.path = "no-slash" }.validate() }?.field == "path")
        #expect(error { try DecisionTests.link { $0.path = "//evil.example" }.validate() }?.field == "path")
        let offRoute = error { try DecisionTests.link { $0.path = "/nowhere" }.validate(for: Self.app) }
        #expect(offRoute?.field == "path")
        #expect(offRoute?.message.contains("/u/{userId}") == true)
        #expect(error { try DecisionTests.link { $0.androidStore = .ruStore }.validate(for: Self.app) }?.field == "androidStore")
        #expect(error { try DecisionTests.link { $0.preview.imageURL = URL(string: "javascript:x")! }.validate() }?.field == "preview.imageURL")
    }

    @Test func androidSettingsAreChecked() {
        var app = Self.app
        app.android?.packageName = "acme"
        #expect(error { try app.validate() }?.field == "android.packageName")
        app = Self.app
        app.android?.sha256CertFingerprints = ["12:34"]
        #expect(error { try app.validate() }?.field == "android.sha256CertFingerprints[0]")
        app = Self.app
        app.android?.stores = [AndroidStoreListing(.huaweiAppGallery)]
        #expect(error { try app.validate() }?.field == "android.stores[0].storeAppID")
        // Lowercase or colon-less fingerprints are accepted and normalised.
        let android = AndroidApp(packageName: "com.acme", sha256CertFingerprints: [String(repeating: "ab", count: 32)])
        #expect(android.sha256CertFingerprints == [DecisionTests.fingerprint])
    }

    @Test func domainsAndSchemes() {
        #expect(error { try Domain(host: "go.acme.example", appID: "acme", alternateHost: "go.acme.example").validate() }?.field == "alternateHost")
        #expect(error { try Domain(host: "bad host", appID: "acme").validate() }?.field == "host")
        #expect(error { try URLRules.checkCustomScheme("javascript", field: "customScheme") }?.isUnsafe == true)
        #expect(error { try URLRules.checkCustomScheme("acme://", field: "customScheme") }?.message.contains("no '://'") == true)
        #expect(error { try URLRules.checkCustomScheme("https", field: "customScheme") } != nil)
    }

    @Test func modelsRoundTripThroughJSON() throws {
        let encoder = JSONEncoder()
        let app = try JSONDecoder().decode(App.self, from: encoder.encode(Self.app))
        #expect(app == Self.app)
        let link = try JSONDecoder().decode(Link.self, from: encoder.encode(DecisionTests.link()))
        #expect(link == DecisionTests.link())
        let minimal = try JSONDecoder().decode(Link.self, from: Data(#"{"domain":"go.acme.example","path":"/u/1"}"#.utf8))
        #expect(minimal.previewPage == .auto && minimal.disabled == false)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Route.self, from: Data(#"{"pattern":"no-slash"}"#.utf8))
        }
    }

    @Test func versionsCompareNumerically() {
        #expect(Version("17.10")! > Version("17.9")!)
        #expect(Version("10_15_7") == Version(10, 15, 7))
        #expect(Version("3") == Version("3.0.0"))
        #expect(Version("1..2") == nil && Version("") == nil && Version("1.a") == nil)
        let minimum = MinimumAppVersions(ios: Version(3, 2))
        #expect(!minimum.allows(Version(3, 1, 9), on: .iOS))
        #expect(minimum.allows(Version(3, 2), on: .iPadOS))
        #expect(minimum.allows(Version(1), on: .android))
    }
}
