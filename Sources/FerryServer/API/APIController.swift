import FerryKit
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird

/// Checks `Authorization: Bearer <key>` for every API route but the OpenAPI document.
struct APIKeyMiddleware<Store: LinkStore>: RouterMiddleware {
    typealias Context = FerryRequestContext
    let store: Store

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.uri.path.hasSuffix("/openapi.yaml") { return try await next(request, context) }
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") else { throw APIError.unauthorized }
        let secret = header.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces)
        let record: APIKeyRecord?
        do {
            record = try await store.apiKey(hash: APIKeys.hash(secret))
        } catch {
            throw APIError.from(error)
        }
        guard let record else { throw APIError.unauthorized }
        guard record.isActive else { throw APIError.revoked }
        var context = context
        context.apiKey = record
        return try await next(request, context)
    }
}

/// A page of a list.
struct Page<Item: Encodable>: Encodable {
    let items: [Item]
    let limit: Int
    let offset: Int
    let nextOffset: Int?
}

struct BulkLinks: Decodable {
    let links: [Link]
}

/// The admin API under `/api/v1`: apps (with their route tables), domains, links.
struct APIController<Store: LinkStore> {
    let services: FerryServices<Store>
    static var maximumBulk: Int { 1000 }

    var store: Store { services.store }
    var catalog: Catalog<Store> { services.catalog }

    func addRoutes(to router: Router<FerryRequestContext>) {
        let api = router.group("api/v1").add(middleware: APIKeyMiddleware(store: store))
        api.get("openapi.yaml") { _, _ in
            var answer = Responses.text(.ok, OpenAPIDocument.yaml)
            answer.headers[.contentType] = "application/yaml; charset=utf-8"
            return answer.response
        }

        let stats = StatsController(store: store)
        api.get("stats") { request, _ in try await stats.report(request) }
        WebhookRoutes(services: services).addRoutes(to: api)

        api.get("apps") { _, _ in try APICoding.response(try await call { try await store.apps() }) }
        api.post("apps") { request, context in
            var app = try await APICoding.decode(App.self, from: request, context: context)
            if app.sdkKey == nil { app.sdkKey = SDKKeys.generate() }
            try validate { try app.validate() }
            if try await call({ try await store.app(id: app.id) }) != nil {
                throw APIError(.conflict, "conflict", "an app '\(app.id)' exists; PUT /api/v1/apps/\(app.id) replaces it")
            }
            try await call { try await store.save(app) }
            await changed(.app(id: app.id))
            return try APICoding.response(app, status: .created)
        }
        api.get("apps/:id") { _, context in
            let id = try context.parameters.require("id")
            guard let app = try await call({ try await store.app(id: id) }) else { throw APIError.notFound("no app '\(id)'") }
            return try APICoding.response(app)
        }
        api.put("apps/:id") { request, context in
            let id = try context.parameters.require("id")
            var app = try await APICoding.decode(App.self, from: request, context: context)
            guard app.id == id else { throw APIError(.badRequest, "invalid", "the body's id '\(app.id)' is not the URL's '\(id)'", field: "id") }
            guard let existing = try await call({ try await store.app(id: id) }) else { throw APIError.notFound("no app '\(id)'") }
            // A body without an SDK key keeps the app's key; apps in the field send it.
            if app.sdkKey == nil { app.sdkKey = existing.sdkKey ?? SDKKeys.generate() }
            try validate { try app.validate() }
            try await call { try await store.save(app) }
            await changed(.app(id: id))
            return try APICoding.response(app)
        }
        api.delete("apps/:id") { _, context in
            let id = try context.parameters.require("id")
            try await onResource { try await store.deleteApp(id: id) }
            await changed(.app(id: id), .domains)
            return Response(status: .noContent)
        }

        api.get("domains") { request, _ in
            try APICoding.response(try await call { try await store.domains(appID: request.uri.queryParameters.get("app")) })
        }
        api.post("domains") { request, context in
            let domain = try await APICoding.decode(Domain.self, from: request, context: context)
            try validate { try domain.validate() }
            if try await call({ try await store.domain(host: domain.host) }) != nil {
                throw APIError(.conflict, "conflict", "\(domain.host) is already a domain")
            }
            try await call { try await store.save(domain) }
            await changed(.domains)
            return try APICoding.response(domain, status: .created)
        }
        api.get("domains/:host") { _, context in
            let host = try context.parameters.require("host")
            guard let domain = try await call({ try await store.domain(host: host) }), domain.host == host.lowercased() else {
                throw APIError.notFound("no domain '\(host)'")
            }
            return try APICoding.response(domain)
        }
        api.put("domains/:host") { request, context in
            let host = try context.parameters.require("host").lowercased()
            let domain = try await APICoding.decode(Domain.self, from: request, context: context)
            guard domain.host == host else { throw APIError(.badRequest, "invalid", "the body's host is not the URL's", field: "host") }
            try validate { try domain.validate() }
            guard try await call({ try await store.domain(host: host) })?.host == host else { throw APIError.notFound("no domain '\(host)'") }
            try await call { try await store.save(domain) }
            await changed(.domains, .links(domain: host))
            return try APICoding.response(domain)
        }
        api.delete("domains/:host") { _, context in
            let host = try context.parameters.require("host")
            try await onResource { try await store.deleteDomain(host: host) }
            await changed(.domains, .links(domain: host))
            return Response(status: .noContent)
        }

        api.get("links") { request, _ in
            let query = request.uri.queryParameters
            let limit = try integer(query.get("limit"), name: "limit", default: 50, range: 1...1000)
            let offset = try integer(query.get("offset"), name: "offset", default: 0, range: 0...Int(Int32.max))
            let links = try await call {
                try await store.links(LinkQuery(domain: query.get("domain"), campaign: query.get("campaign"), tag: query.get("tag"),
                                                text: query.get("q"), limit: limit + 1, offset: offset))
            }
            return try APICoding.response(Page(items: Array(links.prefix(limit)), limit: limit, offset: offset,
                                               nextOffset: links.count > limit ? offset + limit : nil))
        }
        api.post("links") { request, context in
            let link = try await APICoding.decode(Link.self, from: request, context: context)
            let created = try await create([link])
            return try APICoding.response(created[0], status: .created)
        }
        api.post("links/bulk") { request, context in
            let bulk = try await APICoding.decode(BulkLinks.self, from: request, context: context, limit: 8 << 20)
            guard !bulk.links.isEmpty else { throw APIError(.badRequest, "invalid", "'links' is empty", field: "links") }
            guard bulk.links.count <= Self.maximumBulk else {
                throw APIError(.contentTooLarge, "too_many", "at most \(Self.maximumBulk) links per call; got \(bulk.links.count)", field: "links")
            }
            return try APICoding.response(["links": try await create(bulk.links)], status: .created)
        }
        api.get("links/:domain/:code") { _, context in
            let (domain, code) = (try context.parameters.require("domain"), try context.parameters.require("code"))
            guard let link = try await call({ try await store.link(domain: domain, code: code) }) else {
                throw APIError.notFound("no link '\(code)' on \(domain)")
            }
            return try APICoding.response(link)
        }
        api.put("links/:domain/:code") { request, context in
            let (domain, code) = (try context.parameters.require("domain").lowercased(), try context.parameters.require("code"))
            var link = try await APICoding.decode(Link.self, from: request, context: context)
            guard link.domain == domain, link.code == nil || link.code == code else {
                throw APIError(.badRequest, "invalid", "the body's domain and code must be the URL's", field: link.domain == domain ? "code" : "domain")
            }
            link.code = code
            try await onResource { try await store.update(link) }
            await changed(.link(domain: domain, code: code))
            return try APICoding.response(link)
        }
        api.delete("links/:domain/:code") { _, context in
            let (domain, code) = (try context.parameters.require("domain"), try context.parameters.require("code"))
            try await onResource { try await store.deleteLink(domain: domain, code: code) }
            await changed(.link(domain: domain, code: code))
            return Response(status: .noContent)
        }
    }

