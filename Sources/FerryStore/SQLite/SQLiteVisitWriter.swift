import FerryKit
import Foundation
import NIOPosix
// sqlite-nio's copy of SQLite (its functions are prefixed `sqlite_nio_`): the one the rest of
// the store uses through SQLiteNIO, called directly here to keep statements prepared.
import VaporCSQLite

/// Writes raw visits for `SQLiteStore`: a connection of its own, on a thread of its own, whose
/// statements are prepared once and run again for every row. (Through SQLiteNIO each batch was
/// a new multi-row statement to parse, and parsing cost more than storing the rows.)
///
/// Counters are summed from the raw visits in SQL every `countEvery`, and before anything reads
/// them: `visit_counting.counted_through` is the last visit counted, moved in the same
/// transaction as the counters, so a visit is counted exactly once whichever process counts it
/// and whenever one stops. Summing ten seconds of visits at once writes a link's counter rows
/// once instead of once per batch. Unique visitors are written with their visits.
///
/// The visits this writer stored since the last count are grouped in memory as they are
/// written, the way counting groups them, so counting its own visits reads no raw visit; visits
/// another process wrote (or stored before this one started) are grouped from the table.
///
/// The store's other connection (links read for cold requests, the API, installs) waits
/// whenever this one holds the database, so nothing here holds it for long: visits are grouped
/// into a temporary table under a read transaction, which blocks no one, and only adding the
/// groups to the counters takes the write lock. Deferred intents are written here too, so the
/// store's connection never waits for this one on the recorder's behalf.
final class SQLiteVisitWriter: @unchecked Sendable {
    private let path: String
    private let countEvery: Duration
    private let thread = NIOThreadPool(numberOfThreads: 1)

