import Foundation
import FerryKit
import Logging
import PostgresNIO

// MARK: Visits and their counters

extension PostgresStore {
    public func record(_ visits: [Visit]) async throws(StoreError) {
        guard !visits.isEmpty else { return }
        let rows = try Self.json(visits.map(VisitRow.init))
        let rollup = VisitRollup(visits)
        let visitors = seenVisitors.unseen(rollup.visitors)
        let logger = logger
        try await transaction { connection in
            try await connection.query("""
                INSERT INTO visits (\(unescaped: Self.visitColumns)) SELECT \(unescaped: Self.visitValues)
                FROM jsonb_to_recordset(\(rows)::jsonb) AS r(\(unescaped: Self.visitRecord))
                """, logger: logger)
            try await Self.addToCounters(rollup, visitors: visitors, on: connection, logger: logger)
        }
        seenVisitors.remember(visitors)
    }

    private static let visitColumns = VisitRow.columns.joined(separator: ", ")
    private static let visitValues = VisitRow.columns.map { $0 == "at" ? "to_timestamp(r.at)" : "r.\($0)" }.joined(separator: ", ")
    private static let visitRecord = VisitRow.columns.map { $0 == "at" ? "at double precision" : "\($0) text" }.joined(separator: ", ")

    /// Adds a batch's counts inside the transaction that stores its visits. Rows go in key
    /// order, so that nodes writing at once lock counter rows in the same order (no deadlock).
    static func addToCounters(_ rollup: VisitRollup, visitors: [VisitorKey], on connection: PostgresConnection, logger: Logger) async throws {
        struct Hour: Encodable { let domain: String, code: String, hour: Int64, campaign: String, decision: String, bot: Bool, visits: Int }
        struct Day: Encodable { let domain: String, code: String, day: Int64, campaign: String, dimension: String, value: String, humans: Int, bots: Int }
        struct Visitor: Encodable { let day: Int64, domain: String, code: String, ip_hash: String, campaign: String }
        let hours = rollup.hours.map { key, visits in
            Hour(domain: key.domain, code: key.code, hour: key.hour, campaign: key.campaign, decision: key.decision, bot: key.bot, visits: visits)
        }.sorted { ($0.domain, $0.code, $0.hour, $0.campaign, $0.decision, $0.bot ? 1 : 0) < ($1.domain, $1.code, $1.hour, $1.campaign, $1.decision, $1.bot ? 1 : 0) }
        let days = rollup.days.map { key, tally in
            Day(domain: key.domain, code: key.code, day: key.day, campaign: key.campaign, dimension: key.dimension, value: key.value,
                humans: tally.humans, bots: tally.bots)
        }.sorted { ($0.domain, $0.code, $0.day, $0.campaign, $0.dimension, $0.value) < ($1.domain, $1.code, $1.day, $1.campaign, $1.dimension, $1.value) }
        let newVisitors = visitors.map { Visitor(day: $0.day, domain: $0.domain, code: $0.code, ip_hash: $0.ipHash, campaign: $0.campaign) }
            .sorted { ($0.day, $0.domain, $0.code, $0.ip_hash) < ($1.day, $1.domain, $1.code, $1.ip_hash) }
        try await connection.query("""
            INSERT INTO visit_hours (domain, code, hour, campaign, decision, bot, visits)
            SELECT r.domain, r.code, r.hour, r.campaign, r.decision, r.bot, r.visits
            FROM jsonb_to_recordset(\(try json(hours))::jsonb) AS r(domain text, code text, hour bigint, campaign text, decision text,
                 bot boolean, visits bigint)
            ON CONFLICT (domain, code, hour, campaign, decision, bot) DO UPDATE SET visits = visit_hours.visits + excluded.visits
            """, logger: logger)
        if !days.isEmpty {
            try await connection.query("""
                INSERT INTO visit_days (domain, code, day, campaign, dimension, value, humans, bots)
                SELECT r.domain, r.code, r.day, r.campaign, r.dimension, r.value, r.humans, r.bots
                FROM jsonb_to_recordset(\(try json(days))::jsonb) AS r(domain text, code text, day bigint, campaign text, dimension text,
                     value text, humans bigint, bots bigint)
                ON CONFLICT (domain, code, day, campaign, dimension, value)
                DO UPDATE SET humans = visit_days.humans + excluded.humans, bots = visit_days.bots + excluded.bots
                """, logger: logger)
        }
        guard !newVisitors.isEmpty else { return }
        // Visitors new on a link that day add one to its daily count.
        try await connection.query("""
            WITH new AS (
                INSERT INTO visitor_days (day, domain, code, ip_hash, campaign)
                SELECT r.day, r.domain, r.code, r.ip_hash, r.campaign
                FROM jsonb_to_recordset(\(try json(newVisitors))::jsonb) AS r(day bigint, domain text, code text, ip_hash text, campaign text)
                ON CONFLICT DO NOTHING
                RETURNING domain, code, day
            )
            INSERT INTO link_visitors (domain, code, day, visitors)
            SELECT domain, code, day, count(*) FROM new GROUP BY domain, code, day ORDER BY domain, code, day
            ON CONFLICT (domain, code, day) DO UPDATE SET visitors = link_visitors.visitors + excluded.visitors
            """, logger: logger)
    }

