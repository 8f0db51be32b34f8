import FerryKit
import FerryStore
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import ServiceLifecycle

/// How a Ferry server runs.
public struct ServerSettings: Sendable {
    public var host: String
    public var port: Int
    /// The installation's secret: keys the IP hashes.
    public var secret: String
    /// Proxies whose `X-Forwarded-For` / `Forwarded` headers are believed.
    public var trustedProxies: [String]
    /// Where people and scripts reach this server's API (behind its proxy), e.g.
    /// `https://links.example.com`; `http://HOST:PORT` when not set.
    public var publicURL: URL
    /// `/sdk/v1` requests per minute from one address, and per app SDK key (each also allowed
    /// as a burst).
    public var sdkRequestsPerMinutePerIP: Int
    public var sdkRequestsPerMinutePerKey: Int
    /// Seconds a node serves a cached link, domain or app before reading it again; `nil` for
    /// 60 on a store of its own, 15 on one shared by several nodes.
    public var cacheLifetime: TimeInterval?
    /// Days raw visits are kept (statistics come from counters and keep everything); 0 keeps
    /// them for ever.
    public var visitRetentionDays: Int
    /// The header in which a trusted proxy names the client's country; `nil` for none.
    public var countryHeader: String?
    /// Whether webhooks may use `http://` URLs (a receiver on a private network, tests).
    public var webhooksAllowHTTP: Bool

    public init(host: String = "127.0.0.1", port: Int = 8080, secret: String, trustedProxies: [String] = [], publicURL: URL? = nil,
                sdkRequestsPerMinutePerIP: Int = 60, sdkRequestsPerMinutePerKey: Int = 60_000, cacheLifetime: TimeInterval? = nil,
                visitRetentionDays: Int = 90, countryHeader: String? = "CF-IPCountry", webhooksAllowHTTP: Bool = false) {
        self.host = host
        self.port = port
        self.secret = secret
        self.trustedProxies = trustedProxies
        self.publicURL = publicURL ?? URL(string: "http://\(host.contains(":") ? "[\(host)]" : host):\(port)")!
        self.sdkRequestsPerMinutePerIP = sdkRequestsPerMinutePerIP
        self.sdkRequestsPerMinutePerKey = sdkRequestsPerMinutePerKey
        self.cacheLifetime = cacheLifetime
        self.visitRetentionDays = visitRetentionDays
        self.countryHeader = countryHeader
        self.webhooksAllowHTTP = webhooksAllowHTTP
    }
}

/// The long-lived parts of a server: its cache, its visit recorder, its counters.
public struct FerryServices<Store: LinkStore>: Sendable {
    public let store: Store
    public let catalog: Catalog<Store>
    public let recorder: VisitRecorder<Store>
    public let webhooks: WebhookDispatcher<Store>
    public let metrics: ServerMetrics
    public let settings: ServerSettings
    public let logger: Logger
    let sdkLimiter: RateLimiter

    public init(store: Store, settings: ServerSettings, logger: Logger = Logger(label: "ferry"),
                recorder: VisitRecorder<Store>? = nil, webhooks: WebhookDispatcher<Store>? = nil) {
        self.store = store
        self.settings = settings
        self.logger = logger
        // Nodes sharing a database re-read cached entries sooner: a missed notification
        // cannot leave one stale for long.
        catalog = Catalog(store: store, lifetime: settings.cacheLifetime ?? (store is any SharedStore ? 15 : 60))
        // A write given up on must not be able to commit afterwards: PostgreSQL ends each of its
        // few statements within the statement timeout.
        let writeDeadline = (store as? PostgresStore).map { max(.seconds(30), $0.statementTimeout * 4) } ?? .seconds(30)
        self.recorder = recorder ?? VisitRecorder(store: store, writeDeadline: writeDeadline, logger: logger)
        self.webhooks = webhooks ?? WebhookDispatcher(store: store, logger: logger)
        metrics = ServerMetrics()
        sdkLimiter = RateLimiter(
            perIP: .init(burst: Double(settings.sdkRequestsPerMinutePerIP), rate: Double(settings.sdkRequestsPerMinutePerIP) / 60),
            perKey: .init(burst: Double(settings.sdkRequestsPerMinutePerKey), rate: Double(settings.sdkRequestsPerMinutePerKey) / 60))
    }
}

extension FerryServices {
    /// After a write: this node's cache forgets what changed, and other nodes are told.
    func changed(_ changes: [StoreChange]) async {
        for change in changes {
            catalog.apply(change)
            if let shared = store as? any SharedStore {
                do {
                    try await shared.announce(change)
                } catch {
                    logger.warning("other nodes were not told of \(change.payload): \(error); they see it within \(Int(catalog.lifetime)) s")
                }
            }
        }
    }
}

