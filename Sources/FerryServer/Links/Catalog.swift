import Crypto
import FerryKit
import FerryStore
import Foundation
import NIOConcurrencyHelpers

/// The in-memory view of the store that answers clicks: domains by host, apps with their
/// generated association files, and compiled links. After the first request for a link, a
/// click does no database read. Writes through the API call the `invalidate` methods, so a
/// change takes effect on the next request.
public final class Catalog<Store: LinkStore>: Sendable {
    /// An app with everything generated from it once.
    public struct AppEntry: Sendable {
        public let app: App
        public let appleAssociation: Data
        public let assetLinks: Data
        /// Strong ETag of each file.
        public let appleAssociationETag: String
        public let assetLinksETag: String
        public let generatedAt: Date
    }

    private struct Cached<Value: Sendable>: Sendable {
        var value: Value?
        var expires: Date
        /// For compiled links: when the app they were compiled against was generated.
        var appGeneration: Date? = nil
    }

    private struct State: Sendable {
        var domains: [String: Cached<Domain>] = [:]
        var apps: [String: AppEntry] = [:]
        var links: [String: Cached<CompiledLink>] = [:]
    }

    public let store: Store
    private let state = NIOLockedValueBox(State())
    /// How long "no such domain" or "no such code" is remembered, so a flood of unknown codes
    /// does not become a flood of queries.
    private let negativeLifetime: TimeInterval
    /// Entries are re-checked against the store after this long (several nodes share a store).
    private let lifetime: TimeInterval
    private let maximumLinks: Int

    public init(store: Store, lifetime: TimeInterval = 60, negativeLifetime: TimeInterval = 5, maximumLinks: Int = 200_000) {
        self.store = store
        self.lifetime = lifetime
        self.negativeLifetime = negativeLifetime
        self.maximumLinks = maximumLinks
    }

    public func domain(host: String, now: Date = Date()) async throws(StoreError) -> Domain? {
        let host = host.lowercased()
        if let cached = state.withLockedValue({ $0.domains[host] }), cached.expires > now { return cached.value }
        let domain = try await store.domain(host: host)
        state.withLockedValue { $0.domains[host] = Cached(value: domain, expires: now + (domain == nil ? negativeLifetime : lifetime)) }
        return domain
    }

    public func app(id: String, now: Date = Date()) async throws(StoreError) -> AppEntry? {
        if let entry = state.withLockedValue({ $0.apps[id] }), entry.generatedAt + lifetime > now { return entry }
        guard let app = try await store.app(id: id) else { return nil }
        let entry = Self.entry(for: app, at: now)
        state.withLockedValue { $0.apps[id] = entry }
        return entry
    }

    /// The compiled link, compiled against `app` (the entry the caller got from ``app(id:now:)``).
    public func link(domain: String, code: String, app: AppEntry, now: Date = Date()) async throws(StoreError) -> CompiledLink? {
        let key = domain + "/" + code
        // A cached link counts only if it was compiled against this generation of its app.
        if let cached = state.withLockedValue({ $0.links[key] }), cached.expires > now,
           cached.value == nil || cached.appGeneration == app.generatedAt {
            return cached.value
        }
        let compiled = try await store.link(domain: domain, code: code).map { CompiledLink($0, app: app.app) }
        state.withLockedValue { state in
            if state.links.count >= maximumLinks { state.links.removeAll(keepingCapacity: true) }
            state.links[key] = Cached(value: compiled, expires: now + (compiled == nil ? negativeLifetime : lifetime), appGeneration: app.generatedAt)
        }
        return compiled
    }

    public func invalidateLink(domain: String, code: String) {
        _ = state.withLockedValue { $0.links.removeValue(forKey: domain.lowercased() + "/" + code) }
    }

    /// Forgets an app and everything compiled against it.
    public func invalidateApp(id: String) {
        state.withLockedValue { state in
            state.apps.removeValue(forKey: id)
            state.links = state.links.filter { $0.value.value?.app.id != id }
        }
    }

    /// Forgets every link of a domain (after the domain changed or went away).
    public func invalidateLinks(domain: String) {
        state.withLockedValue { state in
            state.links = state.links.filter { !$0.key.hasPrefix(domain.lowercased() + "/") }
        }
    }

    public func invalidateDomains() {
        state.withLockedValue { $0.domains.removeAll() }
    }

    static func entry(for app: App, at date: Date) -> AppEntry {
        let aasa = AASAGenerator.data(for: app)
        let assetLinks = AssetLinksGenerator.data(for: app)
        return AppEntry(app: app, appleAssociation: aasa, assetLinks: assetLinks,
                        appleAssociationETag: etag(aasa), assetLinksETag: etag(assetLinks),
                        generatedAt: date)
    }

    static func etag(_ data: Data) -> String {
        "\"" + Hex.encode(SHA256.hash(data: data).prefix(16)) + "\""
    }
}
