import Atomics
import Crypto
import FerryKit
import FerryStore
import Foundation
import NIOConcurrencyHelpers

/// An app with everything generated from it once.
public struct AppCatalogEntry: Sendable {
    public let app: App
    public let appleAssociation: Data
    public let assetLinks: Data
    /// Strong ETag of each file.
    public let appleAssociationETag: String
    public let assetLinksETag: String
    public let generatedAt: Date
}

/// A link domain with its app, as the hot path remembers it per thread (see ``Catalog/warm(host:code:now:)``).
struct WarmHost {
    let catalog: ObjectIdentifier
    let host: String
    let domain: Domain
    let entry: AppCatalogEntry
    /// The domain's number among the catalog's link keys.
    let linkDomain: Int
    let expires: Date
    /// The catalog's generation when this was read: any invalidation makes it stale.
    let generation: Int
}

/// The in-memory view of the store that answers clicks: domains by host, apps with their
/// generated association files, and compiled links. After the first request for a link, a
/// click does no database read. Writes through the API call the `invalidate` methods, so a
/// change takes effect on the next request.
///
/// When the store cannot be reached, expired entries keep being served until it answers again.
///
/// Clicks arrive on every event loop at once, so the links are spread over several locks by
/// key, and each thread remembers the last host it served until an invalidation or expiry.
public final class Catalog<Store: LinkStore>: Sendable {
    public typealias AppEntry = AppCatalogEntry

    private struct Cached<Value: Sendable>: Sendable {
        var value: Value?
        var expires: Date
    }

    /// A link's place in the cache: its domain by number (``domainNumber(_:)``), so that finding
    /// a link hashes its short code and copies no string every click shares.
    private struct LinkKey: Hashable, Sendable {
        var domain: Int
        var code: String
    }

    private struct CachedLink: Sendable {
        var value: CompiledLink?
        var expires: Date
        /// When the app it was compiled against was generated.
        var appGeneration: Date
    }

    private struct Hosts: Sendable {
        var domains: [String: Cached<Domain>] = [:]
        var apps: [String: AppEntry] = [:]

        func domain(host: String, now: Date) -> Lookup<Domain> {
            guard let cached = domains[host], cached.expires > now else { return .unknown }
            return .known(cached.value)
        }

        /// Apps generated before this are read again (see ``Catalog/expireAll(now:)``).
        var appsExpiredBefore = Date.distantPast

        func app(id: String, now: Date, lifetime: TimeInterval) -> Lookup<AppEntry> {
            guard let entry = apps[id], entry.generatedAt + lifetime > now, entry.generatedAt > appsExpiredBefore else { return .unknown }
            return .known(entry)
        }
    }

    /// What the cache holds for a host, a code and an app, without asking the store.
    public enum Lookup<Value> {
        /// Known: the value, or `nil` when the store has none (remembered for a short while).
        case known(Value?)
        /// Not cached, expired, or compiled against an older app: ask the store.
        case unknown
    }

    public let store: Store
    private let hosts = NIOLockedValueBox(Hosts())
    private let linkShards = (0..<16).map { _ in NIOLockedValueBox([LinkKey: CachedLink]()) }
    /// Link domains numbered as they are first cached (there are few, and numbers are never reused).
    private let domainNumbers = NIOLockedValueBox([String: Int]())
    /// Bumped whenever a domain or app entry changes, so per-thread memories of a host go stale.
    private let generation = ManagedAtomic(0)
    /// How long "no such domain" or "no such code" is remembered, so a flood of unknown codes
    /// does not become a flood of queries.
    private let negativeLifetime: TimeInterval
    /// Entries are re-checked against the store after this long (several nodes share a store).
    let lifetime: TimeInterval
    private let maximumLinksPerShard: Int

    public init(store: Store, lifetime: TimeInterval = 60, negativeLifetime: TimeInterval = 5, maximumLinks: Int = 200_000) {
        self.store = store
        self.lifetime = lifetime
        self.negativeLifetime = negativeLifetime
        self.maximumLinksPerShard = max(1, maximumLinks / 16)
    }