/// What answers every request: the public side for link domains, and for everything else the
/// router (health, metrics, the API).
public struct FerryResponderBuilder<Store: LinkStore>: HTTPResponderBuilder {
    let services: FerryServices<Store>

    public init(_ services: FerryServices<Store>) {
        self.services = services
    }

    /// The router behind the public side: health, metrics and the API.
    public func makeRouter() -> Router<FerryRequestContext> {
        let router = Router(context: FerryRequestContext.self)
        router.addRoutes(HealthController(services: services).endpoints)
        APIController(services: services).addRoutes(to: router)
        SDKController(services: services, hasher: IPHasher(secret: services.settings.secret)).addRoutes(to: router)
        DashboardController(services: services).addRoutes(to: router)
        return router
    }

    public func buildResponder() -> FerryResponder<Store> {
        FerryResponder(metrics: services.metrics, publicSide: makePublicSide(), router: makeRouter().buildResponder())
    }

    func makePublicSide() -> PublicSide<Store> {
        PublicSide(
            catalog: services.catalog, recorder: services.recorder,
            clientAddress: ClientAddress(trustedProxies: services.settings.trustedProxies, countryHeader: services.settings.countryHeader),
            hasher: IPHasher(secret: services.settings.secret), metrics: services.metrics)
    }
}

/// Hummingbird's router matches paths only; links are found by host first, so the public side
/// wraps the router rather than sitting in it as a middleware (which runs only on matched routes).
public struct FerryResponder<Store: LinkStore>: HTTPResponder {
    public typealias Context = FerryRequestContext
    let metrics: ServerMetrics
    let publicSide: PublicSide<Store>
    let router: RouterResponder<FerryRequestContext>

    public func respond(to request: Request, context: Context) async throws -> Response {
        do {
            let response = try await publicSide.handle(request, context: context) { request, context in
                try await router.respond(to: request, context: context)
            }
            metrics.answered(status: response.status.code)
            return response
        } catch let error as HTTPResponseError {
            metrics.answered(status: error.status.code)
            throw error
        } catch {
            metrics.answered(status: 500)
            throw error
        }
    }
}

/// The responder tests and `ferry serve` use.
public func buildRouter<Store: LinkStore>(_ services: FerryServices<Store>) -> FerryResponderBuilder<Store> {
    FerryResponderBuilder(services)
}

/// The application `ferry serve` runs and tests start; SIGTERM stops it gracefully: no new
/// connections, in-flight requests finished, every queued visit written.
public func buildApplication<Store: LinkStore>(_ services: FerryServices<Store>) -> some ApplicationProtocol {
    let builder = buildRouter(services)
    let publicSide = builder.makePublicSide()
    let fastPath = HTTP1Channel.Configuration(additionalChannelHandlers: [
        LinkFastPath(publicSide: publicSide, metrics: services.metrics, serverName: serverName)
    ])
    var background: [any Service] = [services.recorder, services.webhooks, Janitor(store: services.store, retentionDays: services.settings.visitRetentionDays, logger: services.logger)]
    if let shared = services.store as? any SharedStore {
        let catalog = services.catalog
        background.append(CatalogSync(store: shared, logger: services.logger) { change in
            if let change { catalog.apply(change) } else { catalog.expireAll() }
        })
    }
    return Application(
        router: builder,
        server: .http1(configuration: fastPath),
        configuration: .init(address: .hostname(services.settings.host, port: services.settings.port), serverName: serverName),
        services: background,
        logger: services.logger)
}

/// The `Server` header of every response.
let serverName = "Ferry"

/// `/healthz` (the process answers), `/readyz` (the store answers), `/metrics`.
struct HealthController<Store: LinkStore> {
    let services: FerryServices<Store>

    var endpoints: RouteCollection<FerryRequestContext> {
        let routes = RouteCollection(context: FerryRequestContext.self)
        routes.get("healthz") { _, _ in Responses.text(.ok, "ok\n").response }
        routes.get("readyz") { _, _ in
            do {
                _ = try await withTimeout(.seconds(2)) { [store = services.store] in try await store.domains(appID: "-") }
                return Responses.text(.ok, "ready\n").response
            } catch {
                return Responses.text(.serviceUnavailable, "not ready: \(error)\n").response
            }
        }
        routes.get("metrics") { _, _ in
            let counts = services.recorder.counts
            var answer = Responses.text(.ok, services.metrics.exposition(
                visits: (counts.queued, counts.written, counts.dropped, counts.pending)))
            answer.headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return answer.response
        }
        return routes
    }
}
