import Foundation

/// Which visits and events a report counts: an app's domains, narrowed to one link or one
/// campaign, or one domain.
public struct StatsScope: Sendable, Hashable {
    /// The app the installs and opens are counted for.
    public var appID: String
    /// Hosts whose visits count (an app's domains, or one of them).
    public var domains: [String]
    /// One link: its code on `domains` (which then holds one host); `""` for route links.
    public var code: String?
    public var campaign: String?
    /// Whether installs that no click led to count (only for a whole app).
    public var includesUnlinked: Bool

    private init(appID: String, domains: [String], code: String?, campaign: String?, includesUnlinked: Bool) {
        self.appID = appID
        self.domains = domains
        self.code = code
        self.campaign = campaign
        self.includesUnlinked = includesUnlinked
    }

    /// Everything of an app: visits on its domains, every install and open it reported.
    public static func app(_ appID: String, domains: [String]) -> StatsScope {
        StatsScope(appID: appID, domains: domains, code: nil, campaign: nil, includesUnlinked: true)
    }

    public static func domain(_ host: String, appID: String) -> StatsScope {
        StatsScope(appID: appID, domains: [host], code: nil, campaign: nil, includesUnlinked: false)
    }

    /// One link; `code` `""` stands for the domain's route links.
    public static func link(domain: String, code: String, appID: String) -> StatsScope {
        StatsScope(appID: appID, domains: [domain], code: code, campaign: nil, includesUnlinked: false)
    }

    /// The app's links with this effective campaign (`campaign` tag, else `utm_campaign`).
    public static func campaign(_ name: String, appID: String, domains: [String]) -> StatsScope {
        StatsScope(appID: appID, domains: domains, code: nil, campaign: name, includesUnlinked: false)
    }

    /// Whether a counter row belongs to the scope (what a store's `WHERE` says).
    public func contains(domain: String, code: String, campaign: String) -> Bool {
        domains.contains(domain) && (self.code.map { $0 == code } ?? true) && (self.campaign.map { $0 == campaign } ?? true)
    }

    /// The visitor sets whose daily counts add up to this scope's unique visitors; `nil` for
    /// one link (counted on its own).
    public var visitorSets: [String]? {
        guard code == nil else { return nil }
        if let campaign { return domains.map { VisitorSets.campaign(campaign, on: $0) } }
        return domains.map(VisitorSets.domain)
    }

    public func contains(_ key: EventCountKey) -> Bool {
        key.appID == appID && (contains(domain: key.domain, code: key.code, campaign: key.campaign) || (includesUnlinked && key.domain.isEmpty))
    }
}

/// Bucket width of a report's time series.
public enum StatsBucket: String, Sendable, Hashable, Codable, CaseIterable {
    case hour, day

    public var seconds: Int64 { self == .hour ? 3600 : 86_400 }
}

/// A report's period: from the start of `from`'s bucket up to (not including) `to`.
public struct StatsPeriod: Sendable, Hashable {
    public static let maximumBuckets = 2000

    public let from: Date
    public let to: Date
    public let bucket: StatsBucket

    /// Fails when the period is empty or has more than `maximumBuckets` buckets.
    public init(from: Date, to: Date, bucket: StatsBucket) throws(ValidationError) {
        guard from < to else { throw .invalid("to", "the end must come after the start") }
        let start = Self.bucketStart(from, bucket)
        let count = (Int64(to.timeIntervalSince1970.rounded(.up)) - start + bucket.seconds - 1) / bucket.seconds
        guard count <= Int64(Self.maximumBuckets) else {
            throw .invalid("to", "at most \(Self.maximumBuckets) \(bucket.rawValue)s in one report")
        }
        self.from = from
        self.to = to
        self.bucket = bucket
    }

    /// Seconds since 1970 of the first bucket and the end (exclusive), as counters store hours.
    public var firstHour: Int64 { Self.bucketStart(from, bucket) }
    public var endHour: Int64 { Int64(to.timeIntervalSince1970.rounded(.up)) }

    /// The start of every bucket.
    public var bucketStarts: [Int64] { Array(stride(from: firstHour, to: endHour, by: Int(bucket.seconds))) }

    /// The start of the bucket an hour falls in (what stores group by).
    public func bucket(of hour: Int64) -> Int64 { hour - ((hour - firstHour) % bucket.seconds) }

    private static func bucketStart(_ date: Date, _ bucket: StatsBucket) -> Int64 {
        bucket == .hour ? RollupTime.hour(of: date) : RollupTime.day(of: date)
    }
}

/// Visits per bucket, decision and bot-or-not, as a store adds them up.
public struct SeriesRow: Sendable, Hashable {
    public var bucket: Int64
    public var decision: String
    public var bot: Bool
    public var visits: Int
    public init(bucket: Int64, decision: String, bot: Bool, visits: Int) {
        self.bucket = bucket
        self.decision = decision
        self.bot = bot
        self.visits = visits
    }
}