    public func domain(host: String, now: Date = Date()) async throws(StoreError) -> Domain? {
        let host = host.lowercased()
        if case .known(let domain) = hosts.withLockedValue({ $0.domain(host: host, now: now) }) { return domain }
        let domain: Domain?
        do {
            domain = try await fetch(stale: hosts.withLockedValue { $0.domains[host] } != nil) { [store] in try await store.domain(host: host) }
        } catch {
            // The database is away: what was known keeps being served.
            if let stale = hosts.withLockedValue({ $0.domains[host] }) { return stale.value }
            throw error
        }
        hosts.withLockedValue { $0.domains[host] = Cached(value: domain, expires: now + (domain == nil ? negativeLifetime : lifetime)) }
        generation.wrappingIncrement(ordering: .releasing)
        return domain
    }

    public func app(id: String, now: Date = Date()) async throws(StoreError) -> AppEntry? {
        if case .known(let entry?) = hosts.withLockedValue({ $0.app(id: id, now: now, lifetime: lifetime) }) { return entry }
        let stored: App?
        do {
            stored = try await fetch(stale: hosts.withLockedValue { $0.apps[id] } != nil) { [store] in try await store.app(id: id) }
        } catch {
            if let stale = hosts.withLockedValue({ $0.apps[id] }) { return stale }
            throw error
        }
        guard let app = stored else { return nil }
        let fresh = Self.entry(for: app, at: now)
        // When two requests fetched it at once, the first entry stays: links are compiled
        // against one generation of the app.
        let entry = hosts.withLockedValue { hosts -> AppEntry in
            if case .known(let existing?) = hosts.app(id: id, now: now, lifetime: lifetime) { return existing }
            hosts.apps[id] = fresh
            return fresh
        }
        generation.wrappingIncrement(ordering: .releasing)
        return entry
    }

    /// The compiled link, compiled against `app` (the entry the caller got from ``app(id:now:)``).
    public func link(domain: String, code: String, app: AppEntry, now: Date = Date()) async throws(StoreError) -> CompiledLink? {
        let key = LinkKey(domain: domainNumber(domain), code: code)
        if case .known(let compiled) = cachedLink(key: key, app: app, now: now) { return compiled }
        let compiled: CompiledLink?
        do {
            let stored = try await fetch(stale: shard(key).withLockedValue { $0[key] } != nil) { [store] in
                try await store.link(domain: domain, code: code)
            }
            compiled = stored.map { CompiledLink($0, app: app.app) }
        } catch {
            if let stale = shard(key).withLockedValue({ $0[key] }), stale.appGeneration == app.generatedAt { return stale.value }
            throw error
        }
        shard(key).withLockedValue { links in
            if links.count >= maximumLinksPerShard { links.removeAll(keepingCapacity: true) }
            links[key] = CachedLink(value: compiled, expires: now + (compiled == nil ? negativeLifetime : lifetime), appGeneration: app.generatedAt)
        }
        return compiled
    }

    /// A store read with a deadline: short when an expired entry can stand in for the answer
    /// (the database is probably away), longer for something never seen.
    /// After a failed read, for a couple of seconds, an expired entry is served without asking
    /// the store first: while the database is away, cached links answer at full speed.
    private func fetch<T: Sendable>(stale: Bool, _ body: @escaping @Sendable () async throws -> T) async throws(StoreError) -> T {
        let now = Date()
        if stale, storeDownUntil.withLockedValue({ $0 > now }) { throw .unavailable("the database did not answer a moment ago") }
        do {
            return try await withTimeout(stale ? .milliseconds(500) : .seconds(3), body)
        } catch {
            if error.isUnavailable { storeDownUntil.withLockedValue { $0 = Date() + 2 } }
            throw error
        }
    }

    private let storeDownUntil = NIOLockedValueBox(Date.distantPast)

    /// A host's domain, its app and (for a `code`) the compiled link, all from memory: the
    /// event-loop fast path's lookup. `nil` when any of them must come from the store or the
    /// host is not a link domain.
    public func warm(host: String, code: String?, now: Date = Date()) -> (domain: Domain, entry: AppEntry, link: CompiledLink?)? {
        guard let known = warmHost(host, now: now) else { return nil }
        guard let code else { return (known.domain, known.entry, nil) }
        guard case .known(let link) = cachedLink(key: LinkKey(domain: known.linkDomain, code: code), app: known.entry, now: now) else { return nil }
        return (known.domain, known.entry, link)
    }