    // Touched on `thread` only.
    private var database: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]
    private var countedAt = ContinuousClock.now
    /// This writer's visits after `counted_through`, grouped; `nil` once anything else touched that range.
    private var uncounted: Uncounted?

    /// Visits grouped and counted at once at most (a few hundred milliseconds of grouping, which
    /// blocks no one, and a write transaction as long as the groups it adds).
    static let countChunk: Int64 = 250_000

    init(path: String, countEvery: Duration) {
        self.path = path
        self.countEvery = countEvery
        thread.start()
    }

    /// Stores visits, and the visitors among them not stored yet, in one transaction; then
    /// counts what is uncounted when `countEvery` has passed.
    func write(_ visits: [Visit], visitors: [VisitorKey]) async throws {
        let countDue = try await onThread {
            // The groups are kept while they are all of what is uncounted; if storing fails,
            // they are forgotten and counting reads the table.
            var mine = self.uncounted.take()
            try self.transaction {
                // Ids continue after the mark even when pruning took the newest rows, which
                // SQLite would otherwise number again.
                var id = try self.integer(Self.lastID)
                if mine?.through != id {
                    mine = try self.integer(Self.countedThrough) == id ? Uncounted(from: id, through: id) : nil
                }
                for visit in visits {
                    let row = VisitRow(visit)
                    id += 1
                    try self.execute(Self.insertVisit) { $0.bind(id); $0.bind(row) }
                    mine?.groups[row.countingKey, default: 0] += 1
                }
                mine?.through = id
                try self.addVisitors(visitors)
            }
            self.uncounted = mine
            return ContinuousClock.now - self.countedAt >= self.countEvery
        }
        if countDue { try await countPending() }
    }

    /// Stores deferred intents (with their JSON documents); a token already stored is kept.
    func insert(_ intents: [(intent: DeferredIntent, document: String)]) async throws {
        try await onThread {
            try self.transaction {
                for (intent, document) in intents {
                    try self.execute("""
                        INSERT INTO deferred_intents (token, app_id, ip_hash, document, created_at, expires_at)
                        VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (token) DO NOTHING
                        """) {
                        $0.bind(intent.token); $0.bind(intent.appID); $0.bind(intent.signals.ipHash); $0.bind(document)
                        $0.bind(intent.createdAt.timeIntervalSince1970); $0.bind(intent.expiresAt.timeIntervalSince1970)
                    }
                }
            }
        }
    }

    /// Counts every visit stored and not counted yet (`countChunk` at a time); readers of
    /// counters call it first.
    func countPending() async throws {
        while try await onThread({ try self.countUncounted() }) {}
    }

    /// Counts what is pending and closes the connection; the writer is not used afterwards.
    func close() async {
        try? await countPending()
        try? await onThread {
            for statement in self.statements.values { sqlite_nio_sqlite3_finalize(statement) }
            self.statements = [:]
            sqlite_nio_sqlite3_close_v2(self.database)
            self.database = nil
        }
        try? await thread.shutdownGracefully()
    }

    // MARK: On the writer's thread

    private func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await thread.runIfActive(body)
    }

    private func connection() throws -> OpaquePointer {
        if let database { return database }
        var opened: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let status = sqlite_nio_sqlite3_open_v2(path, &opened, flags, nil)
        guard status == SQLITE_OK, let opened else {
            defer { sqlite_nio_sqlite3_close_v2(opened) }
            throw SQLiteWriterError(status: status, message: opened.flatMap { sqlite_nio_sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "cannot open \(path)")
        }
        database = opened
        // The store's own connection set WAL mode (it stays with the file); these are per connection.
        for pragma in ["busy_timeout = 5000", "synchronous = NORMAL", "cache_size = -65536", "temp_store = MEMORY"] {
            try execute("PRAGMA \(pragma)", prepareOnce: false) { _ in }
        }
        try execute(Self.groupVisits.table, prepareOnce: false) { _ in }
        return opened
    }

    private func transaction<T>(_ body: () throws -> T) throws -> T {
        try transaction("BEGIN IMMEDIATE", body)
    }

    /// A transaction that reads the database (and may write temporary tables) without taking
    /// its write lock.
    private func readTransaction<T>(_ body: () throws -> T) throws -> T {
        try transaction("BEGIN", body)
    }

    private func transaction<T>(_ begin: String, _ body: () throws -> T) throws -> T {
        try execute(begin) { _ in }
        do {
            let result = try body()
            try execute("COMMIT") { _ in }
            return result
        } catch {
            _ = try? execute("ROLLBACK") { _ in }
            throw error
        }
    }

    /// Runs one statement to its end; the number of rows it changed.
    @discardableResult
    private func execute(_ sql: String, prepareOnce: Bool = true, _ bind: (inout Binder) -> Void) throws -> Int {
        let database = try connection()
        let statement = try prepared(sql, on: database, keep: prepareOnce)
        defer { if prepareOnce { sqlite_nio_sqlite3_reset(statement) } else { sqlite_nio_sqlite3_finalize(statement) } }
        var binder = Binder(statement: statement)
        bind(&binder)
        if let status = binder.failure { throw error(status, on: database) }
        var status = sqlite_nio_sqlite3_step(statement)
        while status == SQLITE_ROW { status = sqlite_nio_sqlite3_step(statement) }
        guard status == SQLITE_DONE else { throw error(status, on: database) }
        return Int(sqlite_nio_sqlite3_changes(database))
    }

    /// The first column of the first row of a query without parameters.
    private func integer(_ sql: String) throws -> Int64 {
        let database = try connection()
        let statement = try prepared(sql, on: database, keep: true)
        defer { sqlite_nio_sqlite3_reset(statement) }
        let status = sqlite_nio_sqlite3_step(statement)
        guard status == SQLITE_ROW else { throw error(status, on: database) }
        return sqlite_nio_sqlite3_column_int64(statement, 0)
    }

    private func prepared(_ sql: String, on database: OpaquePointer, keep: Bool) throws -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer?
        let status = sqlite_nio_sqlite3_prepare_v3(database, sql, -1, keep ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0, &statement, nil)
        guard status == SQLITE_OK, let statement else { throw error(status, on: database) }
        if keep { statements[sql] = statement }
        return statement
    }

    private func error(_ status: Int32, on database: OpaquePointer) -> SQLiteWriterError {
        SQLiteWriterError(status: status, message: String(cString: sqlite_nio_sqlite3_errmsg(database)))
    }

    /// Visitors new on a link that day add one to its daily count, and likewise for the
    /// domain's and the campaign's visitor sets. Inside the batch's transaction.
    private func addVisitors(_ visitors: [VisitorKey]) throws {
        var newOnLinks: [LinkDay: Int] = [:]
        var newInSets: [SetDay: Int] = [:]
        for visitor in visitors {
            let added = try execute("INSERT INTO visitor_days (day, domain, code, ip_hash, campaign) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING") {
                $0.bind(visitor.day); $0.bind(visitor.domain); $0.bind(visitor.code); $0.bind(visitor.ipHash); $0.bind(visitor.campaign)
            }
            if added > 0 { newOnLinks[LinkDay(day: visitor.day, domain: visitor.domain, code: visitor.code), default: 0] += 1 }
            for set in visitor.sets {
                let added = try execute("INSERT INTO set_visitor_days (visitor_set, day, ip_hash) VALUES (?, ?, ?) ON CONFLICT DO NOTHING") {
                    $0.bind(set); $0.bind(visitor.day); $0.bind(visitor.ipHash)
                }
                if added > 0 { newInSets[SetDay(set: set, day: visitor.day), default: 0] += 1 }
            }
        }
        for (link, count) in newOnLinks {
            try execute("""
                INSERT INTO link_visitors (domain, code, day, visitors) VALUES (?, ?, ?, ?)
                ON CONFLICT (domain, code, day) DO UPDATE SET visitors = visitors + excluded.visitors
                """) { $0.bind(link.domain); $0.bind(link.code); $0.bind(link.day); $0.bind(Int64(count)) }
        }
        for (set, count) in newInSets {
            try execute("""
                INSERT INTO set_visitors (visitor_set, day, visitors) VALUES (?, ?, ?)
                ON CONFLICT (visitor_set, day) DO UPDATE SET visitors = visitors + excluded.visitors
                """) { $0.bind(set.set); $0.bind(set.day); $0.bind(Int64(count)) }
        }
    }

    /// Adds up to `countChunk` visits after `counted_through` to the hourly and daily counters
    /// and moves the mark past them; `true` when more are left.
    private func countUncounted() throws -> Bool {
        countedAt = .now
        // Grouped under a read transaction: only the temporary table is written.
        let (counted, through, newest) = try readTransaction { () throws -> (Int64, Int64, Int64) in
            let counted = try integer(Self.countedThrough)
            let newest = try integer("SELECT coalesce(max(id), 0) FROM visits")
            defer { uncounted = nil }
            // (Groups of no visit leave whatever another process wrote to the table's grouping.)
            if let mine = uncounted, mine.from == counted, mine.through > counted, mine.through <= newest {
                for (group, visits) in mine.groups {
                    try execute(Self.groupVisits.insert) { $0.bind(group); $0.bind(visits) }
                }
                return (counted, mine.through, newest)
            }
            let through = min(newest, counted + Self.countChunk)
            if through > counted { try execute(Self.groupVisits.fill) { $0.bind(counted); $0.bind(through) } }
            return (counted, through, newest)
        }
        guard through > counted else { return false }
        defer { _ = try? execute("DELETE FROM visit_groups") { _ in } }
        return try transaction {
            // Another process may have counted them meanwhile.
            guard try integer(Self.countedThrough) == counted else { return true }
            try execute(Self.countHours) { _ in }
            try execute(Self.countDays) { _ in }
            try execute("UPDATE visit_counting SET counted_through = ?") { $0.bind(through) }
            return through < newest
        }
    }

    // MARK: Statements

    private static let insertVisit = "INSERT INTO visits (id, \(VisitRow.columns.joined(separator: ", "))) VALUES (?, "
        + Array(repeating: "?", count: VisitRow.columns.count).joined(separator: ", ") + ")"

    private static let countedThrough = "SELECT counted_through FROM visit_counting"

    private static let lastID = "SELECT max(coalesce((SELECT max(id) FROM visits), 0), (SELECT counted_through FROM visit_counting))"

    /// The visits after `?1` up to `?2`, grouped by everything a counter keys on: visits of one link
    /// usually share all of it, so the counters below read one row per group, not per visit
    /// (and SQLite sorts the visits once).
    /// `insert` adds one row grouped in memory (``VisitRow/countingKey``) with its number of
    /// visits, through the same expressions.
    static let groupVisits: (table: String, fill: String, insert: String) = {
        let tags = ["ref", "campaign_tag", "channel", "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content"]
        let columns = ["domain", "code", "hour", "campaign", "decision", "bot", "platform", "device", "in_app", "referrer_host", "country"] + tags
        let values = ["domain", "coalesce(code, '')", "CAST(at AS INTEGER) - CAST(at AS INTEGER) % 3600", "coalesce(campaign, '')", "decision",
                      "bot", "platform", "device", "in_app", "referrer_host", "country"] + tags
        return ("CREATE TEMP TABLE visit_groups (\(columns.joined(separator: ", ")), visits INTEGER)",
                // The code first: visits are compared while sorting, and it tells them apart soonest.
                "INSERT INTO visit_groups SELECT \(values.joined(separator: ", ")), count(*) FROM visits WHERE id > ?1 AND id <= ?2 "
                    + "GROUP BY 2, 1, \((3...columns.count).map(String.init).joined(separator: ", "))",
                "INSERT INTO visit_groups SELECT \(values.joined(separator: ", ")), ?\(VisitRow.columns.count + 1) FROM (SELECT "
                    + VisitRow.columns.enumerated().map { "?\($0.offset + 1) AS \($0.element)" }.joined(separator: ", ") + ")")
    }()

    /// The same sums as `VisitRollup` (the contract tests hold the two to each other): visits
    /// per hour, link, campaign, decision and bot-or-not.
    static let countHours = """
        INSERT INTO visit_hours (domain, code, hour, campaign, decision, bot, visits)
        SELECT domain, code, hour, campaign, decision, bot <> 'none', sum(visits) FROM visit_groups
        GROUP BY 1, 2, 3, 4, 5, 6
        ON CONFLICT (domain, code, hour, campaign, decision, bot) DO UPDATE SET visits = visits + excluded.visits
        """

    /// Visits per day and breakdown value (`Breakdown`): one `SELECT` per dimension over the
    /// groups, each yielding only the groups that have a value.
    static let countDays: String = {
        let key = "domain, code, hour - hour % 86400 AS day, campaign, bot = 'none' AS human, visits"
        let dimensions: [(name: String, value: String, condition: String)] = [
            ("platform", "platform", "1"), ("device", "device", "1"),
            ("in-app", "in_app", "in_app <> ''"), ("referrer", "referrer_host", "referrer_host <> ''"),
            ("country", "country", "country <> ''"), ("bot", "bot", "bot <> 'none'"),
        ] + ["ref", "campaign_tag", "channel", "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content"].map { column in
            ("tag", "'\(column == "campaign_tag" ? "campaign" : column)=' || \(column)", "\(column) <> ''")
        }
        let selects = dimensions.map { dimension in
            "SELECT \(key), '\(dimension.name)' AS dimension, \(dimension.value) AS value FROM visit_groups WHERE \(dimension.condition)"
        }
        return """
            INSERT INTO visit_days (domain, code, day, campaign, dimension, value, humans, bots)
            SELECT domain, code, day, campaign, dimension, value, sum(human * visits), sum((1 - human) * visits)
            FROM (\(selects.joined(separator: " UNION ALL ")))
            GROUP BY 1, 2, 3, 4, 5, 6
            ON CONFLICT (domain, code, day, campaign, dimension, value) DO UPDATE SET humans = humans + excluded.humans, bots = bots + excluded.bots
            """
    }()
}