    /// Adds events to their counters, inside the transaction that stores them.
    static func countEvents(_ events: [AppEvent], on connection: PostgresConnection, logger: Logger) async throws {
        struct Count: Encodable {
            let hour: Int64, app_id: String, domain: String, code: String, campaign: String, platform: String, kind: String
            let match_type: String, tags: String, events: Int
        }
        let counts = EventCountKey.counts(events).map { key, events in
            Count(hour: key.hour, app_id: key.appID, domain: key.domain, code: key.code, campaign: key.campaign, platform: key.platform,
                  kind: key.kind, match_type: key.matchType, tags: key.tags, events: events)
        }.sorted { [$0.app_id, $0.domain, $0.code, String($0.hour), $0.campaign, $0.platform, $0.kind, $0.match_type, $0.tags]
            .lexicographicallyPrecedes([$1.app_id, $1.domain, $1.code, String($1.hour), $1.campaign, $1.platform, $1.kind, $1.match_type, $1.tags]) }
        guard !counts.isEmpty else { return }
        try await connection.query("""
            INSERT INTO event_counts (hour, app_id, domain, code, campaign, platform, kind, match_type, tags, events)
            SELECT r.hour, r.app_id, r.domain, r.code, r.campaign, r.platform, r.kind, r.match_type, r.tags, r.events
            FROM jsonb_to_recordset(\(try json(counts))::jsonb) AS r(hour bigint, app_id text, domain text, code text, campaign text,
                 platform text, kind text, match_type text, tags text, events bigint)
            ON CONFLICT (app_id, domain, code, hour, campaign, platform, kind, match_type, tags)
            DO UPDATE SET events = event_counts.events + excluded.events
            """, logger: logger)
    }

    /// Counts what was stored before the counters existed (in the migration's transaction).
    static func backfillCounters(on connection: PostgresConnection, logger: Logger) async throws {
        var after: Int64 = 0
        while true {
            let rows = try await visitRows(after: after, limit: 10_000, on: connection, logger: logger)
            guard let last = rows.last else { break }
            let rollup = VisitRollup(rows.map(\.row.visit))
            try await addToCounters(rollup, visitors: Array(rollup.visitors), on: connection, logger: logger)
            after = last.id
        }
        var events: [AppEvent] = []
        for try await text in try await connection.query("SELECT document::text FROM app_events", logger: logger).decode(String.self) {
            events.append(try Documents.decoder.decode(AppEvent.self, from: Data(text.utf8)))
        }
        try await countEvents(events, on: connection, logger: logger)
    }

    /// Raw visits after a row id, in id order (for counting and copying).
    static func visitRows(after id: Int64, limit: Int, on connection: PostgresConnection, logger: Logger) async throws -> [(id: Int64, row: VisitRow)] {
        var rows: [(Int64, VisitRow)] = []
        let query: PostgresQuery = """
            SELECT id, (to_jsonb(v) - 'id' || jsonb_build_object('at', extract(epoch FROM v.at)))::text
            FROM visits v WHERE id > \(id) ORDER BY id LIMIT \(limit)
            """
        for try await (id, text) in try await connection.query(query, logger: logger).decode((Int64, String).self) {
            rows.append((id, try Documents.decoder.decode(VisitRow.self, from: Data(text.utf8))))
        }
        return rows
    }

    public func visitCount() async throws(StoreError) -> Int {
        try await run {
            for try await count in try await client.query("SELECT count(*) FROM visits", logger: logger).decode(Int.self) { return count }
            return 0
        }
    }

    public func visitSeries(_ scope: StatsScope, _ period: StatsPeriod) async throws(StoreError) -> [SeriesRow] {
        let origin = period.firstHour, size = period.bucket.seconds
        let query: PostgresQuery = """
            SELECT hour - ((hour - \(origin)) % \(size)) AS bucket, decision, bot, sum(visits)::int8 FROM visit_hours
            WHERE domain = ANY(\(scope.domains)) AND (\(scope.code)::text IS NULL OR code = \(scope.code))
              AND (\(scope.campaign)::text IS NULL OR campaign = \(scope.campaign)) AND hour >= \(origin) AND hour < \(period.endHour)
            GROUP BY bucket, decision, bot
            """
        return try await run {
            var rows: [SeriesRow] = []
            for try await (bucket, decision, bot, visits) in try await client.query(query, logger: logger).decode((Int64, String, Bool, Int64).self) {
                rows.append(SeriesRow(bucket: bucket, decision: decision, bot: bot, visits: Int(visits)))
            }
            return rows
        }
    }

