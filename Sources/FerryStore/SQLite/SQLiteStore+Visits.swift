import Foundation
import FerryKit
import SQLiteNIO

// MARK: Visits and their counters

extension SQLiteStore {
    /// Rows per multi-row statement (`INSERT … VALUES (?, …), (?, …)`): the recorder's whole
    /// batch in one statement. The text depends only on the row count; values are bound.
    static let batchRows = 1000

    static let visitorColumns = ["day", "domain", "code", "ip_hash", "campaign"]
    static let eventColumns = ["app_id", "domain", "code", "hour", "campaign", "platform", "kind", "match_type", "tags"]

    static func insert(into table: String, _ columns: [String], rows: Int, then suffix: String = "") -> String {
        let row = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
        return "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES "
            + Array(repeating: row, count: rows).joined(separator: ", ") + suffix
    }

    /// `INSERT … ON CONFLICT (key) DO UPDATE SET count = count + excluded.count, …`.
    static func upsert(into table: String, _ key: [String], counts: [String], rows: Int) -> String {
        insert(into: table, key + counts, rows: rows,
               then: " ON CONFLICT (\(key.joined(separator: ", "))) DO UPDATE SET "
                   + counts.map { "\($0) = \($0) + excluded.\($0)" }.joined(separator: ", "))
    }

    public func record(_ visits: [Visit]) async throws(StoreError) {
        guard !visits.isEmpty else { return }
        var unique = Set<VisitorKey>()
        for visit in visits where !visit.isBot { unique.insert(VisitorKey(visit)) }
        let visitors = seenVisitors.unseen(unique)
        try await run {
            try await self.transaction {
                let before = Self.int(try await self.connection.query("SELECT coalesce(max(id), 0) AS id FROM visits").first, "id")
                for chunk in chunks(visits, of: Self.batchRows) {
                    _ = try await self.connection.query(Self.insert(into: "visits", VisitRow.columns, rows: chunk.count),
                                                        chunk.flatMap { Self.binds(VisitRow($0)) })
                }
                try await self.countVisits(after: before)
                try await self.addVisitors(visitors)
            }
        }
        seenVisitors.remember(visitors)
    }

    /// Adds the visits stored after row `id` to the hourly and daily counters, in SQL: the
    /// same sums as `VisitRollup` (the contract tests hold the two to each other), without
    /// binding a value per counter row. Call inside the transaction that stored them.
    func countVisits(after id: Int64) async throws {
        _ = try await connection.query(Self.countHours, [.integer(Int(id))])
        _ = try await connection.query(Self.countDays, [.integer(Int(id))])
    }

    private static let countHours = """
        INSERT INTO visit_hours (domain, code, hour, campaign, decision, bot, visits)
        SELECT domain, coalesce(code, ''), CAST(at AS INTEGER) - CAST(at AS INTEGER) % 3600, coalesce(campaign, ''), decision,
               bot <> 'none', count(*)
        FROM visits WHERE id > ?1
        GROUP BY 1, 2, 3, 4, 5, 6
        ON CONFLICT (domain, code, hour, campaign, decision, bot) DO UPDATE SET visits = visits + excluded.visits
        """

    /// One row per visit and breakdown value (`Breakdown`), summed per day: one `SELECT` per
    /// dimension over the batch's rows (an index range), each yielding only the visits that
    /// have a value.
    private static let countDays: String = {
        let key = "domain, coalesce(code, '') AS code, CAST(at AS INTEGER) - CAST(at AS INTEGER) % 86400 AS day, "
            + "coalesce(campaign, '') AS campaign, bot = 'none' AS human"
        let dimensions: [(name: String, value: String, condition: String)] = [
            ("platform", "platform", "1"), ("device", "device", "1"),
            ("in-app", "in_app", "in_app <> ''"), ("referrer", "referrer_host", "referrer_host <> ''"),
            ("country", "country", "country <> ''"), ("bot", "bot", "bot <> 'none'"),
        ] + ["ref", "campaign_tag", "channel", "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content"].map { column in
            ("tag", "'\(column == "campaign_tag" ? "campaign" : column)=' || \(column)", "\(column) <> ''")
        }
        let selects = dimensions.map { dimension in
            "SELECT \(key), '\(dimension.name)' AS dimension, \(dimension.value) AS value FROM visits WHERE id > ?1 AND \(dimension.condition)"
        }
        return """
            INSERT INTO visit_days (domain, code, day, campaign, dimension, value, humans, bots)
            SELECT domain, code, day, campaign, dimension, value, sum(human), sum(1 - human)
            FROM (\(selects.joined(separator: " UNION ALL ")))
            GROUP BY 1, 2, 3, 4, 5, 6
            ON CONFLICT (domain, code, day, campaign, dimension, value) DO UPDATE SET humans = humans + excluded.humans, bots = bots + excluded.bots
            """
    }()

