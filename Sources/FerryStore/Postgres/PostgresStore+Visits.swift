import Foundation
import FerryKit
import Logging
import PostgresNIO

// MARK: Visits and their counters

extension PostgresStore {
    public func record(_ visits: [Visit]) async throws(StoreError) {
        guard !visits.isEmpty else { return }
        let rows = try Self.json(visits.map(VisitRow.init))
        let visitors = seenVisitors.unseen(in: visits)
        let logger = logger
        var bindings = PostgresBindings()
        bindings.append(rows)
        let insertAndCount = PostgresQuery(unsafeSQL: Self.insertAndCount, binds: bindings)
        try await transaction { connection in
            try await connection.query(insertAndCount, logger: logger)
            try await Self.addVisitors(visitors, on: connection, logger: logger)
        }
        seenVisitors.remember(visitors)
    }

    private static let visitColumns = VisitRow.columns.joined(separator: ", ")
    private static let visitValues = VisitRow.columns.map { $0 == "at" ? "to_timestamp(r.at)" : "r.\($0)" }.joined(separator: ", ")
    private static let visitRecord = VisitRow.columns.map { $0 == "at" ? "at double precision" : "\($0) text" }.joined(separator: ", ")
    /// What the counters read of a visit.
    private static let countedColumns = """
        domain, coalesce(code, '') AS code, floor(extract(epoch FROM at))::bigint AS second, coalesce(campaign, '') AS campaign,
        decision, bot, platform, device, in_app, referrer_host, country, ref, campaign_tag, channel, utm_source, utm_medium,
        utm_campaign, utm_term, utm_content
        """

    /// One statement: the batch goes into `visits` and, through its `RETURNING` rows, into the
    /// hourly and daily counters — the same sums as `VisitRollup` (the contract tests hold
    /// the two to each other). Counter rows go in key order, so that nodes writing at once lock
    /// them in the same order (no deadlock).
    private static let insertAndCount = """
        WITH v AS (
            INSERT INTO visits (\(visitColumns)) SELECT \(visitValues) FROM jsonb_to_recordset($1::jsonb) AS r(\(visitRecord))
            RETURNING \(countedColumns)
        ),
        \(counting)
        SELECT count(*) FROM v
        """

    /// Counts every stored visit (once, when the counters are created).
    private static let countStored = """
        WITH v AS (SELECT \(countedColumns) FROM visits),
        \(counting)
        SELECT count(*) FROM v
        """

    /// The counting part of a statement whose visits are in `v`.
    private static let counting = """
        hours AS (
            INSERT INTO visit_hours (domain, code, hour, campaign, decision, bot, visits)
            SELECT domain, code, second - second % 3600, campaign, decision, bot <> 'none', count(*)
            FROM v GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6
            ON CONFLICT (domain, code, hour, campaign, decision, bot) DO UPDATE SET visits = visit_hours.visits + excluded.visits
        ),
        days AS (
            INSERT INTO visit_days (domain, code, day, campaign, dimension, value, humans, bots)
            SELECT domain, code, second - second % 86400, campaign, d.dimension, d.value,
                   count(*) FILTER (WHERE bot = 'none'), count(*) FILTER (WHERE bot <> 'none')
            FROM v CROSS JOIN LATERAL (VALUES
                ('platform', platform), ('device', device), ('in-app', in_app), ('referrer', referrer_host), ('country', country),
                ('bot', CASE WHEN bot <> 'none' THEN bot END),
                ('tag', 'ref=' || nullif(ref, '')), ('tag', 'campaign=' || nullif(campaign_tag, '')), ('tag', 'channel=' || nullif(channel, '')),
                ('tag', 'utm_source=' || nullif(utm_source, '')), ('tag', 'utm_medium=' || nullif(utm_medium, '')),
                ('tag', 'utm_campaign=' || nullif(utm_campaign, '')), ('tag', 'utm_term=' || nullif(utm_term, '')),
                ('tag', 'utm_content=' || nullif(utm_content, ''))
            ) AS d(dimension, value)
            WHERE d.value IS NOT NULL AND d.value <> ''
            GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6
            ON CONFLICT (domain, code, day, campaign, dimension, value)
            DO UPDATE SET humans = visit_days.humans + excluded.humans, bots = visit_days.bots + excluded.bots
        )
        """