/// Visits per link over a period.
public struct LinkRow: Sendable, Hashable {
    public var domain: String
    public var code: String
    public var campaign: String
    public var tally: Tally
    public init(domain: String, code: String, campaign: String, tally: Tally) {
        self.domain = domain
        self.code = code
        self.campaign = campaign
        self.tally = tally
    }
}

/// Visits per value of a breakdown over whole days.
public struct BreakdownRow: Sendable, Hashable {
    public var dimension: String
    public var value: String
    public var tally: Tally
    public init(dimension: String, value: String, tally: Tally) {
        self.dimension = dimension
        self.value = value
        self.tally = tally
    }
}

public struct EventCountRow: Sendable, Hashable {
    public var key: EventCountKey
    public var events: Int
    public init(key: EventCountKey, events: Int) {
        self.key = key
        self.events = events
    }
}

/// The numbers of a scope over a period: totals, a time series and breakdowns, all from
/// counters. Bots are counted apart and never in human numbers, unique visitors or the
/// conversion. Breakdowns (platform, in-app browser, referrer, country, tag…) are counted per
/// UTC day, so they cover the whole days the period touches; everything else is exact to the hour.
public struct StatsReport: Sendable, Hashable, Codable {
    public struct Totals: Sendable, Hashable, Codable {
        public var humanVisits = 0
        public var botVisits = 0
        /// Distinct hashed IPs per day (per domain for a scope of several), added up over the days.
        public var uniqueVisitors = 0
        /// Human visits by decision (`app-store`, `web`, `preview-page`, …).
        public var decisions: [String: Int] = [:]
        /// Installs by how they were matched to a click (`deterministic`, `probabilistic`),
        /// and installs that matched nothing (`none`; only for a whole app).
        public var installs: [String: Int] = [:]
        public var opens = 0
        /// Matched installs per human visit; `nil` without visits.
        public var conversion: Double?
    }

    public struct Point: Sendable, Hashable, Codable {
        public var start: Date
        public var humanVisits = 0
        public var botVisits = 0
        /// Only for daily buckets (visitors are counted per day).
        public var uniqueVisitors: Int?
        /// Installs matched to a click.
        public var installs = 0
        public var opens = 0
    }

    /// One value of a breakdown. Installs and opens are filled for the dimensions events have
    /// too (platform, campaign, link, tag).
    public struct Row: Sendable, Hashable, Codable {
        public var value: String
        public var humanVisits = 0
        public var botVisits = 0
        public var installs: Int?
        public var opens: Int?
    }

    public var from: Date
    public var to: Date
    public var bucket: StatsBucket
    public var totals = Totals()
    public var series: [Point]
    public var platforms: [Row] = []
    /// `phone`, `tablet`, `desktop`, `other`.
    public var devices: [Row] = []
    public var inAppHosts: [Row] = []
    public var referrerHosts: [Row] = []
    /// Two-letter codes, when a trusted proxy gave them.
    public var countries: [Row] = []
    /// Bot visits by kind of bot.
    public var bots: [Row] = []
    /// One row per tag and value, `utm_source=newsletter`.
    public var tags: [Row] = []
    public var campaigns: [Row] = []
    /// `go.acme.example/spring`; `go.acme.example (routes)` for route links.
    public var links: [Row] = []

    /// Adds up what a store returned. Rows outside the period are ignored.
    public init(period: StatsPeriod, series seriesRows: [SeriesRow], links linkRows: [LinkRow], breakdowns: [BreakdownRow],
                visitorsPerDay: [Int64: Int], events: [EventCountRow]) {
        from = period.from
        to = period.to
        bucket = period.bucket
        var points: [Int64: Point] = [:]
        for start in period.bucketStarts {
            points[start] = Point(start: Date(timeIntervalSince1970: Double(start)), uniqueVisitors: period.bucket == .day ? 0 : nil)
        }
        for row in seriesRows where points[row.bucket] != nil {
            if row.bot {
                totals.botVisits += row.visits
                points[row.bucket]?.botVisits += row.visits
            } else {
                totals.humanVisits += row.visits
                points[row.bucket]?.humanVisits += row.visits
                totals.decisions[row.decision, default: 0] += row.visits
            }
        }
        for (day, count) in visitorsPerDay where day >= RollupTime.day(of: period.from) && Double(day) < period.to.timeIntervalSince1970 {
            totals.uniqueVisitors += count
            if period.bucket == .day { points[day]?.uniqueVisitors? += count }
        }
        var tables = Tables()
        for row in breakdowns { tables.add(row.tally, to: row.dimension, row.value) }
        for row in linkRows {
            tables.add(row.tally, to: Self.campaigns, row.campaign)
            tables.add(row.tally, to: Self.links, Self.linkName(row.domain, row.code))
        }
        for row in events where row.key.hour >= period.firstHour && row.key.hour < period.endHour {
            let key = row.key
            let bucket = period.bucket(of: key.hour)
            let install = key.kind == AppEvent.Kind.install.rawValue
            let matched = !key.matchType.isEmpty && key.matchType != MatchType.none.rawValue
            if install {
                totals.installs[matched ? key.matchType : MatchType.none.rawValue, default: 0] += row.events
                if matched { points[bucket]?.installs += row.events }
            } else {
                totals.opens += row.events
                points[bucket]?.opens += row.events
            }
            // An install no click led to belongs to its platform only.
            tables.add(events: row.events, install: install, to: Breakdown.platform.rawValue, key.platform)
            guard matched || !install else { continue }
            tables.add(events: row.events, install: install, to: Self.campaigns, key.campaign)
            if !key.domain.isEmpty { tables.add(events: row.events, install: install, to: Self.links, Self.linkName(key.domain, key.code)) }
            for (name, value) in RollupTags.decode(key.tags).queryItems {
                tables.add(events: row.events, install: install, to: Breakdown.tag.rawValue, "\(name)=\(value)")
            }
        }
        let matched = totals.installs.filter { $0.key != MatchType.none.rawValue }.values.reduce(0, +)
        totals.conversion = totals.humanVisits > 0 ? Double(matched) / Double(totals.humanVisits) : nil
        series = points.values.sorted { $0.start < $1.start }
        platforms = tables.sorted(Breakdown.platform.rawValue)
        devices = tables.sorted(Breakdown.device.rawValue)
        inAppHosts = tables.sorted(Breakdown.inApp.rawValue)
        referrerHosts = tables.sorted(Breakdown.referrer.rawValue)
        countries = tables.sorted(Breakdown.country.rawValue)
        bots = tables.sorted(Breakdown.bot.rawValue)
        tags = tables.sorted(Breakdown.tag.rawValue)
        campaigns = tables.sorted(Self.campaigns)
        links = tables.sorted(Self.links)
    }

