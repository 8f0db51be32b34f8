import Foundation

/// Where statistics come from: counters that every store keeps up to date as it writes the raw
/// visits and app events (each counted exactly once, before any read). Reading a link's numbers adds up a
/// few counter rows per hour (time series, decisions) and per day (breakdowns) instead of
/// scanning its visits, and raw visits can be pruned without changing any number.
///
/// ```swift
/// let rollup = VisitRollup(visits)         // what a batch adds
/// for (key, count) in rollup.hours { … }   // upsert: visits = visits + count
/// ```
public struct VisitRollup: Sendable, Equatable {
    /// Visits per hour, link, decision and bot-or-not: time series, totals, decisions and
    /// links come from these.
    public var hours: [HourKey: Int] = [:]
    /// Visits per day, link and value of each breakdown (platform, in-app browser, …).
    public var days: [DayKey: Tally] = [:]
    /// Human visitors per day and link (bots never count as visitors).
    public var visitors: Set<VisitorKey> = []

    public init() {}

    public init(_ visits: some Sequence<Visit>) {
        for visit in visits { add(visit) }
    }

    public mutating func add(_ visit: Visit) {
        let code = visit.code ?? ""
        let campaign = visit.tags.effectiveCampaign ?? ""
        let bot = visit.isBot
        hours[HourKey(hour: RollupTime.hour(of: visit.at), domain: visit.domain, code: code, campaign: campaign,
                      decision: visit.decision.rawValue, bot: bot), default: 0] += 1
        let day = RollupTime.day(of: visit.at)
        func count(_ dimension: Breakdown, _ value: String?) {
            guard let value, !value.isEmpty else { return }
            let key = DayKey(day: day, domain: visit.domain, code: code, campaign: campaign, dimension: dimension.rawValue, value: value)
            days[key, default: Tally()].add(bot: bot)
        }
        count(.platform, visit.platform.rawValue)
        count(.device, visit.deviceClass.rawValue)
        count(.inApp, visit.inAppHost?.rawValue)
        count(.referrer, visit.referrerHost)
        count(.country, visit.country)
        if bot { count(.bot, visit.bot.rawValue) }
        for (name, value) in visit.tags.queryItems { count(.tag, "\(name)=\(value)") }
        if !bot { visitors.insert(VisitorKey(visit)) }
    }
}

/// What statistics break visits down by, per day.
public enum Breakdown: String, Sendable, Hashable, Codable, CaseIterable {
    case platform, device
    case inApp = "in-app"
    case referrer, country
    /// The kind of bot (`link-preview`, `search-crawler`, …); bots only.
    case bot
    /// One tag of the link, `utm_source=newsletter`.
    case tag
}

/// Human and bot visits.
public struct Tally: Sendable, Hashable, Codable {
    public var humans = 0
    public var bots = 0

    public init(humans: Int = 0, bots: Int = 0) {
        self.humans = humans
        self.bots = bots
    }

    public mutating func add(bot: Bool, _ count: Int = 1) {
        if bot { bots += count } else { humans += count }
    }
}

/// The key of an hourly counter. Empty strings stand for "none" (a route link has code `""`),
/// so that keys work as primary keys in every database.
public struct HourKey: Sendable, Hashable, Codable {
    /// Start of the hour, seconds since 1970 (UTC).
    public var hour: Int64
    public var domain: String
    public var code: String
    public var campaign: String
    public var decision: String
    public var bot: Bool

    public init(hour: Int64, domain: String, code: String, campaign: String, decision: String, bot: Bool) {
        self.hour = hour
        self.domain = domain
        self.code = code
        self.campaign = campaign
        self.decision = decision
        self.bot = bot
    }
}

/// The key of a daily breakdown counter.
public struct DayKey: Sendable, Hashable, Codable {
    /// Start of the day, seconds since 1970 (UTC).
    public var day: Int64
    public var domain: String
    public var code: String
    public var campaign: String
    /// A `Breakdown`'s raw value.
    public var dimension: String
    public var value: String

    public init(day: Int64, domain: String, code: String, campaign: String, dimension: String, value: String) {
        self.day = day
        self.domain = domain
        self.code = code
        self.campaign = campaign
        self.dimension = dimension
        self.value = value
    }
}