    public func visitsByLink(_ scope: StatsScope, hours: Range<Int64>) async throws(StoreError) -> [LinkRow] {
        let query: PostgresQuery = """
            SELECT domain, code, campaign, (sum(visits) FILTER (WHERE NOT bot))::int8, (sum(visits) FILTER (WHERE bot))::int8 FROM visit_hours
            WHERE domain = ANY(\(scope.domains)) AND (\(scope.code)::text IS NULL OR code = \(scope.code))
              AND (\(scope.campaign)::text IS NULL OR campaign = \(scope.campaign)) AND hour >= \(hours.lowerBound) AND hour < \(hours.upperBound)
            GROUP BY domain, code, campaign
            """
        return try await run {
            var rows: [LinkRow] = []
            for try await (domain, code, campaign, humans, bots) in try await client.query(query, logger: logger)
                .decode((String, String, String, Int64?, Int64?).self) {
                rows.append(LinkRow(domain: domain, code: code, campaign: campaign, tally: Tally(humans: Int(humans ?? 0), bots: Int(bots ?? 0))))
            }
            return rows
        }
    }

    public func visitBreakdowns(_ scope: StatsScope, days: Range<Int64>) async throws(StoreError) -> [BreakdownRow] {
        let query: PostgresQuery = """
            SELECT dimension, value, sum(humans)::int8, sum(bots)::int8 FROM visit_days
            WHERE domain = ANY(\(scope.domains)) AND (\(scope.code)::text IS NULL OR code = \(scope.code))
              AND (\(scope.campaign)::text IS NULL OR campaign = \(scope.campaign)) AND day >= \(days.lowerBound) AND day < \(days.upperBound)
            GROUP BY dimension, value
            """
        return try await run {
            var rows: [BreakdownRow] = []
            for try await (dimension, value, humans, bots) in try await client.query(query, logger: logger).decode((String, String, Int64, Int64).self) {
                rows.append(BreakdownRow(dimension: dimension, value: value, tally: Tally(humans: Int(humans), bots: Int(bots))))
            }
            return rows
        }
    }

    public func visitorsPerDay(_ scope: StatsScope, days: Range<Int64>) async throws(StoreError) -> [Int64: Int] {
        // One link's days are counted as visitors arrive; wider scopes count distinct hashes.
        let query: PostgresQuery = if let code = scope.code {
            """
            SELECT day, visitors FROM link_visitors
            WHERE domain = ANY(\(scope.domains)) AND code = \(code) AND day >= \(days.lowerBound) AND day < \(days.upperBound)
            """
        } else {
            """
            SELECT day, count(DISTINCT ip_hash) FROM visitor_days
            WHERE domain = ANY(\(scope.domains)) AND (\(scope.campaign)::text IS NULL OR campaign = \(scope.campaign))
              AND day >= \(days.lowerBound) AND day < \(days.upperBound)
            GROUP BY day
            """
        }
        return try await run {
            var result: [Int64: Int] = [:]
            for try await (day, visitors) in try await client.query(query, logger: logger).decode((Int64, Int64).self) {
                result[day] = Int(visitors)
            }
            return result
        }
    }

    public func eventCounts(_ scope: StatsScope, hours: Range<Int64>) async throws(StoreError) -> [EventCountRow] {
        try await run {
            var result: [EventCountRow] = []
            let query: PostgresQuery = """
                SELECT hour, app_id, domain, code, campaign, platform, kind, match_type, tags, events FROM event_counts
                WHERE app_id = \(scope.appID) AND hour >= \(hours.lowerBound) AND hour < \(hours.upperBound)
                  AND ((domain = ANY(\(scope.domains)) AND (\(scope.code)::text IS NULL OR code = \(scope.code))
                        AND (\(scope.campaign)::text IS NULL OR campaign = \(scope.campaign)))
                       OR (\(scope.includesUnlinked) AND domain = ''))
                """
            for try await row in try await client.query(query, logger: logger) {
                let (hour, appID, domain, code, campaign, platform, kind, matchType, tags, events) =
                    try row.decode((Int64, String, String, String, String, String, String, String, String, Int64).self)
                result.append(EventCountRow(key: EventCountKey(hour: hour, appID: appID, domain: domain, code: code, campaign: campaign,
                                                               platform: platform, kind: kind, matchType: matchType, tags: tags),
                                            events: Int(events)))
            }
            return result
        }
    }

    /// Deletes ten thousand visits at a time, so no statement holds the table for long.
    public func pruneVisits(before date: Date) async throws(StoreError) -> Int {
        var total = 0
        while true {
            let deleted = try await rows("""
                DELETE FROM visits WHERE id IN (SELECT id FROM visits WHERE at < \(date) ORDER BY at LIMIT 10000) RETURNING id
                """).count
            total += deleted
            if deleted < 10_000 { return total }
        }
    }
}
