import Foundation
import FerryKit

/// A store that keeps everything in memory: for tests, and for trying Ferry without a database.
public actor MemoryStore: LinkStore {
    private var appsByID: [String: App] = [:]
    private var domainsByHost: [String: Domain] = [:]
    private var linksByKey: [String: (link: Link, created: Int)] = [:]
    private var keys: [String: APIKeyRecord] = [:]
    private var visits: [Visit] = []
    private var intents: [String: (intent: DeferredIntent, consumed: Bool)] = [:]
    private var events: [AppEvent] = []
    private var counters = VisitRollup()
    private var hooks: [String: Webhook] = [:]
    private var accounts: [String: UserAccount] = [:]
    private var outbox: [String: WebhookDelivery] = [:]
    private var eventCounters: [EventCountKey: Int] = [:]
    private var sequence = 0
    private var writesToStall = 0
    private var stalledWrites: [CheckedContinuation<Void, Never>] = []

    public init() {}

    /// For tests: the next `count` visit writes never return and store nothing (until the
    /// store is closed), like the PostgreSQL write an outage once left hanging.
    public func stallVisitWrites(_ count: Int) {
        writesToStall = count
    }

    public func app(id: String) -> App? { appsByID[id] }

    public func apps() -> [App] { appsByID.values.sorted { $0.id < $1.id } }

    public func save(_ app: App) throws(StoreError) {
        do { try app.validate() } catch { throw .invalid(error.description) }
        appsByID[app.id] = app
    }

    public func deleteApp(id: String) throws(StoreError) {
        guard appsByID.removeValue(forKey: id) != nil else { throw .notFound("no app '\(id)'") }
        for domain in domainsByHost.values where domain.appID == id { try deleteDomain(host: domain.host) }
    }

    public func deleteDomain(host: String) throws(StoreError) {
        guard domainsByHost.removeValue(forKey: host.lowercased()) != nil else { throw .notFound("no domain '\(host)'") }
        linksByKey = linksByKey.filter { $0.value.link.domain != host.lowercased() }
    }

    public func deleteLink(domain: String, code: String) throws(StoreError) {
        guard linksByKey.removeValue(forKey: Self.key(domain, code)) != nil else { throw .notFound("no link '\(code)' on \(domain)") }
    }

    public func domain(host: String) -> Domain? {
        let host = host.lowercased()
        return domainsByHost[host] ?? domainsByHost.values.first { $0.alternateHost == host }
    }

    public func domains(appID: String?) -> [Domain] {
        domainsByHost.values.filter { appID == nil || $0.appID == appID }.sorted { $0.host < $1.host }
    }

    public func save(_ domain: Domain) throws(StoreError) {
        do { try domain.validate() } catch { throw .invalid(error.description) }
        guard appsByID[domain.appID] != nil else { throw .notFound("no app '\(domain.appID)'") }
        for host in [domain.host, domain.alternateHost].compactMap({ $0 }) {
            if let owner = self.domain(host: host), owner.host != domain.host {
                throw .conflict("\(host) already belongs to the domain \(owner.host)")
            }
        }
        domainsByHost[domain.host] = domain
    }

    public func link(domain: String, code: String) -> Link? {
        linksByKey[Self.key(domain, code)]?.link
    }

    public func links(_ query: LinkQuery) -> [Link] {
        let matching = linksByKey.values.filter { query.matches($0.link) }.sorted { $0.created > $1.created }.map(\.link)
        return Array(matching.dropFirst(query.offset).prefix(query.limit))
    }

    public func insert(_ links: [Link]) throws(StoreError) {
        var seen = Set<String>()
        for link in links {
            try check(link)
            let key = Self.key(link.domain, link.code!)
            guard linksByKey[key] == nil, seen.insert(key).inserted else {
                throw .conflict("the code '\(link.code!)' is already taken on \(link.domain)")
            }
        }
        for link in links {
            sequence += 1
            linksByKey[Self.key(link.domain, link.code!)] = (link, sequence)
        }
    }

    public func update(_ link: Link) throws(StoreError) {
        try check(link)
        let key = Self.key(link.domain, link.code!)
        guard let existing = linksByKey[key] else { throw .notFound("no link '\(link.code!)' on \(link.domain)") }
        linksByKey[key] = (link, existing.created)
    }

    private func check(_ link: Link) throws(StoreError) {
        guard link.code != nil else { throw .invalid("code: a stored link needs a code") }
        guard let domain = domainsByHost[link.domain] else { throw .notFound("no domain '\(link.domain)'") }
        do { try link.validate(for: appsByID[domain.appID]) } catch { throw .invalid(error.description) }
    }

    public func insert(_ key: APIKeyRecord) throws(StoreError) {
        guard keys[key.id] == nil, !keys.values.contains(where: { $0.hash == key.hash }) else { throw .conflict("the key exists") }
        keys[key.id] = key
    }

    public func apiKey(hash: String) -> APIKeyRecord? { keys.values.first { $0.hash == hash } }

    public func apiKeys() -> [APIKeyRecord] { keys.values.sorted { $0.createdAt < $1.createdAt } }

    public func revokeAPIKey(id: String, at date: Date) throws(StoreError) {
        guard var key = keys[id] else { throw .notFound("no API key '\(id)'") }
        if key.revokedAt == nil { key.revokedAt = date }
        keys[id] = key
    }

    public func record(_ visits: [Visit]) async {
        if writesToStall > 0 {
            writesToStall -= 1
            return await withCheckedContinuation { stalledWrites.append($0) }
        }
        self.visits += visits
        for visit in visits { counters.add(visit) }
    }

    public func visitCount() -> Int { visits.count }

    public func visitSeries(_ scope: StatsScope, _ period: StatsPeriod) -> [SeriesRow] {
        var rows: [SeriesRow] = []
        for (key, visits) in counters.hours
        where (period.firstHour..<period.endHour).contains(key.hour) && scope.contains(domain: key.domain, code: key.code, campaign: key.campaign) {
            rows.append(SeriesRow(bucket: period.bucket(of: key.hour), decision: key.decision, bot: key.bot, visits: visits))
        }
        return rows
    }

    public func visitsByLink(_ scope: StatsScope, hours: Range<Int64>) -> [LinkRow] {
        var links: [[String]: Tally] = [:]
        for (key, visits) in counters.hours where hours.contains(key.hour) && scope.contains(domain: key.domain, code: key.code, campaign: key.campaign) {
            links[[key.domain, key.code, key.campaign], default: Tally()].add(bot: key.bot, visits)
        }
        return links.map { LinkRow(domain: $0.key[0], code: $0.key[1], campaign: $0.key[2], tally: $0.value) }
    }

    public func visitBreakdowns(_ scope: StatsScope, days: Range<Int64>) -> [BreakdownRow] {
        var values: [[String]: Tally] = [:]
        for (key, tally) in counters.days where days.contains(key.day) && scope.contains(domain: key.domain, code: key.code, campaign: key.campaign) {
            values[[key.dimension, key.value], default: Tally()].humans += tally.humans
            values[[key.dimension, key.value], default: Tally()].bots += tally.bots
        }
        return values.map { BreakdownRow(dimension: $0.key[0], value: $0.key[1], tally: $0.value) }
    }

    public func visitorsPerDay(_ scope: StatsScope, days: Range<Int64>) -> [Int64: Int] {
        // Distinct per link and day, or per visitor set and day, added up (as the databases do).
        var perSet: [String: [Int64: Set<String>]] = [:]
        let wanted = scope.visitorSets.map(Set.init)
        for visitor in counters.visitors where days.contains(visitor.day) {
            if let wanted {
                for set in visitor.sets where wanted.contains(set) { perSet[set, default: [:]][visitor.day, default: []].insert(visitor.ipHash) }
            } else if scope.contains(domain: visitor.domain, code: visitor.code, campaign: visitor.campaign) {
                perSet["link", default: [:]][visitor.day, default: []].insert(visitor.ipHash)
            }
        }
        var result: [Int64: Int] = [:]
        for days in perSet.values {
            for (day, visitors) in days { result[day, default: 0] += visitors.count }
        }
        return result
    }

    public func eventCounts(_ scope: StatsScope, hours: Range<Int64>) -> [EventCountRow] {
        eventCounters.filter { key, _ in hours.contains(key.hour) && scope.contains(key) }.map { EventCountRow(key: $0.key, events: $0.value) }
    }

    public func pruneVisits(before date: Date) -> Int {
        let before = visits.count
        visits.removeAll { $0.at < date }
        return before - visits.count
    }

    public func app(sdkKey: String) -> App? { appsByID.values.first { $0.sdkKey == sdkKey } }

    public func insert(_ intents: [DeferredIntent]) {
        for intent in intents where self.intents[intent.token] == nil { self.intents[intent.token] = (intent, false) }
    }

    public func updateSignals(token: String, screen: Screen?, timeZone: String?, languages: [String]) {
        guard var entry = intents[token], !entry.consumed else { return }
        entry.intent.signals.merge(screen: screen, timeZone: timeZone, languages: languages)
        intents[token] = entry
    }

    public func consumeIntent(token: String, appID: String, at date: Date) -> DeferredIntent? {
        guard let entry = intents[token], !entry.consumed, entry.intent.appID == appID, entry.intent.isLive(at: date) else { return nil }
        intents[token]?.consumed = true
        return entry.intent
    }

    public func intentCandidates(appID: String, ipHash: String, at date: Date) -> [DeferredIntent] {
        intents.values.filter { !$0.consumed && $0.intent.appID == appID && $0.intent.signals.ipHash == ipHash && $0.intent.isLive(at: date) }
            .map(\.intent).sorted { $0.createdAt < $1.createdAt }
    }

    public func purgeIntents(expiredBefore date: Date) -> Int {
        let before = intents.count
        intents = intents.filter { $0.value.intent.expiresAt >= date }
        return before - intents.count
    }

    public func record(events: [AppEvent]) {
        self.events += events
        eventCounters.merge(EventCountKey.counts(events), uniquingKeysWith: +)
    }

    public func appEvents(appID: String) -> [AppEvent] { events.filter { $0.appID == appID } }

    public func save(_ user: UserAccount) throws(StoreError) {
        if let other = accounts.values.first(where: { $0.email == user.email && $0.id != user.id }) {
            throw .conflict("\(other.email) already has an account")
        }
        accounts[user.id] = user
    }

    public func user(email: String) -> UserAccount? { accounts.values.first { $0.email == email.lowercased() } }

    public func users() -> [UserAccount] { accounts.values.sorted { $0.email < $1.email } }

    public func save(_ webhook: Webhook) throws(StoreError) {
        guard appsByID[webhook.appID] != nil else { throw .notFound("no app '\(webhook.appID)'") }
        hooks[webhook.id] = webhook
    }

    public func webhooks(appID: String) -> [Webhook] {
        hooks.values.filter { $0.appID == appID }.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    public func deleteWebhook(id: String, appID: String) throws(StoreError) {
        guard hooks[id]?.appID == appID else { throw .notFound("no webhook '\(id)'") }
        hooks[id] = nil
        outbox = outbox.filter { $0.value.webhookID != id }
    }

    public func enqueue(_ deliveries: [WebhookDelivery]) {
        for delivery in deliveries where hooks[delivery.webhookID] != nil { outbox[delivery.id] = delivery }
    }

    public func claimDeliveries(at date: Date, limit: Int, lease: TimeInterval) -> [WebhookDelivery] {
        let due = outbox.values.filter { $0.state == .pending && ($0.nextAttemptAt ?? .distantFuture) <= date }
            .sorted { ($0.nextAttemptAt ?? date, $0.id) < ($1.nextAttemptAt ?? date, $1.id) }.prefix(limit)
        for delivery in due { outbox[delivery.id]?.nextAttemptAt = date + lease }
        return Array(due)
    }

    public func update(_ delivery: WebhookDelivery) {
        if outbox[delivery.id] != nil { outbox[delivery.id] = delivery }
    }

    public func deliveries(webhookID: String, limit: Int) -> [WebhookDelivery] {
        Array(outbox.values.filter { $0.webhookID == webhookID }.sorted { ($0.createdAt, $0.id) > ($1.createdAt, $1.id) }.prefix(limit))
    }

    public func close() {
        for write in stalledWrites { write.resume() }
        stalledWrites = []
    }

    private static func key(_ domain: String, _ code: String) -> String { "\(domain.lowercased())/\(code)" }
}
