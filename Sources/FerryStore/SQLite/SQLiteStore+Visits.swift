import Foundation
import FerryKit
import SQLiteNIO

// MARK: Visits and their counters

extension SQLiteStore {
    /// Rows per multi-row statement (`INSERT … VALUES (?, …), (?, …)`) of event counters. The
    /// text depends only on the row count; values are bound.
    static let batchRows = 1000

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
        let visitors = seenVisitors.unseen(in: visits)
        try await writingVisits { try await self.visitWriter.write(visits, visitors: visitors) }
        seenVisitors.remember(visitors)
    }

    /// Brings the counters up to date with every visit stored; before reading them.
    func countPendingVisits() async throws(StoreError) {
        try await writingVisits { try await self.visitWriter.countPending() }
    }

    /// Runs `body` on the visit writer, mapping its errors to the store's.
    func writingVisits(_ body: () async throws -> Void) async throws(StoreError) {
        do { try await body() } catch { throw .unavailable("SQLite: \(error)") }
    }

    /// Counts what was stored before the counters existed (once, when migration 4 is applied).
    func backfillCounters() async throws {
        _ = try await connection.query("UPDATE visit_counting SET counted_through = 0")
        try await visitWriter.countPending()
        var after: Int64 = 0
        while true {
            let rows = try await visitRows(after: after, limit: 10_000)
            guard let last = rows.last else { break }
            let visitors = Set(rows.map(\.row.visit).filter { !$0.isBot }.map(VisitorKey.init))
            try await visitWriter.write([], visitors: Array(visitors))
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
        try await countPendingVisits()
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
        try await countPendingVisits()
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
        try await countPendingVisits()
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
        try await countPendingVisits()
        var total = 0
        while true {
            let deleted = try await run {
                try await self.connection.query(
                    // Only counted visits (the count above took all, but the writer may have added more).
                    """
                    DELETE FROM visits WHERE id IN (
                        SELECT id FROM visits WHERE at < ? AND id <= (SELECT counted_through FROM visit_counting) ORDER BY at LIMIT 5000)
                    RETURNING id
                    """,
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

    private static func binds(_ key: EventCountKey) -> [SQLiteData] {
        [.text(key.appID), .text(key.domain), .text(key.code), .integer(Int(key.hour)), .text(key.campaign), .text(key.platform),
         .text(key.kind), .text(key.matchType), .text(key.tags)]
    }

    private static func text(_ value: String?) -> SQLiteData { value.map { .text($0) } ?? .null }
    private static func string(_ row: SQLiteRow, _ column: String) -> String { row.column(column)?.string ?? "" }
    private static func int(_ row: SQLiteRow?, _ column: String) -> Int64 { Int64(row?.column(column)?.integer ?? 0) }
}