    private func warmHost(_ host: String, now: Date) -> WarmHost? {
        let scratch = ThreadScratch.current
        let current = generation.load(ordering: .acquiring)
        if let memo = scratch.host, memo.catalog == ObjectIdentifier(self), memo.host == host,
           memo.generation == current, memo.expires > now {
            return memo
        }
        let found = hosts.withLockedValue { hosts -> WarmHost? in
            guard let cachedDomain = hosts.domains[host], cachedDomain.expires > now, let domain = cachedDomain.value,
                  case .known(let entry?) = hosts.app(id: domain.appID, now: now, lifetime: lifetime) else { return nil }
            return WarmHost(catalog: ObjectIdentifier(self), host: host, domain: domain, entry: entry, linkDomain: domainNumber(domain.host),
                            expires: min(cachedDomain.expires, entry.generatedAt + lifetime), generation: current)
        }
        if let found { scratch.host = found }
        return found
    }

    /// A cached link counts only if it was compiled against this generation of its app.
    private func cachedLink(key: LinkKey, app: AppEntry, now: Date) -> Lookup<CompiledLink> {
        guard let cached = shard(key).withLockedValue({ $0[key] }), cached.expires > now,
              cached.value == nil || cached.appGeneration == app.generatedAt else { return .unknown }
        return .known(cached.value)
    }

    private func shard(_ key: LinkKey) -> NIOLockedValueBox<[LinkKey: CachedLink]> {
        linkShards[Int(UInt(bitPattern: key.hashValue) % UInt(linkShards.count))]
    }

    private func domainNumber(_ host: String) -> Int {
        domainNumbers.withLockedValue { numbers in
            if let number = numbers[host] { return number }
            numbers[host] = numbers.count
            return numbers.count - 1
        }
    }

    /// The number of a domain whose links may be cached; `nil` when none ever was.
    private func existingDomainNumber(_ host: String) -> Int? {
        domainNumbers.withLockedValue { $0[host.lowercased()] }
    }

    public func invalidateLink(domain: String, code: String) {
        guard let number = existingDomainNumber(domain) else { return }
        let key = LinkKey(domain: number, code: code)
        _ = shard(key).withLockedValue { $0.removeValue(forKey: key) }
    }

    /// Forgets an app and everything compiled against it.
    public func invalidateApp(id: String) {
        hosts.withLockedValue { _ = $0.apps.removeValue(forKey: id) }
        generation.wrappingIncrement(ordering: .releasing)
        for shard in linkShards {
            shard.withLockedValue { links in links = links.filter { $0.value.value?.app.id != id } }
        }
    }

    /// Forgets every link of a domain (after the domain changed or went away).
    public func invalidateLinks(domain: String) {
        guard let number = existingDomainNumber(domain) else { return }
        for shard in linkShards {
            shard.withLockedValue { links in links = links.filter { $0.key.domain != number } }
        }
    }

    /// Forgets what a change (here or on another node) touched.
    public func apply(_ change: StoreChange) {
        switch change {
        case .link(let domain, let code): invalidateLink(domain: domain, code: code)
        case .links(let domain): invalidateLinks(domain: domain)
        case .app(let id): invalidateApp(id: id)
        case .domains: invalidateDomains()
        }
    }

    /// Reads everything again on its next request, after notifications may have been missed —
    /// but keeps it, so that if the database is away (why the notifications stopped) the
    /// cached entries are still served.
    public func expireAll(now: Date = Date()) {
        hosts.withLockedValue { hosts in
            hosts.domains = hosts.domains.mapValues { cached in
                var cached = cached
                cached.expires = min(cached.expires, now)
                return cached
            }
            hosts.appsExpiredBefore = now
        }
        generation.wrappingIncrement(ordering: .releasing)
        for shard in linkShards {
            shard.withLockedValue { links in
                links = links.mapValues { cached in
                    var cached = cached
                    cached.expires = min(cached.expires, now)
                    return cached
                }
            }
        }
    }

    public func invalidateDomains() {
        hosts.withLockedValue { $0.domains.removeAll() }
        generation.wrappingIncrement(ordering: .releasing)
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
