import Foundation

/// Where statistics come from: counters that every store keeps up to date in the same
/// transaction that writes the raw visits and app events. Reading a link's numbers adds up a
/// few counter rows per hour instead of scanning its visits, and raw visits can be pruned
/// without changing any number.
///
/// ```swift
/// let rollup = VisitRollup(visits)          // what a batch adds
/// for (key, count) in rollup.counts { … }   // upsert: visits = visits + count
/// ```
public struct VisitRollup: Sendable, Equatable {
    /// Visits per hour and per combination of everything statistics break down by.
    public var counts: [VisitCountKey: Int] = [:]
    /// Human visitors per day and link (bots never count as visitors).
    public var visitors: Set<VisitorKey> = []

    public init() {}

    public init(_ visits: some Sequence<Visit>) {
        for visit in visits { add(visit) }
    }

    public mutating func add(_ visit: Visit) {
        counts[VisitCountKey(visit), default: 0] += 1
        if !visit.isBot { visitors.insert(VisitorKey(visit)) }
    }
}

/// One counter row of visits: an hour, a link and one value of every dimension. Empty strings
/// stand for "none" (a route link has code `""`; no in-app browser is `""`), so that the
/// key works as a primary key in every database.
public struct VisitCountKey: Sendable, Hashable, Codable {
    /// Start of the hour, seconds since 1970 (UTC).
    public var hour: Int64
    public var domain: String
    public var code: String
    public var campaign: String
    public var platform: String
    public var decision: String
    public var bot: String
    public var inApp: String
    public var referrerHost: String
    public var country: String
    /// The link's tags as a query string (`RollupTags`).
    public var tags: String

    public init(hour: Int64, domain: String, code: String, campaign: String, platform: String, decision: String, bot: String,
                inApp: String, referrerHost: String, country: String, tags: String) {
        self.hour = hour
        self.domain = domain
        self.code = code
        self.campaign = campaign
        self.platform = platform
        self.decision = decision
        self.bot = bot
        self.inApp = inApp
        self.referrerHost = referrerHost
        self.country = country
        self.tags = tags
    }

    public init(_ visit: Visit) {
        self.init(hour: RollupTime.hour(of: visit.at), domain: visit.domain, code: visit.code ?? "",
                  campaign: visit.tags.effectiveCampaign ?? "", platform: visit.platform.rawValue, decision: visit.decision.rawValue,
                  bot: visit.bot.rawValue, inApp: visit.inAppHost?.rawValue ?? "", referrerHost: visit.referrerHost ?? "",
                  country: visit.country ?? "", tags: RollupTags.encode(visit.tags))
    }

    public var isBot: Bool { bot != BotKind.none.rawValue }
}

/// A visitor (hashed IP) seen on a link on a day.
public struct VisitorKey: Sendable, Hashable, Codable {
    /// Start of the day, seconds since 1970 (UTC).
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