    /// Visitors new on a link that day add one to its daily count. Call inside the transaction.
    func addVisitors(_ visitors: [VisitorKey]) async throws {
        var newVisitors: [LinkDay: Int] = [:]
        for chunk in chunks(visitors, of: Self.batchRows) {
            let sql = Self.insert(into: "visitor_days", Self.visitorColumns, rows: chunk.count,
                                  then: " ON CONFLICT DO NOTHING RETURNING day, domain, code")
            for row in try await connection.query(sql, chunk.flatMap(Self.binds)) {
                newVisitors[LinkDay(day: Self.int(row, "day"), domain: Self.string(row, "domain"), code: Self.string(row, "code")), default: 0] += 1
            }
        }
        for chunk in chunks(Array(newVisitors), of: Self.batchRows) {
            _ = try await connection.query(
                Self.upsert(into: "link_visitors", ["domain", "code", "day"], counts: ["visitors"], rows: chunk.count),
                chunk.flatMap { [.text($0.key.domain), .text($0.key.code), .integer(Int($0.key.day)), .integer($0.value)] })
        }
        // The same for the domain's and the campaign's visitor sets.
        var members: [[String]] = []
        for visitor in visitors { for set in visitor.sets { members.append([set, String(visitor.day), visitor.ipHash]) } }
        var newInSets: [[String]: Int] = [:]
        for chunk in chunks(Array(Set(members)), of: Self.batchRows) {
            let sql = Self.insert(into: "set_visitor_days", ["visitor_set", "day", "ip_hash"], rows: chunk.count,
                                  then: " ON CONFLICT DO NOTHING RETURNING visitor_set, day")
            for row in try await connection.query(sql, chunk.flatMap { [.text($0[0]), .integer(Int($0[1]) ?? 0), .text($0[2])] }) {
                newInSets[[Self.string(row, "visitor_set"), String(Self.int(row, "day"))], default: 0] += 1
            }
        }
        for chunk in chunks(Array(newInSets), of: Self.batchRows) {
            _ = try await connection.query(
                Self.upsert(into: "set_visitors", ["visitor_set", "day"], counts: ["visitors"], rows: chunk.count),
                chunk.flatMap { [.text($0.key[0]), .integer(Int($0.key[1]) ?? 0), .integer($0.value)] })
        }
    }

    /// Counts what was stored before the counters existed (once, when migration 4 is applied).
    func backfillCounters() async throws {
        try await transaction { try await self.countVisits(after: 0) }
        var after: Int64 = 0
        while true {
            let rows = try await visitRows(after: after, limit: 10_000)
            guard let last = rows.last else { break }
            let visitors = Set(rows.map(\.row.visit).filter { !$0.isBot }.map(VisitorKey.init))
            try await transaction { try await self.addVisitors(Array(visitors)) }
            after = last.id
        }
        let events = try await connection.query("SELECT document FROM app_events").map { try Documents.decode(AppEvent.self, $0) }
        try await transaction { try await self.countEvents(events) }
    }

    /// Raw visits after a row id, in id order (for counting and copying).
    func visitRows(after id: Int64, limit: Int) async throws -> [(id: Int64, row: VisitRow)] {
        try await connection.query("SELECT id, \(VisitRow.columns.joined(separator: ", ")) FROM visits WHERE id > ? ORDER BY id LIMIT ?",
                                   [.integer(Int(id)), .integer(limit)]).map { row in
            func text(_ column: String) -> String? { row.column(column)?.string }
            let visit = VisitRow(
                at: row.column("at")?.double ?? 0, domain: Self.string(row, "domain"), code: text("code"), path: Self.string(row, "path"),
                platform: Self.string(row, "platform"), os_version: text("os_version"), device: Self.string(row, "device"),
                browser: Self.string(row, "browser"), in_app: text("in_app"), bot: Self.string(row, "bot"), decision: Self.string(row, "decision"),
                referrer_host: text("referrer_host"), ref: text("ref"), campaign: text("campaign"), channel: text("channel"),
                utm_source: text("utm_source"), utm_medium: text("utm_medium"), utm_campaign: text("utm_campaign"), utm_term: text("utm_term"),
                utm_content: text("utm_content"), campaign_tag: text("campaign_tag"), country: text("country"), ip_hash: Self.string(row, "ip_hash"))
            return (Self.int(row, "id"), visit)
        }
    }

