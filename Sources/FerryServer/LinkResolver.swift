import Foundation
import FerryKit
import FerryStore

/// The first three steps of a click (DESIGN.md §2): find the domain by `Host` and the link by
/// code or route, classify the visitor, decide. The HTTP layer renders the decision and records
/// the visit.
public struct LinkResolver<Store: LinkStore>: Sendable {
    public struct Resolution: Sendable {
        public var domain: Domain
        public var app: App
        /// The stored link or the route link; `nil` when the path is neither.
        public var link: Link?
        public var visitor: Visitor
        public var decision: Decision
    }

    let store: Store
    let classifier: VisitorClassifier

    public init(store: Store, classifier: VisitorClassifier = .shared) {
        self.store = store
        self.classifier = classifier
    }

    /// `nil` when the host is not a domain Ferry serves: the caller answers a plain 404 that
    /// reveals nothing about other apps.
    public func resolve(
        host: String, path: String, query: [LinkRequest.QueryItem], headers: RequestHeaders,
        now: Date = Date(), deferredToken: String? = nil
    ) async throws(StoreError) -> Resolution? {
        let host = Self.hostWithoutPort(host)
        guard let domain = try await store.domain(host: host), let app = try await store.app(id: domain.appID) else { return nil }
        let link = try await findLink(path: path, query: query, domain: domain, app: app)
        let visitor = classifier.classify(headers)
        let request = LinkRequest(domain: domain, host: host, path: path, query: query, now: now, deferredToken: deferredToken)
        return Resolution(domain: domain, app: app, link: link, visitor: visitor,
                          decision: decide(link: link, app: app, visitor: visitor, request: request))
    }

    private func findLink(path: String, query: [LinkRequest.QueryItem], domain: Domain, app: App) async throws(StoreError) -> Link? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        if segments.count == 1, Link.problem(withCode: String(segments[0])) == nil,
           let stored = try await store.link(domain: domain.host, code: String(segments[0])) {
            return stored
        }
        guard app.route(matching: path) != nil else { return nil }
        return Link.routeLink(domain: domain.host, path: path, query: query.map { ($0.name, $0.value) })
    }

    static func hostWithoutPort(_ host: String) -> String {
        guard !host.hasPrefix("["), let colon = host.lastIndex(of: ":") else { return host.lowercased() }
        return host[..<colon].lowercased()
    }
}