/// What SQLite answered when the visit writer's call failed.
struct SQLiteWriterError: Error, CustomStringConvertible {
    var status: Int32
    var message: String
    var description: String { "\(message) (SQLite code \(status))" }
}

/// Binds a statement's parameters in order, keeping the first failure.
private struct Binder {
    let statement: OpaquePointer
    var index: Int32 = 0
    var failure: Int32?

    mutating func bind(_ value: Int64) {
        index += 1
        note(sqlite_nio_sqlite3_bind_int64(statement, index, value))
    }

    mutating func bind(_ value: Double) {
        index += 1
        note(sqlite_nio_sqlite3_bind_double(statement, index, value))
    }

    /// Text, or `NULL` for `nil`; SQLite copies it.
    mutating func bind(_ value: String?) {
        index += 1
        guard var value else { return note(sqlite_nio_sqlite3_bind_null(statement, index)) }
        let (statement, index) = (statement, index)
        note(value.withUTF8 { bytes in
            // An empty buffer may have no address, which SQLite would take for NULL.
            guard let start = bytes.baseAddress else { return sqlite_nio_sqlite3_bind_text(statement, index, "", 0, Binder.transient) }
            return start.withMemoryRebound(to: CChar.self, capacity: bytes.count) { text in
                sqlite_nio_sqlite3_bind_text(statement, index, text, Int32(bytes.count), Binder.transient)
            }
        })
    }