    private static let campaigns = "campaign"
    private static let links = "link"

    /// `go.acme.example/spring`, or `go.acme.example (routes)` for route links.
    public static func linkName(_ domain: String, _ code: String) -> String {
        code.isEmpty ? "\(domain) (routes)" : "\(domain)/\(code)"
    }
}

/// Running sums of each breakdown of a report.
private struct Tables {
    var rows: [String: [String: StatsReport.Row]] = [:]

    mutating func add(_ tally: Tally, to table: String, _ value: String) {
        guard !value.isEmpty else { return }
        rows[table, default: [:]][value, default: .init(value: value)].humanVisits += tally.humans
        rows[table, default: [:]][value, default: .init(value: value)].botVisits += tally.bots
    }

    mutating func add(events count: Int, install: Bool, to table: String, _ value: String) {
        guard !value.isEmpty else { return }
        var row = rows[table, default: [:]][value, default: .init(value: value)]
        row.installs = (row.installs ?? 0) + (install ? count : 0)
        row.opens = (row.opens ?? 0) + (install ? 0 : count)
        rows[table, default: [:]][value] = row
    }

    /// Most human visits first, then most bot visits, then by value.
    func sorted(_ table: String) -> [StatsReport.Row] {
        (rows[table] ?? [:]).values.sorted { ($0.humanVisits, $0.botVisits, $1.value) > ($1.humanVisits, $1.botVisits, $0.value) }
    }
}

extension StatsPeriod {
    /// A period from query text: `from`/`to` as `2027-01-15` (whole UTC days, `to` included)
    /// or ISO 8601 times; by default the last 30 days (daily) or 48 hours (hourly) up to `now`.
    public static func parse(from: String?, to: String?, bucket: String?, now: Date) throws(ValidationError) -> StatsPeriod {
        let width: StatsBucket
        if let bucket, !bucket.isEmpty {
            guard let parsed = StatsBucket(rawValue: bucket) else { throw .invalid("bucket", "'hour' or 'day'") }
            width = parsed
        } else {
            width = .day
        }
        let end = try to.map { text throws(ValidationError) in try date(text, field: "to", endOfDay: true) } ?? now
        let start = try from.map { text throws(ValidationError) in try date(text, field: "from", endOfDay: false) }
            ?? end - (width == .day ? 30 * 86_400 : 48 * 3600)
        return try StatsPeriod(from: start, to: end, bucket: width)
    }

    private static func date(_ text: String, field: String, endOfDay: Bool) throws(ValidationError) -> Date {
        if text.utf8.count == 10, let day = dayFormatter.date(from: text) {
            return endOfDay ? day + 86_400 : day
        }
        for formatter in timeFormatters {
            if let date = formatter.date(from: text) { return date }
        }
        throw .invalid(field, "a date (2027-01-15) or an ISO 8601 time (2027-01-15T09:30:00Z)")
    }

    /// A UTC day as `from` and `to` take it: `2027-01-15`.
    public static func dayText(_ date: Date) -> String { dayFormatter.string(from: date) }

    nonisolated(unsafe) private static let dayFormatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        formatter.isLenient = false
        return formatter
    }()

    nonisolated(unsafe) private static let timeFormatters: [ISO8601DateFormatter] = {
        let plain = ISO8601DateFormatter()
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions.insert(.withFractionalSeconds)
        return [plain, fractional]
    }()
}