    /// Adds events to their counters; call inside the transaction that stores them.
    func countEvents(_ events: [AppEvent]) async throws {
        for chunk in chunks(Array(EventCountKey.counts(events)), of: Self.batchRows) {
            _ = try await connection.query(Self.upsert(into: "event_counts", Self.eventColumns, counts: ["events"], rows: chunk.count),
                                           chunk.flatMap { Self.binds($0.key) + [.integer($0.value)] })
        }
    }

    public func visitCount() async throws(StoreError) -> Int {
        try await run {
            Int(try await self.connection.query("SELECT count(*) AS n FROM visits").first?.column("n")?.integer ?? 0)
        }
    }

    public func visitSeries(_ scope: StatsScope, _ period: StatsPeriod) async throws(StoreError) -> [SeriesRow] {
        let (filter, binds) = Self.filter(scope, time: "hour", period.firstHour..<period.endHour)
        let origin = SQLiteData.integer(Int(period.firstHour)), size = SQLiteData.integer(Int(period.bucket.seconds))
        return try await run {
            try await self.connection.query("""
                SELECT hour - ((hour - ?) % ?) AS bucket, decision, bot, sum(visits) AS visits FROM visit_hours
                WHERE \(filter) GROUP BY bucket, decision, bot
                """, [origin, size] + binds).map { row in
                SeriesRow(bucket: Self.int(row, "bucket"), decision: Self.string(row, "decision"), bot: Self.int(row, "bot") != 0,
                          visits: Int(Self.int(row, "visits")))
            }
        }
    }

    public func visitsByLink(_ scope: StatsScope, hours: Range<Int64>) async throws(StoreError) -> [LinkRow] {
        let (filter, binds) = Self.filter(scope, time: "hour", hours)
        return try await run {
            try await self.connection.query("""
                SELECT domain, code, campaign, sum(visits * (1 - bot)) AS humans, sum(visits * bot) AS bots FROM visit_hours
                WHERE \(filter) GROUP BY domain, code, campaign
                """, binds).map { row in
                LinkRow(domain: Self.string(row, "domain"), code: Self.string(row, "code"), campaign: Self.string(row, "campaign"),
                        tally: Tally(humans: Int(Self.int(row, "humans")), bots: Int(Self.int(row, "bots"))))
            }
        }
    }

    public func visitBreakdowns(_ scope: StatsScope, days: Range<Int64>) async throws(StoreError) -> [BreakdownRow] {
        let (filter, binds) = Self.filter(scope, time: "day", days)
        return try await run {
            try await self.connection.query("""
                SELECT dimension, value, sum(humans) AS humans, sum(bots) AS bots FROM visit_days WHERE \(filter) GROUP BY dimension, value
                """, binds).map { row in
                BreakdownRow(dimension: Self.string(row, "dimension"), value: Self.string(row, "value"),
                             tally: Tally(humans: Int(Self.int(row, "humans")), bots: Int(Self.int(row, "bots"))))
            }
        }
    }

    public func visitorsPerDay(_ scope: StatsScope, days: Range<Int64>) async throws(StoreError) -> [Int64: Int] {
        // Visitors are counted as they arrive: per link, or per domain and campaign set.
        let sql: String
        let binds: [SQLiteData]
        if let sets = scope.visitorSets {
            sql = "SELECT day, sum(visitors) AS visitors FROM set_visitors WHERE visitor_set IN ("
                + Array(repeating: "?", count: sets.count).joined(separator: ", ") + ") AND day >= ? AND day < ? GROUP BY day"
            binds = sets.map { .text($0) } + [.integer(Int(days.lowerBound)), .integer(Int(days.upperBound))]
        } else {
            let (filter, filterBinds) = Self.filter(scope, time: "day", days)
            sql = "SELECT day, visitors FROM link_visitors WHERE \(filter)"
            binds = filterBinds
        }
        return try await run {
            var result: [Int64: Int] = [:]
            for row in try await self.connection.query(sql, binds) { result[Self.int(row, "day")] = Int(Self.int(row, "visitors")) }
            return result
        }
    }

