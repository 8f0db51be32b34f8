import FerryKit
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import FerryServer

@Suite struct AdminAPITests {
    typealias F = ServerFixtures

    struct Fixture: Sendable {
        let services: FerryServices<MemoryStore>
        let key: String
    }

    func withAPI(_ body: @Sendable (Fixture, any TestClientProtocol) async throws -> Void) async throws {
        let services = try await F.services()
        let (_, key) = try await APIKeys.create(name: "test", in: services.store)
        let app = Application(router: buildRouter(services))
        try await app.test(.router) { client in try await body(Fixture(services: services, key: key), client) }
    }

    func call(_ client: any TestClientProtocol, _ method: HTTPRequest.Method, _ path: String, key: String?, json: String? = nil) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let key { headers[.authorization] = "Bearer \(key)" }
        return try await client.execute(uri: path, method: method, headers: headers, body: json.map { ByteBuffer(string: $0) })
    }

    func errorOf(_ response: TestResponse) throws -> (code: String, message: String, field: String?) {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: [String: String]])
        let error = try #require(object["error"])
        return (try #require(error["code"]), try #require(error["message"]), error["field"])
    }

    @Test func keysAreRequiredAndRevocationIsHonoured() async throws {
        try await withAPI { fixture, client in
            let none = try await call(client, .get, "/api/v1/apps", key: nil)
            #expect(none.status == .unauthorized)
            #expect(none.headers[.wwwAuthenticate] == "Bearer")
            #expect(try errorOf(none).code == "unauthorized")
            #expect(try await call(client, .get, "/api/v1/apps", key: "fy_wrong").status == .unauthorized)
            #expect(try await call(client, .get, "/api/v1/apps", key: fixture.key).status == .ok)
            let id = try #require(try await fixture.services.store.apiKeys().first { $0.name == "test" }?.id)
            try await fixture.services.store.revokeAPIKey(id: id, at: Date())
            let revoked = try await call(client, .get, "/api/v1/apps", key: fixture.key)
            #expect(revoked.status == .forbidden)
            #expect(try errorOf(revoked).code == "key_revoked")
        }
    }

    @Test func appsCreateReadReplaceDelete() async throws {
        try await withAPI { fixture, client in
            let body = #"{"id":"shop","name":"Shop","web":{"fallbackURL":"https://shop.example"},"routes":[{"pattern":"/p/{sku}","webURL":"https://shop.example/p/{sku}"}]}"#
            let created = try await call(client, .post, "/api/v1/apps", key: fixture.key, json: body)
            #expect(created.status == .created)
            #expect(try await call(client, .post, "/api/v1/apps", key: fixture.key, json: body).status == .conflict)
            let read = try await call(client, .get, "/api/v1/apps/shop", key: fixture.key)
            #expect(String(buffer: read.body).contains(#""pattern":"/p/{sku}""#))
            let replaced = try await call(client, .put, "/api/v1/apps/shop", key: fixture.key, json: body.replacingOccurrences(of: #""name":"Shop""#, with: #""name":"Shop 2""#))
            #expect(replaced.status == .ok)
            #expect(try await fixture.services.store.app(id: "shop")?.name == "Shop 2")
            let mismatch = try await call(client, .put, "/api/v1/apps/other", key: fixture.key, json: body)
            #expect(try mismatch.status == .badRequest && (errorOf(mismatch).field) == "id")
            #expect(try await call(client, .delete, "/api/v1/apps/shop", key: fixture.key).status == .noContent)
            #expect(try await call(client, .get, "/api/v1/apps/shop", key: fixture.key).status == .notFound)
            #expect(try await call(client, .delete, "/api/v1/apps/shop", key: fixture.key).status == .notFound)
        }
    }

    @Test func invalidInputNamesTheFieldAndWritesNothing() async throws {
        try await withAPI { fixture, client in
            let badTemplate = #"{"id":"shop","name":"Shop","web":{"fallbackURL":"https://shop.example"},"routes":[{"pattern":"/p/{sku}","webURL":"https://shop.example/p/{id}"}]}"#
            let response = try await call(client, .post, "/api/v1/apps", key: fixture.key, json: badTemplate)
            #expect(response.status == .badRequest)
            let error = try errorOf(response)
            #expect(error.field == "routes[0].webURL")
            #expect(error.message.contains("unknown placeholder {id}"))
            #expect(try await fixture.services.store.app(id: "shop") == nil)

            let notJSON = try await call(client, .post, "/api/v1/apps", key: fixture.key, json: "{nope")
            #expect(try notJSON.status == .badRequest && (errorOf(notJSON).code) == "invalid_json")
            let wrongType = try await call(client, .post, "/api/v1/links", key: fixture.key, json: #"{"domain":"go.acme.example","path":"/u/1","disabled":"yes"}"#)
            #expect(try wrongType.status == .badRequest && (errorOf(wrongType).field) == "disabled")
            let missing = try await call(client, .post, "/api/v1/links", key: fixture.key, json: #"{"path":"/u/1"}"#)
            #expect(try missing.status == .badRequest && (errorOf(missing).field) == "domain")
            let script = try await call(client, .post, "/api/v1/links", key: fixture.key, json: #"{"domain":"go.acme.example","path":"/u/1","desktopURL":"javascript:alert(1)"}"#)
            #expect(try script.status == .badRequest && (errorOf(script).field) == "desktopURL")
        }
    }

    @Test func domainsConflictAndReferences() async throws {
        try await withAPI { fixture, client in
            #expect(try await call(client, .post, "/api/v1/domains", key: fixture.key, json: #"{"host":"open.acme.example","appID":"acme"}"#).status == .conflict)
            let unknownApp = try await call(client, .post, "/api/v1/domains", key: fixture.key, json: #"{"host":"x.example","appID":"nope"}"#)
            #expect(unknownApp.status == .unprocessableContent)
            #expect(try await call(client, .post, "/api/v1/domains", key: fixture.key, json: #"{"host":"l.acme.example","appID":"acme"}"#).status == .created)
            let list = String(buffer: try await call(client, .get, "/api/v1/domains?app=acme", key: fixture.key).body)
            #expect(list.contains("l.acme.example") && list.contains("go.acme.example"))
        }
    }

    @Test func linksGetCodesAndClashesAreRefused() async throws {
        try await withAPI { fixture, client in
            let generated = try await call(client, .post, "/api/v1/links", key: fixture.key, json: #"{"domain":"go.acme.example","path":"/u/5"}"#)
            #expect(generated.status == .created)
            let code = try #require((try JSONSerialization.jsonObject(with: Data(buffer: generated.body)) as? [String: Any])?["code"] as? String)
            #expect(code.count == 8)
            #expect(try await fixture.services.store.link(domain: "go.acme.example", code: code) != nil)
            #expect(try await call(client, .post, "/api/v1/links", key: fixture.key, json: #"{"code":"mine","domain":"go.acme.example","path":"/u/5"}"#).status == .created)
            let clash = try await call(client, .post, "/api/v1/links", key: fixture.key, json: #"{"code":"mine","domain":"go.acme.example","path":"/u/6"}"#)
            #expect(clash.status == .conflict)
            #expect(try await call(client, .post, "/api/v1/links", key: fixture.key, json: #"{"domain":"unknown.example","path":"/u/5"}"#).status == .unprocessableContent)
            #expect(try await call(client, .post, "/api/v1/links", key: fixture.key, json: #"{"domain":"go.acme.example","path":"/not-a-route"}"#).status == .badRequest)
        }
    }

    @Test func bulkIsAllOrNothingAndBounded() async throws {
        try await withAPI { fixture, client in
            let good = (0..<1000).map { #"{"code":"b\#($0)","domain":"go.acme.example","path":"/u/\#($0)"}"# }.joined(separator: ",")
            let created = try await call(client, .post, "/api/v1/links/bulk", key: fixture.key, json: #"{"links":[\#(good)]}"#)
            #expect(created.status == .created)
            #expect(try await fixture.services.store.links(LinkQuery(limit: 2000)).count == 1004)
            let mixed = #"{"links":[{"code":"c1","domain":"go.acme.example","path":"/u/1"},{"code":"c2","domain":"go.acme.example","path":"/nowhere"}]}"#
            let refused = try await call(client, .post, "/api/v1/links/bulk", key: fixture.key, json: mixed)
            #expect(refused.status == .badRequest)
            #expect(try errorOf(refused).field == "links[1].path")
            #expect(try await fixture.services.store.link(domain: "go.acme.example", code: "c1") == nil, "nothing half-written")
            let tooMany = (0..<1001).map { #"{"domain":"go.acme.example","path":"/u/\#($0)"}"# }.joined(separator: ",")
            #expect(try await call(client, .post, "/api/v1/links/bulk", key: fixture.key, json: #"{"links":[\#(tooMany)]}"#).status == .contentTooLarge)
        }
    }

    @Test func listingPagesAndFilters() async throws {
        try await withAPI { fixture, client in
            let page = try await call(client, .get, "/api/v1/links?limit=2", key: fixture.key)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(buffer: page.body)) as? [String: Any])
            #expect((object["items"] as? [Any])?.count == 2)
            #expect(object["nextOffset"] as? Int == 2)
            let campaign = String(buffer: try await call(client, .get, "/api/v1/links?campaign=spring", key: fixture.key).body)
            #expect(campaign.contains(#""code":"spring""#) && !campaign.contains(#""code":"old""#))
            let tag = String(buffer: try await call(client, .get, "/api/v1/links?tag=spring", key: fixture.key).body)
            #expect(tag.contains(#""code":"spring""#))
            let text = String(buffer: try await call(client, .get, "/api/v1/links?q=ada", key: fixture.key).body)
            #expect(text.contains(#""code":"spring""#))
            #expect(try await call(client, .get, "/api/v1/links?limit=0", key: fixture.key).status == .badRequest)
        }
    }

    @Test func changesTakeEffectOnTheNextClick() async throws {
        try await withAPI { fixture, client in
            let desktop: HTTPFields = [.userAgent: F.desktop, HTTPField.Name("Host")!: "go.acme.example"]
            #expect(try await client.execute(uri: "/spring", method: .get, headers: desktop).status == .found)
            let disabled = #"{"domain":"go.acme.example","path":"/u/42","disabled":true}"#
            #expect(try await call(client, .put, "/api/v1/links/go.acme.example/spring", key: fixture.key, json: disabled).status == .ok)
            #expect(try await client.execute(uri: "/spring", method: .get, headers: desktop).status == .gone)
            let redirected = #"{"domain":"go.acme.example","path":"/u/42","desktopURL":"https://acme.example/new"}"#
            _ = try await call(client, .put, "/api/v1/links/go.acme.example/spring", key: fixture.key, json: redirected)
            #expect(try await client.execute(uri: "/spring", method: .get, headers: desktop).headers[.location] == "https://acme.example/new")
            #expect(try await call(client, .delete, "/api/v1/links/go.acme.example/spring", key: fixture.key).status == .noContent)
            #expect(try await client.execute(uri: "/spring", method: .get, headers: desktop).status == .notFound)
        }
    }

    @Test func theDocumentIsServedAndAgreesWithTheRoutes() async throws {
        let services = try await F.services()
        let router = FerryResponderBuilder(services).makeRouter()
        // The document describes the API; the dashboard's pages are not part of it.
        let routed = Set(router.routes.filter { !$0.path.description.hasPrefix("/dashboard") }.map { route in
            "\(route.method.rawValue) " + route.path.description.split(separator: "/").map { segment in
                segment.hasPrefix(":") ? "{\(segment.dropFirst())}" : String(segment)
            }.reduce("") { $0 + "/" + $1 }
        })
        // The document's paths and methods, read line by line (it is plain, two-space YAML).
        var documented = Set<String>()
        var current: String?
        for line in OpenAPIDocument.yaml.split(separator: "\n") {
            if line.hasPrefix("  /"), line.hasSuffix(":") {
                current = String(line.dropFirst(2).dropLast())
            } else if line.hasPrefix("components:") {
                current = nil
            } else if let path = current, let method = ["get", "put", "post", "delete", "patch", "head"].first(where: { line == "    \($0):" }) {
                documented.insert("\(method.uppercased()) \(path)")
            }
        }
        #expect(!routed.isEmpty)
        #expect(routed == documented, "only in the routes: \(routed.subtracting(documented)); only in the document: \(documented.subtracting(routed))")
        let onDisk = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("openapi.yaml"), encoding: .utf8)
        #expect(onDisk == OpenAPIDocument.yaml, "the served document is the repository's openapi.yaml")

        let app = Application(router: buildRouter(services))
        try await app.test(.router) { client in
            let response = try await client.execute(uri: "/api/v1/openapi.yaml", method: .get)
            #expect(response.status == .ok)
            #expect(String(buffer: response.body).hasPrefix("openapi: 3.1.0"))
        }
    }
}