    /// Visitors new on a link that day add one to its daily count (inside the transaction
    /// that stores the visits; in key order).
    static func addVisitors(_ visitors: [VisitorKey], on connection: PostgresConnection, logger: Logger) async throws {
        struct Visitor: Encodable { let day: Int64, domain: String, code: String, ip_hash: String, campaign: String }
        guard !visitors.isEmpty else { return }
        let rows = visitors.map { Visitor(day: $0.day, domain: $0.domain, code: $0.code, ip_hash: $0.ipHash, campaign: $0.campaign) }
            .sorted { ($0.day, $0.domain, $0.code, $0.ip_hash) < ($1.day, $1.domain, $1.code, $1.ip_hash) }
        try await connection.query("""
            WITH new AS (
                INSERT INTO visitor_days (day, domain, code, ip_hash, campaign)
                SELECT r.day, r.domain, r.code, r.ip_hash, r.campaign
                FROM jsonb_to_recordset(\(try json(rows))::jsonb) AS r(day bigint, domain text, code text, ip_hash text, campaign text)
                ON CONFLICT DO NOTHING
                RETURNING domain, code, day
            )
            INSERT INTO link_visitors (domain, code, day, visitors)
            SELECT domain, code, day, count(*) FROM new GROUP BY domain, code, day ORDER BY domain, code, day
            ON CONFLICT (domain, code, day) DO UPDATE SET visitors = link_visitors.visitors + excluded.visitors
            """, logger: logger)
        // The same for the domain's and the campaign's visitor sets.
        struct Member: Encodable, Hashable { let visitor_set: String, day: Int64, ip_hash: String }
        let members = Set(visitors.flatMap { visitor in visitor.sets.map { Member(visitor_set: $0, day: visitor.day, ip_hash: visitor.ipHash) } })
            .sorted { ($0.visitor_set, $0.day, $0.ip_hash) < ($1.visitor_set, $1.day, $1.ip_hash) }
        try await connection.query("""
            WITH new AS (
                INSERT INTO set_visitor_days (visitor_set, day, ip_hash)
                SELECT r.visitor_set, r.day, r.ip_hash
                FROM jsonb_to_recordset(\(try json(members))::jsonb) AS r(visitor_set text, day bigint, ip_hash text)
                ON CONFLICT DO NOTHING
                RETURNING visitor_set, day
            )
            INSERT INTO set_visitors (visitor_set, day, visitors)
            SELECT visitor_set, day, count(*) FROM new GROUP BY visitor_set, day ORDER BY visitor_set, day
            ON CONFLICT (visitor_set, day) DO UPDATE SET visitors = set_visitors.visitors + excluded.visitors
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
        try await connection.query(PostgresQuery(unsafeSQL: countStored), logger: logger)
        var after: Int64 = 0
        while true {
            let rows = try await visitRows(after: after, limit: 10_000, on: connection, logger: logger)
            guard let last = rows.last else { break }
            let visitors = Set(rows.map(\.row.visit).filter { !$0.isBot }.map(VisitorKey.init))
            try await addVisitors(Array(visitors), on: connection, logger: logger)
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
        // Visitors are counted as they arrive: per link, or per domain and campaign set.
        let query: PostgresQuery = if let sets = scope.visitorSets {
            """
            SELECT day, sum(visitors)::int8 FROM set_visitors
            WHERE visitor_set = ANY(\(sets)) AND day >= \(days.lowerBound) AND day < \(days.upperBound)
            GROUP BY day
            """
        } else {
            """
            SELECT day, visitors FROM link_visitors
            WHERE domain = ANY(\(scope.domains)) AND code = \(scope.code ?? "") AND day >= \(days.lowerBound) AND day < \(days.upperBound)
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
