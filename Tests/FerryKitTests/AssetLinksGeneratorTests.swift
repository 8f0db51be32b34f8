import Foundation
import Testing
@testable import FerryKit

@Suite struct AssetLinksGeneratorTests {
    static let app = AppleAssociationTests.app
    static let fingerprint = String(repeating: "AB:", count: 31) + "AB"

    @Test func generatedFileGrantsTheAppHandleAllURLs() throws {
        let body = String(decoding: AssetLinksGenerator.data(for: Self.app), as: UTF8.self)
        let service = StatementService(fetch: { url in
            url == "https://go.acme.example/.well-known/assetlinks.json" ? .body(body) : .failure("404 Not Found")
        })
        let source = try AssetQuery.web(site: "https://go.acme.example")
        let yes = service.check(source: source, relation: AssetRelation.handleAllURLs,
                                target: try AssetQuery.androidApp(packageName: "com.acme.app", fingerprint: Self.fingerprint))
        #expect(yes.linked && yes.errors.isEmpty)
        let wrongCertificate = service.check(source: source, relation: AssetRelation.handleAllURLs,
                                             target: try AssetQuery.androidApp(packageName: "com.acme.app", fingerprint: String(repeating: "00:", count: 31) + "00"))
        #expect(!wrongCertificate.linked)
        #expect(AssetLinksGenerator.grantsHandleAllURLs(body, package: "com.acme.app", fingerprint: Self.fingerprint).granted)
    }

    @Test func dynamicComponentsFollowTheRouteTable() throws {
        let body = String(decoding: AssetLinksGenerator.data(for: Self.app), as: UTF8.self)
        let list = StatementList(parsing: body)
        #expect(list.errors.isEmpty)
        let components = try #require(list.statements.first?.dynamicAppLinkComponents)
        #expect(components.first == AppleAppSiteAssociation.Component(path: "/_ferry/*", exclude: true))
        #expect(components.map(\.path) == ["/_ferry/*", "/u/?*", "/p/?*/reviews", "/*"])
        // Android reads them with the same first-match semantics as the AASA matcher.
        let file = AppleAppSiteAssociation(applinks: .init(details: [.init(appIDs: ["x"], components: components)]))
        #expect(AASAMatcher(file).match("/_ferry/web", appID: "x").outcome == .blocked)
        #expect(AASAMatcher(file).match("/u/42", appID: "x").outcome == .match)
        #expect(body.contains(#""relation":["delegate_permission/common.handle_all_urls"]"#))
        #expect(!body.contains("comment"), "Android reads only /, ?, # and exclude")
    }

    @Test func appWithoutAndroidServesAnEmptyList() {
        var app = Self.app
        app.android = nil
        #expect(String(decoding: AssetLinksGenerator.data(for: app), as: UTF8.self) == "[]")
    }

    @Test func checkOfAForeignFile() {
        let body = #"[{"relation":["delegate_permission/common.handle_all_urls"],"target":{"namespace":"android_app","package_name":"com.other","sha256_cert_fingerprints":["\#(Self.fingerprint)"]}}]"#
        #expect(!AssetLinksGenerator.grantsHandleAllURLs(body, package: "com.acme.app", fingerprint: Self.fingerprint).granted)
        #expect(AssetLinksGenerator.grantsHandleAllURLs(body, package: "com.other", fingerprint: Self.fingerprint).granted)
        let broken = AssetLinksGenerator.grantsHandleAllURLs("[{,]", package: "com.other", fingerprint: Self.fingerprint)
        #expect(!broken.granted && broken.errors.first?.message.contains("not valid JSON") == true)
    }
}