    public func eventCounts(_ scope: StatsScope, hours: Range<Int64>) async throws(StoreError) -> [EventCountRow] {
        let (filter, binds) = Self.filter(scope, time: "hour", hours)
        let sql = "SELECT \(Self.eventColumns.joined(separator: ", ")), events FROM event_counts WHERE app_id = ? AND "
            + (scope.includesUnlinked ? "(domain = '' AND hour >= ? AND hour < ? OR \(filter))" : filter)
        let unlinked: [SQLiteData] = scope.includesUnlinked ? [.integer(Int(hours.lowerBound)), .integer(Int(hours.upperBound))] : []
        return try await run {
            try await self.connection.query(sql, [.text(scope.appID)] + unlinked + binds).map { row in
                EventCountRow(key: EventCountKey(
                    hour: Self.int(row, "hour"), appID: Self.string(row, "app_id"), domain: Self.string(row, "domain"),
                    code: Self.string(row, "code"), campaign: Self.string(row, "campaign"), platform: Self.string(row, "platform"),
                    kind: Self.string(row, "kind"), matchType: Self.string(row, "match_type"), tags: Self.string(row, "tags")),
                    events: Int(Self.int(row, "events")))
            }
        }
    }

    /// Deletes a few thousand visits at a time, letting the visit writer in between.
    public func pruneVisits(before date: Date) async throws(StoreError) -> Int {
        var total = 0
        while true {
            let deleted = try await run {
                try await self.connection.query(
                    "DELETE FROM visits WHERE id IN (SELECT id FROM visits WHERE at < ? ORDER BY at LIMIT 5000) RETURNING id",
                    [.float(date.timeIntervalSince1970)]).count
            }
            total += deleted
            if deleted < 5000 { return total }
        }
    }

    /// The `WHERE` of a scope (fixed text per shape of scope; every value bound).
    private static func filter(_ scope: StatsScope, time column: String, _ range: Range<Int64>) -> (String, [SQLiteData]) {
        var clauses = ["domain IN (" + Array(repeating: "?", count: scope.domains.count).joined(separator: ", ") + ")"]
        var binds: [SQLiteData] = scope.domains.map { .text($0) }
        if let code = scope.code {
            clauses.append("code = ?")
            binds.append(.text(code))
        }
        if let campaign = scope.campaign {
            clauses.append("campaign = ?")
            binds.append(.text(campaign))
        }
        clauses.append("\(column) >= ? AND \(column) < ?")
        binds += [.integer(Int(range.lowerBound)), .integer(Int(range.upperBound))]
        return ("(" + clauses.joined(separator: " AND ") + ")", binds)
    }

    private static func binds(_ row: VisitRow) -> [SQLiteData] {
        [.float(row.at), .text(row.domain), text(row.code), .text(row.path), .text(row.platform), text(row.os_version), .text(row.device),
         .text(row.browser), text(row.in_app), .text(row.bot), .text(row.decision), text(row.referrer_host), text(row.ref), text(row.campaign),
         text(row.channel), text(row.utm_source), text(row.utm_medium), text(row.utm_campaign), text(row.utm_term), text(row.utm_content),
         text(row.campaign_tag), text(row.country), .text(row.ip_hash)]
    }

    private static func binds(_ key: VisitorKey) -> [SQLiteData] {
        [.integer(Int(key.day)), .text(key.domain), .text(key.code), .text(key.ipHash), .text(key.campaign)]
    }

    private static func binds(_ key: EventCountKey) -> [SQLiteData] {
        [.text(key.appID), .text(key.domain), .text(key.code), .integer(Int(key.hour)), .text(key.campaign), .text(key.platform),
         .text(key.kind), .text(key.matchType), .text(key.tags)]
    }

    private static func text(_ value: String?) -> SQLiteData { value.map { .text($0) } ?? .null }
    private static func string(_ row: SQLiteRow, _ column: String) -> String { row.column(column)?.string ?? "" }
    private static func int(_ row: SQLiteRow?, _ column: String) -> Int64 { Int64(row?.column(column)?.integer ?? 0) }
}

/// A link on a day: the key of its visitor count.
struct LinkDay: Hashable {
    var day: Int64
    var domain: String
    var code: String
}
