import Foundation
import FerryKit

/// Where Ferry keeps apps, domains, links, API keys and visits. The server reads through it
/// only on a cache miss; every implementation (SQLite, PostgreSQL, memory) passes the same
/// contract tests (`Tests/FerryStoreTests/StoreContractTests.swift`).
public protocol LinkStore: Sendable {
    func app(id: String) async throws(StoreError) -> App?
    func apps() async throws(StoreError) -> [App]
    /// Creates or replaces an app.
    func save(_ app: App) async throws(StoreError)
    /// Deletes an app with its domains and their links; `.notFound` when there is none.
    func deleteApp(id: String) async throws(StoreError)

    /// The domain whose host *or alternate host* is `host`.
    func domain(host: String) async throws(StoreError) -> Domain?
    func domains(appID: String?) async throws(StoreError) -> [Domain]
    /// Creates or replaces a domain; fails with `.conflict` when another domain already
    /// answers for one of its hosts, `.notFound` without its app.
    func save(_ domain: Domain) async throws(StoreError)
    /// Deletes a domain (by its host) with its links; `.notFound` when there is none.
    func deleteDomain(host: String) async throws(StoreError)

    func link(domain: String, code: String) async throws(StoreError) -> Link?
    func links(_ query: LinkQuery) async throws(StoreError) -> [Link]
    /// Creates links, all or none; fails with `.conflict` when a code is taken.
    func insert(_ links: [Link]) async throws(StoreError)
    /// Replaces a stored link; `.notFound` when there is none with its domain and code.
    func update(_ link: Link) async throws(StoreError)
    /// Deletes a link; `.notFound` when there is none.
    func deleteLink(domain: String, code: String) async throws(StoreError)

    /// Stores a new API key by the hash of its secret.
    func insert(_ key: APIKeyRecord) async throws(StoreError)
    func apiKey(hash: String) async throws(StoreError) -> APIKeyRecord?
    func apiKeys() async throws(StoreError) -> [APIKeyRecord]
    /// Marks a key revoked; `.notFound` for an unknown id.
    func revokeAPIKey(id: String, at date: Date) async throws(StoreError)

    /// Appends visits, all or none, and adds them to the counters (`VisitRollup`) exactly once:
    /// in the same transaction, or (SQLite) in a later one that moves a mark past them, always
    /// before counters are read.
    func record(_ visits: [Visit]) async throws(StoreError)
    /// How many raw visits are kept (pruned ones no longer count).
    func visitCount() async throws(StoreError) -> Int
    /// The scope's visits per bucket of the period, decision and bot-or-not (hourly counters).
    func visitSeries(_ scope: StatsScope, _ period: StatsPeriod) async throws(StoreError) -> [SeriesRow]
    /// The scope's visits per link whose hour is in `hours` (hourly counters).
    func visitsByLink(_ scope: StatsScope, hours: Range<Int64>) async throws(StoreError) -> [LinkRow]
    /// The scope's visits per breakdown value on the days in `days` (daily counters).
    func visitBreakdowns(_ scope: StatsScope, days: Range<Int64>) async throws(StoreError) -> [BreakdownRow]
    /// Distinct human visitors (hashed IPs) per day in `days`, by the day's start.
    func visitorsPerDay(_ scope: StatsScope, days: Range<Int64>) async throws(StoreError) -> [Int64: Int]
    /// Counter rows of the scope's installs and opens whose hour is in `hours`.
    func eventCounts(_ scope: StatsScope, hours: Range<Int64>) async throws(StoreError) -> [EventCountRow]
    /// Deletes raw visits from before `date`; the counters keep them. How many.
    @discardableResult
    func pruneVisits(before date: Date) async throws(StoreError) -> Int

    /// The app whose SDK key this is.
    func app(sdkKey: String) async throws(StoreError) -> App?

    /// Stores deferred intents, all or none; a token already stored is left as it is.
    func insert(_ intents: [DeferredIntent]) async throws(StoreError)
    /// Adds what the preview page reported about the device to an intent not yet consumed;
    /// unknown tokens are ignored.
    func updateSignals(token: String, screen: Screen?, timeZone: String?, languages: [String]) async throws(StoreError)
    /// The app's live, unconsumed intent with this token — marked consumed in the same step,
    /// so that of two installs racing for it exactly one gets it.
    func consumeIntent(token: String, appID: String, at date: Date) async throws(StoreError) -> DeferredIntent?
    /// The app's live, unconsumed intents from clicks at this IP hash, for a probabilistic match.
    func intentCandidates(appID: String, ipHash: String, at date: Date) async throws(StoreError) -> [DeferredIntent]
    /// Deletes intents that expired before `date`; how many.
    @discardableResult
    func purgeIntents(expiredBefore date: Date) async throws(StoreError) -> Int

    /// Appends installs and opens reported by apps, and adds them to the counters.
    func record(events: [AppEvent]) async throws(StoreError)
    func appEvents(appID: String) async throws(StoreError) -> [AppEvent]

    /// Creates or replaces a dashboard user (by id); `.conflict` when another has the email.
    func save(_ user: UserAccount) async throws(StoreError)
    func user(email: String) async throws(StoreError) -> UserAccount?
    func users() async throws(StoreError) -> [UserAccount]