    /// Validates and stores links all-or-nothing, generating unguessable codes where none is given.
    private func create(_ links: [Link]) async throws -> [Link] {
        var prepared: [Link] = []
        var seen = Set<String>()
        var apps: [String: App] = [:]
        for (index, var link) in links.enumerated() {
            let prefix = links.count > 1 ? "links[\(index)]." : ""
            if link.code == nil { link.code = LinkCodes.generate() }
            if apps[link.domain] == nil {
                guard let domain = try await call({ try await store.domain(host: link.domain) }), domain.host == link.domain,
                      let app = try await call({ try await store.app(id: domain.appID) }) else {
                    throw APIError(.unprocessableContent, "unknown_reference", "no domain '\(link.domain)'", field: prefix + "domain")
                }
                apps[link.domain] = app
            }
            do {
                try link.validate(for: apps[link.domain])
            } catch {
                throw APIError(.badRequest, "invalid", error.message, field: prefix + error.field)
            }
            guard seen.insert(link.domain + "/" + link.code!).inserted else {
                throw APIError(.conflict, "conflict", "the code '\(link.code!)' appears twice in the request", field: prefix + "code")
            }
            prepared.append(link)
        }
        do {
            try await store.insert(prepared)
        } catch {
            throw APIError.from(error)
        }
        for link in prepared { await changed(.link(domain: link.domain, code: link.code!)) }
        return prepared
    }

    /// Forgets what the change touched here at once, and tells the other nodes.
    private func changed(_ changes: StoreChange...) async {
        await services.changed(changes)
    }

    private func validate(_ body: () throws -> Void) throws {
        do { try body() } catch let error as ValidationError { throw APIError.invalid(error) }
    }

    private func integer(_ text: String?, name: String, default value: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw APIError(.badRequest, "invalid", "'\(name)' must be a whole number from \(range.lowerBound) to \(range.upperBound)", field: name)
        }
        return number
    }
}

/// Runs a store call, turning its refusal into the API's error.
func call<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as StoreError {
        throw APIError.from(error)
    }
}

/// A store call on the resource the URL names: its absence is a 404, not a bad reference.
func onResource<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as StoreError where error.isNotFound {
        throw APIError.notFound(error.message)
    } catch let error as StoreError {
        throw APIError.from(error)
    }
}

/// Short codes for links: 8 characters of an alphabet without look-alikes, from the system's
/// random generator (~ 2^46 codes: not guessable by enumeration).
public enum LinkCodes {
    static let alphabet = Array("23456789abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ")

    public static func generate(length: Int = 8) -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
    }
}
