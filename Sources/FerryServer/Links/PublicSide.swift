import FerryKit
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// Everything served on a link domain: links, route paths, the association files and Ferry's
/// own `/_ferry/` paths. Requests to any other host, and to the API and health paths, go on to
/// the router; an unknown host never sees another app's data.
public struct PublicSide<Store: LinkStore>: RouterMiddleware {
    public typealias Context = FerryRequestContext

    let catalog: Catalog<Store>
    let recorder: VisitRecorder<Store>
    let clientAddress: ClientAddress
    let hasher: IPHasher
    let metrics: ServerMetrics


    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if routerPrefixes.contains(where: { path.hasPrefix($0) }) { return try await next(request, context) }
        // HTTP/1 servers turn `Host` into the authority; a request built by hand may carry the header.
        let host = Self.hostWithoutPort(request.headers[.hostHeader] ?? request.head.authority ?? "")
        let head = request.method == .head
        let domain: Domain?
        let entry: Catalog<Store>.AppEntry?
        do {
            domain = try await catalog.domain(host: host)
            entry = try await domain.asyncMap { try await catalog.app(id: $0.appID) } ?? nil
        } catch {
            context.logger.error("store unavailable while resolving \(host): \(error)")
            return Responses.text(.serviceUnavailable, "Service temporarily unavailable\n", head: head)
        }
        guard let domain, let entry else {
            return try await next(request, context)
        }
        guard request.method == .get || head else {
            return Responses.text(.methodNotAllowed, "Method Not Allowed\n")
        }
        switch path {
        case "/.well-known/apple-app-site-association", "/apple-app-site-association":
            return wellKnown(entry.appleAssociation, etag: entry.appleAssociationETag, entry: entry, request: request)
        case "/.well-known/assetlinks.json":
            return wellKnown(entry.assetLinks, etag: entry.assetLinksETag, entry: entry, request: request)
        case AASAGenerator.webFallbackPath:
            return try await webFallback(request, domain: domain, entry: entry)
        default:
            if path.hasPrefix(AASAGenerator.excludedPrefix) || path.hasPrefix("/.well-known/") {
                return Responses.page(.notFound, PageRenderer.notFound(strings: .english), head: head)
            }
            return try await link(request, context: context, host: host, domain: domain, entry: entry)
        }
    }

    /// The association files: `application/json`, no redirect, no cookie, cacheable, with
    /// ETag and Last-Modified, and `304` for a matching `If-None-Match`.
    private func wellKnown(_ data: Data, etag: String, entry: Catalog<Store>.AppEntry, request: Request) -> Response {
        let lastModified = HTTPDate.format(entry.generatedAt)
        if let match = request.headers[.ifNoneMatch], match.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag || $0.trimmingCharacters(in: .whitespaces) == "*" }) {
            return Response(status: .notModified, headers: [.eTag: etag, .lastModified: lastModified, .cacheControl: "public, max-age=3600"])
        }
        return Responses.json(.ok, data, head: request.method == .head,
                              headers: [.eTag: etag, .lastModified: lastModified, .cacheControl: "public, max-age=3600"])
    }

    /// `/_ferry/web?path=/u/42`: the web page of a route or link, for app versions too old for
    /// it. The AASA excludes this path, so iOS does not send the visitor back into the app.
    private func webFallback(_ request: Request, domain: Domain, entry: Catalog<Store>.AppEntry) async throws -> Response {
        let app = entry.app
        guard let target = request.uri.queryParameters.get("path"), target.hasPrefix("/"), !target.hasPrefix("//") else {
            return Responses.page(.notFound, PageRenderer.notFound(strings: .english), head: request.method == .head)
        }
        if let match = app.route(matching: target) {
            return Responses.redirect(match.route.webURL(parameters: match.parameters, app: app, path: target).absoluteString)
        }
        let code = String(target.dropFirst())
        if Link.problem(withCode: code) == nil, let compiled = try await catalog.link(domain: domain.host, code: code, app: entry) {
            return Responses.redirect(compiled.desktopURL)
        }
        return Responses.page(.notFound, PageRenderer.notFound(strings: .english), head: request.method == .head)
    }

    private func link(_ request: Request, context: Context, host: String, domain: Domain, entry: Catalog<Store>.AppEntry) async throws -> Response {
        let app = entry.app
        let path = request.uri.path
        let head = request.method == .head
        let query = request.uri.queryParameters.map { LinkRequest.QueryItem(String($0.key), String($0.value)) }
        let now = Date()
        let compiled: CompiledLink?
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        if segments.count == 1, Link.problem(withCode: String(segments[0])) == nil,
           let stored = try await catalog.link(domain: domain.host, code: String(segments[0]), app: entry) {
            compiled = stored
        } else if app.route(matching: path) != nil {
            compiled = CompiledLink(Link.routeLink(domain: domain.host, path: path, query: query.map { ($0.name, $0.value) }), app: app)
        } else {
            compiled = nil
        }
        let headers = RequestHeaders(
            userAgent: request.headers[.userAgent] ?? "", acceptLanguage: request.headers[.acceptLanguage],
            platformHint: request.headers[.secCHUAPlatform], platformVersionHint: request.headers[.secCHUAPlatformVersion],
            mobileHint: request.headers[.secCHUAMobile], modelHint: request.headers[.secCHUAModel])
        let visitor = VisitorClassifier.shared.classify(headers)
        let linkRequest = LinkRequest(domain: domain, host: host, path: path, query: query, now: now, deferredToken: Tokens.random())
        let decision = decide(compiled, visitor: visitor, request: linkRequest)
        metrics.decided(decision.kind)
        if let compiled {
            let peer = context.remoteAddress?.ipAddress
            recorder.record(Visit(
                at: now, domain: domain.host, code: compiled.link.code, path: path, visitor: visitor, decision: decision.kind,
                referrerHost: request.headers[.referer].flatMap { URLComponents(string: $0)?.host?.lowercased() },
                tags: compiled.link.tags, ipHash: hasher.hash(clientAddress.clientIP(peer: peer, headers: request.headers))))
        }
        return Self.respond(decision, visitor: visitor, head: head)
    }

    /// `go.acme.com:443` → `go.acme.com`; IPv6 literals keep their brackets.
    static func hostWithoutPort(_ host: String) -> String {
        guard !host.hasPrefix("["), let colon = host.lastIndex(of: ":") else { return host.lowercased() }
        return host[..<colon].lowercased()
    }

    static func respond(_ decision: Decision, visitor: Visitor, head: Bool) -> Response {
        // Only pages need the visitor's languages, so they are read when a page is rendered.
        let strings = { PageStrings.forLanguages(visitor.languages) }
        switch decision {
        case .redirect(let location, _):
            return Responses.redirect(location)
        case .crawlerPreview(let page):
            return Responses.page(.ok, PageRenderer.crawlerPreview(page, strings: strings()), head: head, cacheable: true)
        case .previewPage(let page):
            return Responses.page(.ok, PageRenderer.previewPage(page, strings: strings()), head: head)
        case .openInBrowser(let page):
            return Responses.page(.ok, PageRenderer.openInBrowser(page, strings: strings()), head: head)
        case .ambiguousIPad(let probe):
            return Responses.page(.ok, PageRenderer.iPadProbe(probe, strings: strings()), head: head)
        case .gone(let page):
            return Responses.page(.gone, PageRenderer.gone(page, strings: strings()), head: head)
        case .notFound:
            return Responses.page(.notFound, PageRenderer.notFound(strings: strings()), head: head)
        }
    }
}

extension Optional {
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        switch self {
        case .some(let value): try await transform(value)
        case .none: nil
        }
    }
}

/// Paths that belong to the router on every host.
let routerPrefixes = ["/api/", "/sdk/", "/dashboard", "/healthz", "/readyz", "/metrics"]

/// `Last-Modified` dates (RFC 9110 IMF-fixdate).
enum HTTPDate {
    static func format(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
