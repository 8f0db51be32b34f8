import FerryKit
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers

extension HTTPField.Name {
    static let ferrySDKKey = Self("X-Ferry-SDK-Key")!
}

/// Rate limits and the app's SDK key (`X-Ferry-SDK-Key`) for every `/sdk/v1` route. The
/// address is limited before the key is even looked up, so guessing keys is slow.
struct SDKKeyMiddleware<Store: LinkStore>: RouterMiddleware {
    typealias Context = FerryRequestContext
    let store: Store
    let limiter: RateLimiter
    let clientAddress: ClientAddress

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let ip = clientAddress.clientIP(peer: context.remoteAddress?.ipAddress, headers: request.headers)
        if let wait = limiter.admit(ip: ip) { throw APIError.tooManyRequests(retryAfter: wait) }
        guard let key = request.headers[.ferrySDKKey]?.trimmingCharacters(in: .whitespaces), key.hasPrefix(App.sdkKeyPrefix),
              let app = try await call({ try await store.app(sdkKey: key) }) else {
            throw APIError(.unauthorized, "unauthorized", "send the app's SDK key as 'X-Ferry-SDK-Key' (see 'ferry app show')")
        }
        if let wait = limiter.admit(key: key) { throw APIError.tooManyRequests(retryAfter: wait) }
        var context = context
        context.sdkApp = app
        context.clientIP = ip
        return try await next(request, context)
    }
}

/// The API apps call through the `Ferry` library, under `/sdk/v1`: the first launch after an
/// install (`install`), an open by one of the app's links (`open`), and resolving a short
/// code (`links/{code}`).
struct SDKController<Store: LinkStore> {
    let services: FerryServices<Store>
    let hasher: IPHasher
    let matcher = DeferredMatcher()

    var store: Store { services.store }
    var catalog: Catalog<Store> { services.catalog }

    func addRoutes(to router: Router<FerryRequestContext>) {
        let sdk = router.group("sdk/v1").add(middleware: SDKKeyMiddleware(
            store: store, limiter: services.sdkLimiter, clientAddress: ClientAddress(trustedProxies: services.settings.trustedProxies)))
        sdk.post("install") { request, context in
            let report = try await APICoding.decode(InstallReport.self, from: request, context: context, limit: 16 << 10)
            return try APICoding.response(try await install(report, app: try context.requireSDKApp(), ip: context.clientIP ?? "unknown"))
        }
        sdk.post("open") { request, context in
            let report = try await APICoding.decode(OpenReport.self, from: request, context: context, limit: 16 << 10)
            let app = try context.requireSDKApp()
            let link = try await resolve(url: report.url, app: app, platform: report.platform, appVersion: report.appVersion)
            let event = AppEvent(at: Date(), appID: app.id, kind: .open, platform: report.platform, appVersion: report.appVersion,
                                 link: link, ipHash: hasher.hash(context.clientIP ?? "unknown"))
            try await call { try await store.record(events: [event]) }
            await services.webhooks.enqueue(event)
            return try APICoding.response(link)
        }
        sdk.get("links/:code") { request, context in
            let app = try context.requireSDKApp()
            let code = try context.parameters.require("code")
            let platform = try request.uri.queryParameters.get("platform").map { text in
                guard let platform = Platform(rawValue: text) else {
                    throw APIError(.badRequest, "invalid", "'platform' is one of ios, ipados, android", field: "platform")
                }
                return platform
            } ?? .other
            let appVersion = try request.uri.queryParameters.get("appVersion").map { text in
                guard let version = Version(text) else { throw APIError(.badRequest, "invalid", "'\(text)' is not a version", field: "appVersion") }
                return version
            }
            let domains = try await call { try await store.domains(appID: app.id) }
            let wanted = request.uri.queryParameters.get("domain")?.lowercased()
            for domain in domains where wanted == nil || domain.host == wanted || domain.alternateHost == wanted {
                if let link = try await call({ try await store.link(domain: domain.host, code: code) }) {
                    guard link.isLive(at: Date()) else { throw APIError.gone(code) }
                    return try APICoding.response(ResolvedLink(link: link, app: app, platform: platform, appVersion: appVersion))
                }
            }
            throw APIError.notFound("no link '\(code)' on the domains of app '\(app.id)'")
        }
    }

    /// The first launch: the token's click (deterministic), else — when the app allows it on
    /// this platform — the one click that clearly fits the device (probabilistic), else none.
    /// A presented token is never replaced by a guess. Recorded either way.
    func install(_ report: InstallReport, app: App, ip: String, now: Date = Date()) async throws -> InstallAnswer {
        let ipHash = hasher.hash(ip)
        var answer = InstallAnswer.none
        if let token = report.deferredToken {
            var intent = try await call { try await store.consumeIntent(token: token, appID: app.id, at: now) }
            if intent == nil {
                // The click may have been answered a moment ago and still be in a queue: this
                // node's (written now) or another node's (written within its interval).
                await services.recorder.flush()
                for attempt in 0..<(store is any SharedStore ? 10 : 1) {
                    if attempt > 0 { try await Task.sleep(for: .milliseconds(100)) }
                    intent = try await call { try await store.consumeIntent(token: token, appID: app.id, at: now) }
                    if intent != nil { break }
                }
            }
            if let intent, let link = try await resolve(intent, app: app, report: report, now: now) {
                answer = InstallAnswer(matchType: .deterministic, confidence: 1, link: link)
            }
        } else if app.allowsProbabilisticMatching(on: report.platform) {
            await services.recorder.flush()
            let candidates = try await call { try await store.intentCandidates(appID: app.id, ipHash: ipHash, at: now) }
            if let (best, confidence) = matcher.best(for: report.signals(ipHash: ipHash), at: now, among: candidates),
               let intent = try await call({ try await store.consumeIntent(token: best.token, appID: app.id, at: now) }),
               let link = try await resolve(intent, app: app, report: report, now: now) {
                answer = InstallAnswer(matchType: .probabilistic, confidence: (confidence * 100).rounded() / 100, link: link)
            }
        }
        let event = AppEvent(at: now, appID: app.id, kind: .install, platform: report.platform, appVersion: report.appVersion,
                             matchType: answer.matchType, confidence: answer.confidence, link: answer.link, ipHash: ipHash)
        try await call { try await store.record(events: [event]) }
        await services.webhooks.enqueue(event)
        return answer
    }