    /// Creates or replaces a webhook; `.notFound` without its app.
    func save(_ webhook: Webhook) async throws(StoreError)
    func webhooks(appID: String) async throws(StoreError) -> [Webhook]
    /// Deletes a webhook with its deliveries; `.notFound` when the app has none with this id.
    func deleteWebhook(id: String, appID: String) async throws(StoreError)
    /// Queues deliveries (each to be attempted from its `nextAttemptAt`).
    func enqueue(_ deliveries: [WebhookDelivery]) async throws(StoreError)
    /// Pending deliveries due at `date`, oldest first, at most `limit` — each claimed for
    /// `lease` seconds, so that no other node attempts it meanwhile (a node that dies during
    /// an attempt leaves it due again after the lease).
    func claimDeliveries(at date: Date, limit: Int, lease: TimeInterval) async throws(StoreError) -> [WebhookDelivery]
    /// Writes a delivery back after an attempt.
    func update(_ delivery: WebhookDelivery) async throws(StoreError)
    /// A webhook's deliveries, newest first.
    func deliveries(webhookID: String, limit: Int) async throws(StoreError) -> [WebhookDelivery]

    /// Releases the database; call it before the store goes away.
    func close() async
}

extension LinkStore {
    public func insert(_ link: Link) async throws(StoreError) {
        try await insert([link])
    }

    /// A scope's numbers over a period, from the counters only.
    public func stats(_ scope: StatsScope, _ period: StatsPeriod) async throws(StoreError) -> StatsReport {
        let hours = period.firstHour..<period.endHour
        let days = RollupTime.day(of: period.from)..<period.endHour
        return StatsReport(period: period, series: try await visitSeries(scope, period), links: try await visitsByLink(scope, hours: hours),
                           breakdowns: try await visitBreakdowns(scope, days: days), visitorsPerDay: try await visitorsPerDay(scope, days: days),
                           events: try await eventCounts(scope, hours: hours))
    }

    /// Validates links against their domain's app and encodes them, for a store to write.
    func prepared(_ links: [Link]) async throws(StoreError) -> [String] {
        var apps: [String: App?] = [:]
        var documents: [String] = []
        for link in links {
            guard link.code != nil else { throw .invalid("code: a stored link needs a code") }
            if apps[link.domain] == nil {
                guard let domain = try await domain(host: link.domain), domain.host == link.domain else {
                    throw .notFound("no domain '\(link.domain)'")
                }
                apps[link.domain] = try await app(id: domain.appID)
            }
            do { try link.validate(for: apps[link.domain] ?? nil) } catch { throw .invalid(error.description) }
            documents.append(try Documents.encode(link))
        }
        return documents
    }
}

/// Which links to list, newest first.
public struct LinkQuery: Sendable, Hashable {
    public var domain: String?
    public var campaign: String?
    /// Any tag (`ref`, `channel`, a `utm_*` value, the campaign) equal to this.
    public var tag: String?
    /// Matches the code, the path or the preview title, case-insensitively.
    public var text: String?
    public var limit: Int
    public var offset: Int

    public init(domain: String? = nil, campaign: String? = nil, tag: String? = nil, text: String? = nil, limit: Int = 50, offset: Int = 0) {
        self.domain = domain
        self.campaign = campaign
        self.tag = tag
        self.text = text
        self.limit = limit
        self.offset = offset
    }

    func matches(_ link: Link) -> Bool {
        if let domain, link.domain != domain.lowercased() { return false }
        if let campaign, link.tags.effectiveCampaign != campaign { return false }
        if let tag, !link.tags.queryItems.contains(where: { $0.value == tag }) { return false }
        if let text = text?.lowercased(), !text.isEmpty {
            let haystack = [link.code ?? "", link.path, link.preview.title ?? ""].joined(separator: "\n").lowercased()
            if !haystack.contains(text) { return false }
        }
        return true
    }
}

/// An API key as stored: never the secret, only its hash.
public struct APIKeyRecord: Sendable, Hashable, Codable {
    public var id: String
    public var name: String
    /// SHA-256 of the secret, hex.
    public var hash: String
    public var createdAt: Date
    public var revokedAt: Date?

    public init(id: String, name: String, hash: String, createdAt: Date, revokedAt: Date? = nil) {
        self.id = id
        self.name = name
        self.hash = hash
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }

    public var isActive: Bool { revokedAt == nil }
}

/// A person who signs in to the dashboard with an email and a password, kept only as a slow
/// hash (`scrypt$…`).
public struct UserAccount: Sendable, Hashable, Codable {
    public var id: String
    /// Lower-cased.
    public var email: String
    public var name: String
    public var passwordHash: String
    public var createdAt: Date
    public var disabled: Bool

    public init(id: String, email: String, name: String, passwordHash: String, createdAt: Date, disabled: Bool = false) {
        self.id = id
        self.email = email.lowercased()
        self.name = name
        self.passwordHash = passwordHash
        self.createdAt = createdAt
        self.disabled = disabled
    }
}

/// Why a store refused an operation.
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case conflict, notFound, invalid, unavailable
    }

    private let code: Code
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// Something with the same identity exists (a link code, a host).
    public static func conflict(_ message: String) -> StoreError { StoreError(.conflict, message) }
    /// What the operation refers to does not exist.
    public static func notFound(_ message: String) -> StoreError { StoreError(.notFound, message) }
    /// The value breaks a rule of the model (see `ValidationError`).
    public static func invalid(_ message: String) -> StoreError { StoreError(.invalid, message) }
    /// The database could not be reached or failed.
    public static func unavailable(_ message: String) -> StoreError { StoreError(.unavailable, message) }

    public var isConflict: Bool { code == .conflict }
    public var isNotFound: Bool { code == .notFound }
    public var isInvalid: Bool { code == .invalid }
    public var isUnavailable: Bool { code == .unavailable }
    public var description: String { message }
}