    mutating func bind(_ row: VisitRow) {
        bind(row.at); bind(row.domain); bind(row.code); bind(row.path); bind(row.platform); bind(row.os_version); bind(row.device)
        bind(row.browser); bind(row.in_app); bind(row.bot); bind(row.decision); bind(row.referrer_host); bind(row.ref); bind(row.campaign)
        bind(row.channel); bind(row.utm_source); bind(row.utm_medium); bind(row.utm_campaign); bind(row.utm_term); bind(row.utm_content)
        bind(row.campaign_tag); bind(row.country); bind(row.ip_hash)
    }

    private mutating func note(_ status: Int32) {
        if status != SQLITE_OK, failure == nil { failure = status }
    }

    /// `SQLITE_TRANSIENT`: SQLite copies the value before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

/// A visitor set on a day: the key of its visitor count.
private struct SetDay: Hashable {
    var set: String
    var day: Int64
}

/// A link on a day: the key of its visitor count.
private struct LinkDay: Hashable {
    var day: Int64
    var domain: String
    var code: String
}

/// A writer's own visits after the count's mark: ids `from + 1 … through`, grouped.
private struct Uncounted {
    var from: Int64
    var through: Int64
    /// Visits per row as counting groups them (``VisitRow/countingKey``).
    var groups: [VisitRow: Int64] = [:]
}

extension VisitRow {
    /// The row as counting groups it: its hour, and only what a counter keys on
    /// (`SQLiteVisitWriter.groupVisits` computes the rest from it as from a stored row).
    var countingKey: VisitRow {
        var key = self
        let seconds = Int64(at)  // SQLite's CAST(at AS INTEGER) truncates likewise
        key.at = Double(seconds - seconds % 3600)
        key.path = ""
        key.os_version = nil
        key.browser = ""
        key.ip_hash = ""
        return key
    }
}
