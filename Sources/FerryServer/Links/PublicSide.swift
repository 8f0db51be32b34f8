import FerryKit
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
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
        if Self.belongsToRouter(path) { return try await next(request, context) }
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
            return Responses.text(.serviceUnavailable, "Service temporarily unavailable\n", head: head).response
        }
        guard let domain, let entry else {
            return try await next(request, context)
        }
        if path == Self.beaconPath {
            guard request.method == .post else { return Responses.text(.methodNotAllowed, "Method Not Allowed\n").response }
            return await beacon(request).response
        }
        guard request.method == .get || head else {
            return Responses.text(.methodNotAllowed, "Method Not Allowed\n").response
        }
        switch path {
        case "/.well-known/apple-app-site-association", "/apple-app-site-association":
            return wellKnown(entry.appleAssociation, etag: entry.appleAssociationETag, entry: entry, request: request).response
        case "/.well-known/assetlinks.json":
            return wellKnown(entry.assetLinks, etag: entry.assetLinksETag, entry: entry, request: request).response
        case AASAGenerator.webFallbackPath:
            return try await webFallback(request, domain: domain, entry: entry).response
        default:
            if Self.isReserved(path) {
                return Responses.page(.notFound, PageRenderer.notFound(strings: .english), head: head).response
            }
            let code = LinkPaths.code(in: path)
            let stored: CompiledLink?
            do {
                stored = try await code.asyncMap { try await catalog.link(domain: domain.host, code: $0, app: entry) } ?? nil
            } catch {
                context.logger.error("store unavailable while finding \(host)\(path): \(error)")
                return Responses.text(.serviceUnavailable, "Service temporarily unavailable\n", head: head).response
            }
            return answerLink(request.head, uri: request.uri, peer: context.remoteAddress?.ipAddress,
                              host: host, domain: domain, entry: entry, stored: stored).response
        }
    }

    /// The association files: `application/json`, no redirect, no cookie, cacheable, with
    /// ETag and Last-Modified, and `304` for a matching `If-None-Match`.
    private func wellKnown(_ data: Data, etag: String, entry: Catalog<Store>.AppEntry, request: Request) -> Answer {
        let lastModified = HTTPDate.format(entry.generatedAt)
        if let match = request.headers[.ifNoneMatch], match.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag || $0.trimmingCharacters(in: .whitespaces) == "*" }) {
            return Answer(status: .notModified, headers: [.eTag: etag, .lastModified: lastModified, .cacheControl: "public, max-age=3600"], body: ByteBuffer())
        }
        return Responses.json(.ok, data, head: request.method == .head,
                              headers: [.eTag: etag, .lastModified: lastModified, .cacheControl: "public, max-age=3600"])
    }

    /// `/_ferry/web?path=/u/42`: the web page of a route or link, for app versions too old for
    /// it. The AASA excludes this path, so iOS does not send the visitor back into the app.
    private func webFallback(_ request: Request, domain: Domain, entry: Catalog<Store>.AppEntry) async throws -> Answer {
        let app = entry.app
        guard let target = request.uri.queryParameters.get("path"), target.hasPrefix("/"), !target.hasPrefix("//") else {
            return Responses.page(.notFound, PageRenderer.notFound(strings: .english), head: request.method == .head)
        }
        if let match = app.route(matching: target) {
            return Responses.redirect(match.route.webURL(parameters: match.parameters, app: app, path: target).absoluteString)
        }
        if let code = LinkPaths.code(in: target), let compiled = try await catalog.link(domain: domain.host, code: code, app: entry) {
            return Responses.redirect(compiled.desktopURL)
        }
        return Responses.page(.notFound, PageRenderer.notFound(strings: .english), head: request.method == .head)
    }

    /// Answers a GET or HEAD from memory when the host's domain, its app and the link are all
    /// cached — what ``LinkFastPath`` calls on the event loop. `nil` when the request needs the
    /// store or is not a link request; the router path then answers it.
    func warmAnswer(_ head: HTTPRequest, peer: String?) -> Answer? {
        guard head.method == .get || head.method == .head else { return nil }
        let uri = URI(head.path ?? "/")
        let path = uri.path
        guard !Self.belongsToRouter(path), !Self.isReserved(path),
              path != "/apple-app-site-association" else { return nil }
        let host = Self.hostWithoutPort(head.headerFields[.hostHeader] ?? head.authority ?? "")
        guard let warm = catalog.warm(host: host, code: LinkPaths.code(in: path)) else { return nil }
        return answerLink(head, uri: uri, peer: peer, host: host, domain: warm.domain, entry: warm.entry, stored: warm.link)
    }

    /// A link or route request, once its stored link (if the path is a code) has been found:
    /// classify the visitor, decide, record the visit, render the answer.
    func answerLink(_ head: HTTPRequest, uri: URI, peer: String?, host: String, domain: Domain,
                    entry: Catalog<Store>.AppEntry, stored: CompiledLink?) -> Answer {
        let app = entry.app
        let path = uri.path
        let query = uri.queryParameters.map { LinkRequest.QueryItem(String($0.key), String($0.value)) }
        let now = Date()
        let compiled: CompiledLink?
        if let stored {
            compiled = stored
        } else if app.route(matching: path) != nil {
            compiled = CompiledLink(Link.routeLink(domain: domain.host, path: path, query: query.map { ($0.name, $0.value) }), app: app)
        } else {
            compiled = nil
        }
        let fields = head.headerFields
        let headers = RequestHeaders(
            userAgent: fields[.userAgent] ?? "", acceptLanguage: fields[.acceptLanguage],
            platformHint: fields[.secCHUAPlatform], platformVersionHint: fields[.secCHUAPlatformVersion],
            mobileHint: fields[.secCHUAMobile], modelHint: fields[.secCHUAModel])
        let visitor = VisitorClassifier.shared.classify(headers)
        let linkRequest = LinkRequest(domain: domain, host: host, path: path, query: query, now: now, deferredToken: Tokens.random())
        let decision = decide(compiled, visitor: visitor, request: linkRequest)
        let kind = decision.kind
        metrics.decided(kind)
        if let compiled {
            let ipHash = hasher.hash(clientAddress.clientIP(peer: peer, headers: fields))
            recorder.record(
                Visit(at: now, domain: domain.host, code: compiled.link.code, path: path, visitor: visitor, decision: kind,
                      referrerHost: fields[.referer].flatMap { URLComponents(string: $0)?.host?.lowercased() },
                      country: clientAddress.country(peer: peer, headers: fields), tags: compiled.link.tags, ipHash: ipHash),
                intent: Self.intent(for: decision, request: linkRequest, compiled: compiled, visitor: visitor, ipHash: ipHash))
        }
        return Self.respond(decision, visitor: visitor, head: head.method == .head)
    }

    /// The deferred intent a store-bound answer leaves: when its token travels with the answer,
    /// or when the app lets installs on this platform be matched by their signals. (A direct
    /// App Store redirect carries nothing, so it leaves one only in the second case.)
    static func intent(for decision: Decision, request: LinkRequest, compiled: CompiledLink, visitor: Visitor, ipHash: String) -> DeferredIntent? {
        guard decision.kind.leadsTowardStore, let token = request.deferredToken,
              decision.handsOut(token: token) || compiled.app.allowsProbabilisticMatching(on: visitor.platform) else { return nil }
        let app = compiled.app
        return DeferredIntent(
            token: token, appID: app.id, domain: request.domain.host, code: compiled.link.code, path: request.pathWithQuery,
            signals: DeviceSignals(ipHash: ipHash, platform: visitor.platform, osVersion: visitor.osVersion, deviceModel: visitor.model,
                                   languages: visitor.languages),
            createdAt: request.now, expiresAt: request.now + app.deferred.window)
    }

    /// `POST /_ferry/beacon`: what the preview page's script reports about the screen, time
    /// zone and languages of a device that got a token. Always `204`; nonsense is ignored.
    private func beacon(_ request: Request) async -> Answer {
        let noContent = Answer(status: .noContent, headers: [.cacheControl: "no-store"], body: ByteBuffer())
        guard let body = try? await request.body.collect(upTo: 4096),
              let report = try? JSONDecoder().decode(BeaconReport.self, from: Data(buffer: body)),
              let token = DeferredToken.valid(report.t) else { return noContent }
        let screen = report.w.flatMap { width in report.h.map { (width, $0) } }
            .flatMap { (1...10_000).contains($0.0) && (1...10_000).contains($0.1) ? Screen(width: $0.0, height: $0.1) : nil }
        let timeZone = report.tz.flatMap { $0.utf8.count <= 64 && !$0.isEmpty ? $0 : nil }
        let languages = (report.l ?? []).prefix(10).filter { (1...35).contains($0.utf8.count) }
        recorder.record(VisitRecorder.SignalsUpdate(token: token, screen: screen, timeZone: timeZone, languages: Array(languages)))
        return noContent
    }

    private struct BeaconReport: Decodable {
        var t: String
        var w: Int?
        var h: Int?
        var tz: String?
        var l: [String]?
    }

    /// Where preview pages report device signals for their token.
    static var beaconPath: String { AASAGenerator.excludedPrefix + "beacon" }

    static func belongsToRouter(_ path: String) -> Bool {
        routerPrefixes.contains { path.hasPrefix($0) }
    }

    /// Ferry's own paths and `/.well-known/`: never a link.
    static func isReserved(_ path: String) -> Bool {
        path.hasPrefix(AASAGenerator.excludedPrefix) || path.hasPrefix("/.well-known/")
    }

    /// `go.acme.com:443` → `go.acme.com`; IPv6 literals keep their brackets.
    static func hostWithoutPort(_ host: String) -> String {
        guard !host.hasPrefix("["), let colon = host.lastIndex(of: ":") else { return host.lowercased() }
        return host[..<colon].lowercased()
    }

    static func respond(_ decision: Decision, visitor: Visitor, head: Bool) -> Answer {
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

/// HTTP dates (RFC 9110 IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`) for `Date` and
/// `Last-Modified`, without a `DateFormatter` (slow to make, and not needed for a fixed format).
enum HTTPDate {
    private static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]  // 1970-01-01 was a Thursday
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func format(_ date: Date) -> String {
        format(seconds: Int(date.timeIntervalSince1970.rounded(.down)))
    }

    static func format(seconds: Int) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        // Days since 1970-01-01 to a civil date (H. Hinnant, "chrono-compatible low-level date algorithms").
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        let weekday = weekdays[((days % 7) + 7) % 7]
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
        return "\(weekday), \(two(day)) \(months[month - 1]) \(year) \(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)) GMT"
    }

    /// The current date, formatted at most once a second.
    struct Clock {
        private var second = Int.min
        private var text = ""

        mutating func now() -> String {
            let current = Int(Date().timeIntervalSince1970)
            if current != second {
                second = current
                text = HTTPDate.format(seconds: current)
            }
            return text
        }
    }
}
