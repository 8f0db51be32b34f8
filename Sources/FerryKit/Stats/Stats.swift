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

    func bucket(of hour: Int64) -> Int64 { hour - ((hour - firstHour) % bucket.seconds) }

    private static func bucketStart(_ date: Date, _ bucket: StatsBucket) -> Int64 {
        bucket == .hour ? RollupTime.hour(of: date) : RollupTime.day(of: date)
    }
}

/// Counter rows as a store returns them.
public struct VisitCountRow: Sendable, Hashable {
    public var key: VisitCountKey
    public var visits: Int
    public init(key: VisitCountKey, visits: Int) {
        self.key = key
        self.visits = visits
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
/// counter rows. Bots are counted apart and never in human numbers, unique visitors or the
/// conversion.
public struct StatsReport: Sendable, Hashable, Codable {
    public struct Totals: Sendable, Hashable, Codable {
        public var humanVisits = 0
        public var botVisits = 0
        /// Distinct hashed IPs per day, added up over the days.
        public var uniqueVisitors = 0
        /// Human visits by decision (`app-store`, `web`, `preview-page`, …).
        public var decisions: [String: Int] = [:]
        /// Installs matched to a click, by match type (`deterministic`, `probabilistic`), and
        /// installs that matched nothing (`none`).
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
        public var installs = 0
        public var opens = 0
    }

    /// One value of a breakdown. Installs and opens are filled for the dimensions that events
    /// have too (platform, campaign, link, tag).
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
    public var inAppHosts: [Row] = []
    public var referrerHosts: [Row] = []
    public var countries: [Row] = []
    public var campaigns: [Row] = []
    public var links: [Row] = []
    /// One row per tag and value, `utm_source=newsletter`.
    public var tags: [Row] = []

    /// Adds up counter rows. Rows outside the period are ignored, so a store may return a
    /// little more than asked.
    public init(period: StatsPeriod, visits: [VisitCountRow], visitorsPerDay: [Int64: Int], events: [EventCountRow]) {
        from = period.from
        to = period.to
        bucket = period.bucket
        var points: [Int64: Point] = [:]
        for start in period.bucketStarts {
            points[start] = Point(start: Date(timeIntervalSince1970: Double(start)),
                                  uniqueVisitors: period.bucket == .day ? 0 : nil)
        }
        var breakdowns = Breakdowns()
        for row in visits where points[period.bucket(of: row.key.hour)] != nil && row.key.hour >= period.firstHour {
            let bucket = period.bucket(of: row.key.hour)
            let key = row.key
            if key.isBot {
                totals.botVisits += row.visits
                points[bucket]?.botVisits += row.visits
            } else {
                totals.humanVisits += row.visits
                points[bucket]?.humanVisits += row.visits
                totals.decisions[key.decision, default: 0] += row.visits
            }
            breakdowns.add(visits: row.visits, bot: key.isBot, platform: key.platform, inApp: key.inApp, referrer: key.referrerHost,
                           country: key.country, campaign: key.campaign, link: Self.linkName(key.domain, key.code), tags: key.tags)
        }
        for (day, count) in visitorsPerDay where day >= RollupTime.day(of: period.from) && Double(day) < period.to.timeIntervalSince1970 {
            totals.uniqueVisitors += count
            if period.bucket == .day { points[day]?.uniqueVisitors? += count }
        }
        for row in events where points[period.bucket(of: row.key.hour)] != nil && row.key.hour >= period.firstHour {
            let bucket = period.bucket(of: row.key.hour)
            let key = row.key
            if key.kind == AppEvent.Kind.install.rawValue {
                totals.installs[key.matchType.isEmpty ? MatchType.none.rawValue : key.matchType, default: 0] += row.events
                guard key.matchType != MatchType.none.rawValue, !key.matchType.isEmpty else { continue }
                points[bucket]?.installs += row.events
            } else {
                totals.opens += row.events
                points[bucket]?.opens += row.events
            }
            breakdowns.add(event: key, count: row.events, link: key.domain.isEmpty ? nil : Self.linkName(key.domain, key.code))
        }
        let matched = totals.installs.filter { $0.key != MatchType.none.rawValue }.values.reduce(0, +)
        totals.conversion = totals.humanVisits > 0 ? Double(matched) / Double(totals.humanVisits) : nil
        series = points.values.sorted { $0.start < $1.start }
        platforms = breakdowns.sorted(\.platforms)
        inAppHosts = breakdowns.sorted(\.inAppHosts)
        referrerHosts = breakdowns.sorted(\.referrerHosts)
        countries = breakdowns.sorted(\.countries)
        campaigns = breakdowns.sorted(\.campaigns)
        links = breakdowns.sorted(\.links)
        tags = breakdowns.sorted(\.tags)
    }

    /// `go.acme.example/spring`, or `go.acme.example (routes)` for route links.
    static func linkName(_ domain: String, _ code: String) -> String {
        code.isEmpty ? "\(domain) (routes)" : "\(domain)/\(code)"
    }
}

/// Running sums for each breakdown of a report.
private struct Breakdowns {
    var platforms: [String: StatsReport.Row] = [:]
    var inAppHosts: [String: StatsReport.Row] = [:]
    var referrerHosts: [String: StatsReport.Row] = [:]
    var countries: [String: StatsReport.Row] = [:]
    var campaigns: [String: StatsReport.Row] = [:]
    var links: [String: StatsReport.Row] = [:]
    var tags: [String: StatsReport.Row] = [:]

    mutating func add(visits: Int, bot: Bool, platform: String, inApp: String, referrer: String, country: String, campaign: String,
                      link: String, tags tagText: String) {
        func count(_ table: inout [String: StatsReport.Row], _ value: String) {
            guard !value.isEmpty else { return }
            if bot { table[value, default: .init(value: value)].botVisits += visits }
            else { table[value, default: .init(value: value)].humanVisits += visits }
        }
        count(&platforms, platform)
        count(&inAppHosts, inApp)
        count(&referrerHosts, referrer)
        count(&countries, country)
        count(&campaigns, campaign)
        count(&links, link)
        for (name, value) in RollupTags.decode(tagText).queryItems { count(&tags, "\(name)=\(value)") }
    }

    mutating func add(event key: EventCountKey, count: Int, link: String?) {
        let install = key.kind == AppEvent.Kind.install.rawValue
        if install, key.matchType.isEmpty || key.matchType == MatchType.none.rawValue {
            // An install nobody clicked for belongs to the platform only.
            Self.countEvent(&platforms, key.platform, count, install: true)
            return
        }
        Self.countEvent(&platforms, key.platform, count, install: install)
        Self.countEvent(&campaigns, key.campaign, count, install: install)
        if let link { Self.countEvent(&links, link, count, install: install) }
        for (name, value) in RollupTags.decode(key.tags).queryItems { Self.countEvent(&tags, "\(name)=\(value)", count, install: install) }
    }

    private static func countEvent(_ table: inout [String: StatsReport.Row], _ value: String, _ count: Int, install: Bool) {
        guard !value.isEmpty else { return }
        var row = table[value, default: .init(value: value)]
        if install { row.installs = (row.installs ?? 0) + count } else { row.opens = (row.opens ?? 0) + count }
        table[value] = row
    }

    /// Most human visits first, then by value.
    func sorted(_ table: KeyPath<Breakdowns, [String: StatsReport.Row]>) -> [StatsReport.Row] {
        self[keyPath: table].values.map { row in
            var row = row
            if row.installs != nil || row.opens != nil {
                row.installs = row.installs ?? 0
                row.opens = row.opens ?? 0
            }
            return row
        }.sorted { ($0.humanVisits, $1.value) > ($1.humanVisits, $0.value) }
    }
}