/// A visitor (hashed IP) seen on a link on a day.
public struct VisitorKey: Sendable, Hashable, Codable {
    public var day: Int64
    public var domain: String
    public var code: String
    public var campaign: String
    public var ipHash: String

    public init(day: Int64, domain: String, code: String, campaign: String, ipHash: String) {
        self.day = day
        self.domain = domain
        self.code = code
        self.campaign = campaign
        self.ipHash = ipHash
    }

    public init(_ visit: Visit) {
        self.init(day: RollupTime.day(of: visit.at), domain: visit.domain, code: visit.code ?? "",
                  campaign: visit.tags.effectiveCampaign ?? "", ipHash: visit.ipHash)
    }

    /// The wider visitor sets this visitor belongs to that day: its domain's, and its
    /// campaign's on that domain (`StatsScope.visitorSets` reads them).
    public var sets: [String] {
        [VisitorSets.domain(domain)] + (campaign.isEmpty ? [] : [VisitorSets.campaign(campaign, on: domain)])
    }
}

/// Names of the sets of visitors counted per day beyond single links, so that a domain's or a
/// campaign's unique visitors are a few counter rows too. A visitor on two domains of one app on
/// the same day counts once per domain.
public enum VisitorSets {
    public static func domain(_ host: String) -> String { "d|\(host)" }
    public static func campaign(_ name: String, on host: String) -> String { "c|\(host)|\(name)" }
}

/// Installs and opens reported by apps, per hour, link and kind.
public struct EventCountKey: Sendable, Hashable, Codable {
    public var hour: Int64
    public var appID: String
    /// `""` when the event has no link (an install nobody clicked for).
    public var domain: String
    public var code: String
    public var campaign: String
    public var platform: String
    public var kind: String
    /// `""` for opens.
    public var matchType: String
    public var tags: String

    public init(hour: Int64, appID: String, domain: String, code: String, campaign: String, platform: String, kind: String,
                matchType: String, tags: String) {
        self.hour = hour
        self.appID = appID
        self.domain = domain
        self.code = code
        self.campaign = campaign
        self.platform = platform
        self.kind = kind
        self.matchType = matchType
        self.tags = tags
    }

    public init(_ event: AppEvent) {
        self.init(hour: RollupTime.hour(of: event.at), appID: event.appID, domain: event.domain ?? "", code: event.code ?? "",
                  campaign: event.tags.effectiveCampaign ?? "", platform: event.platform.rawValue, kind: event.kind.rawValue,
                  matchType: event.matchType?.rawValue ?? "", tags: RollupTags.encode(event.tags))
    }

    /// What a batch of events adds.
    public static func counts(_ events: some Sequence<AppEvent>) -> [EventCountKey: Int] {
        var counts: [EventCountKey: Int] = [:]
        for event in events { counts[EventCountKey(event), default: 0] += 1 }
        return counts
    }
}

/// Hours and days as counters store them: whole seconds since 1970, UTC.
public enum RollupTime {
    public static func hour(of date: Date) -> Int64 { floor(date.timeIntervalSince1970, to: 3600) }
    public static func day(of date: Date) -> Int64 { floor(date.timeIntervalSince1970, to: 86_400) }

    private static func floor(_ seconds: Double, to unit: Int64) -> Int64 {
        let whole = Int64(seconds.rounded(.down))
        return whole - ((whole % unit) + unit) % unit
    }
}

/// A link's tags as one string (`campaign=spring&utm_source=news`), in the fixed order of
/// `LinkTags.queryItems`, so that equal tags give equal strings.
public enum RollupTags {
    private static let allowed: CharacterSet = {
        var set = CharacterSet.urlQueryAllowed
        set.remove(charactersIn: "&=+%")
        return set
    }()

    public static func encode(_ tags: LinkTags) -> String {
        tags.queryItems.map { name, value in
            "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value)"
        }.joined(separator: "&")
    }

    public static func decode(_ text: String) -> LinkTags {
        var tags = LinkTags()
        for pair in text.split(separator: "&") {
            guard let equals = pair.firstIndex(of: "=") else { continue }
            let value = String(pair[pair.index(after: equals)...])
            tags.set(String(pair[..<equals]), value.removingPercentEncoding ?? value)
        }
        return tags
    }
}