    /// The link an intent was left by, if it still exists and is live.
    private func resolve(_ intent: DeferredIntent, app: App, report: InstallReport, now: Date) async throws -> ResolvedLink? {
        let link: Link?
        if let code = intent.code {
            link = try await call { try await store.link(domain: intent.domain, code: code) }
        } else {
            let components = URLComponents(string: "https://\(intent.domain)\(intent.path)")
            link = Link.routeLink(domain: intent.domain, path: components?.path ?? intent.path,
                                  query: (components?.queryItems ?? []).map { ($0.name, $0.value ?? "") })
        }
        guard let link, link.isLive(at: now) else { return nil }
        return ResolvedLink(link: link, app: app, platform: report.platform, appVersion: report.appVersion)
    }

    /// A URL that opened the app: a short link or a route URL on one of the app's domains, or a
    /// URL of its custom scheme (`acme://u/42` as `/u/42`).
    func resolve(url text: String, app: App, platform: Platform, appVersion: Version?) async throws -> ResolvedLink {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw APIError(.badRequest, "invalid", "'url' is not a URL", field: "url")
        }
        let domain: Domain?
        let path: String
        let schemes = [app.ios?.customScheme, app.android?.customScheme].compactMap { $0?.lowercased() }
        if scheme == "https" || scheme == "http" {
            domain = try await call { try await catalog.domain(host: components.host ?? "") }
            path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        } else if schemes.contains(scheme) {
            domain = try await call { try await store.domains(appID: app.id).first }
            path = URLRules.appPath(ofCustomScheme: components)
        } else {
            throw APIError.notFound("'\(text)' is not a link of app '\(app.id)'")
        }
        guard let domain, domain.appID == app.id else { throw APIError.notFound("'\(text)' is not a link of app '\(app.id)'") }
        let query = (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }
        if let code = LinkPaths.code(in: path), let link = try await call({ try await store.link(domain: domain.host, code: code) }) {
            guard link.isLive(at: Date()) else { throw APIError.gone(code) }
            return ResolvedLink(link: link, app: app, platform: platform, appVersion: appVersion)
        }
        guard app.route(matching: path) != nil else { throw APIError.notFound("'\(text)' is not a link of app '\(app.id)'") }
        return ResolvedLink(link: Link.routeLink(domain: domain.host, path: path, query: query), app: app, platform: platform, appVersion: appVersion)
    }
}

extension FerryRequestContext {
    func requireSDKApp() throws -> App {
        guard let sdkApp else { throw APIError(.unauthorized, "unauthorized", "send the app's SDK key as 'X-Ferry-SDK-Key'") }
        return sdkApp
    }
}

/// Token buckets per client address and per SDK key: a burst, then a steady rate. In memory,
/// per node (each node of a cluster limits on its own).
final class RateLimiter: Sendable {
    struct Limit: Sendable {
        /// Requests allowed at once.
        var burst: Double
        /// Requests per second after the burst.
        var rate: Double
    }

    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    private let perIP: Limit
    private let perKey: Limit
    private let buckets = NIOLockedValueBox([String: Bucket]())

    init(perIP: Limit, perKey: Limit) {
        self.perIP = perIP
        self.perKey = perKey
    }

    /// `nil` when the request may go on, else the seconds to wait.
    func admit(ip: String, now: Double = Date().timeIntervalSince1970) -> Int? {
        take("ip:" + ip, limit: perIP, now: now)
    }

    func admit(key: String, now: Double = Date().timeIntervalSince1970) -> Int? {
        take("key:" + key, limit: perKey, now: now)
    }

    private func take(_ name: String, limit: Limit, now: Double) -> Int? {
        buckets.withLockedValue { buckets in
            if buckets.count > 100_000 {
                // Forget buckets that have refilled: they hold no information.
                buckets = buckets.filter { $0.value.tokens + (now - $0.value.updated) * limit.rate < limit.burst }
            }
            var bucket = buckets[name] ?? Bucket(tokens: limit.burst, updated: now)
            bucket.tokens = min(limit.burst, bucket.tokens + (now - bucket.updated) * limit.rate)
            bucket.updated = now
            defer { buckets[name] = bucket }
            guard bucket.tokens >= 1 else { return max(1, Int(((1 - bucket.tokens) / limit.rate).rounded(.up))) }
            bucket.tokens -= 1
            return nil
        }
    }
}

/// Paths of the public side, shared by the link server and the SDK API.
enum LinkPaths {
    /// The code in a short-link path (`/summer-sale` → `summer-sale`), if it could be one.
    static func code(in path: String) -> String? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        guard segments.count == 1 else { return nil }
        let code = String(segments[0])
        return Link.problem(withCode: code) == nil ? code : nil
    }
}
