import Foundation
import FerryKit

/// Moves a deployment from one database to another (`ferry store copy`), table by table:
/// apps, domains, links, API keys, dashboard users, webhooks with their deliveries, deferred intents not yet
/// expired, raw visits, installs and opens, and the counters statistics are read from.
///
/// Running it again copies only what is new: keyed rows are written over (the source wins),
/// and raw visits and events continue after the last row the target got from this source (a
/// mark kept in the target, in the transaction of each page). So the way to move is: copy
/// while the old server runs, stop it, copy again, start the new one.
public enum StoreCopy {
    /// Rows read and written per step.
    public static let pageSize = 2000

    public struct TableReport: Sendable, Hashable {
        public var table: String
        public var rows: Int
    }

    /// Copies everything from `source` to `target`; `progress` hears about each table.
    @discardableResult
    public static func run(from source: any CopyableStore, to target: any CopyableStore, now: Date = Date(),
                           progress: @Sendable (TableReport) -> Void = { _ in }) async throws(StoreError) -> [TableReport] {
        let sourceID = try await source.identity()
        guard try await target.identity() != sourceID else { throw .invalid("the source and the target are the same database") }
        var reports: [TableReport] = []
        for table in CopiedTable.all {
            var copied = 0
            if table.isAppendOnly {
                var after = try await target.copyMark(source: sourceID, table: table.name)
                while true {
                    let rows = try await source.exportRows(table, after: [.integer(after)], limit: pageSize, now: now)
                    guard let last = rows.last, case .integer(let lastID) = last[0] else { break }
                    try await target.importRows(table, rows.map { Array($0.dropFirst()) },
                                                mark: CopyMark(source: sourceID, table: table.name, lastID: lastID))
                    copied += rows.count
                    after = lastID
                }
            } else {
                var after: [CopyCell]?
                while true {
                    let rows = try await source.exportRows(table, after: after, limit: pageSize, now: now)
                    guard let last = rows.last else { break }
                    try await target.importRows(table, rows, mark: nil)
                    copied += rows.count
                    after = Array(last.prefix(table.key.count))
                }
            }
            let report = TableReport(table: table.name, rows: copied)
            progress(report)
            reports.append(report)
        }
        return reports
    }
}

/// A store that `StoreCopy` can read from and write to.
public protocol CopyableStore: LinkStore {
    /// A name for this database, made the first time it is asked for and kept in it.
    func identity() async throws(StoreError) -> String
    /// Rows in key order after `after` (the key of the last row read; for append-only tables
    /// the `id`, which then comes first in every row), at most `limit`.
    func exportRows(_ table: CopiedTable, after: [CopyCell]?, limit: Int, now: Date) async throws(StoreError) -> [[CopyCell]]
    /// Writes rows (keyed ones over those with the same key; append-only ones as new rows) and
    /// the mark, in one transaction.
    func importRows(_ table: CopiedTable, _ rows: [[CopyCell]], mark: CopyMark?) async throws(StoreError)
    /// The last id of `table` copied from `source` into this store; 0 when none.
    func copyMark(source: String, table: String) async throws(StoreError) -> Int64
}

/// One value of a copied row.
public enum CopyCell: Sendable, Hashable {
    case null
    case text(String)
    case integer(Int64)
    case real(Double)
}

/// How far the append-only rows of a table from one source were copied.
public struct CopyMark: Sendable, Hashable {
    public var source: String
    public var table: String
    public var lastID: Int64
}

/// A table as both databases have it. Column names and order are the same in SQLite and
/// PostgreSQL; the kinds say how each side stores the value.
public struct CopiedTable: Sendable {
    public enum Kind: Sendable {
        case text, integer
        /// Seconds since 1970: `REAL` in SQLite, `TIMESTAMPTZ` in PostgreSQL.
        case time
        /// A JSON document: `TEXT` in SQLite, `JSONB` in PostgreSQL.
        case json
        /// Yes or no: `INTEGER` 0/1 in SQLite, `BOOLEAN` in PostgreSQL.
        case flag
    }

    public let name: String
    /// Columns of the primary key (written over on a second copy); empty for tables that are
    /// only appended to, read after their `id`.
    public let key: [String]
    public let columns: [(name: String, kind: Kind)]
    /// Only rows this `WHERE` admits are copied (values bound: `now`).
    let onlyLive: Bool

    public var isAppendOnly: Bool { key.isEmpty }

    private init(_ name: String, key: [String], _ columns: [(String, Kind)], onlyLive: Bool = false) {
        self.name = name
        self.key = key
        self.columns = columns.map { (name: $0.0, kind: $0.1) }
        self.onlyLive = onlyLive
    }

    static func text(_ names: String...) -> [(String, Kind)] { names.map { ($0, .text) } }

    /// In the order they are copied (what refers to something comes after it).
    public static let all: [CopiedTable] = [
        CopiedTable("apps", key: ["id"], [("id", .text), ("document", .json), ("created_at", .time), ("updated_at", .time)]),
        CopiedTable("domains", key: ["host"], text("host", "app_id", "alternate_host") + [("created_at", .time)]),
        CopiedTable("links", key: ["domain", "code"], text("domain", "code") + [("document", .json)] + text("campaign")
                    + [("created_at", .time), ("updated_at", .time)]),
        CopiedTable("api_keys", key: ["id"], text("id", "name", "hash") + [("created_at", .time), ("revoked_at", .time)]),
        CopiedTable("users", key: ["id"], text("id", "email") + [("document", .json), ("created_at", .time)]),
        CopiedTable("webhooks", key: ["id"], text("id", "app_id") + [("document", .json), ("created_at", .time)]),
        CopiedTable("webhook_deliveries", key: ["id"], text("id", "webhook_id", "state") + [("next_attempt_at", .time), ("created_at", .time),
                    ("document", .json)]),
        CopiedTable("deferred_intents", key: ["token"], text("token", "app_id", "ip_hash") + [("document", .json), ("created_at", .time),
                    ("expires_at", .time), ("consumed_at", .time)], onlyLive: true),
        CopiedTable("visits", key: [], [("at", .time)] + VisitRow.columns.dropFirst().map { ($0, .text) }),
        CopiedTable("app_events", key: [], [("at", .time)] + text("app_id", "kind", "platform", "match_type", "domain", "code", "campaign")
                    + [("document", .json)]),
        CopiedTable("visit_hours", key: ["domain", "code", "hour", "campaign", "decision", "bot"],
                    text("domain", "code") + [("hour", .integer)] + text("campaign", "decision") + [("bot", .flag), ("visits", .integer)]),
        CopiedTable("visit_days", key: ["domain", "code", "day", "campaign", "dimension", "value"],
                    text("domain", "code") + [("day", .integer)] + text("campaign", "dimension", "value") + [("humans", .integer), ("bots", .integer)]),
        CopiedTable("visitor_days", key: ["day", "domain", "code", "ip_hash"],
                    [("day", .integer)] + text("domain", "code", "ip_hash", "campaign")),
        CopiedTable("set_visitor_days", key: ["visitor_set", "day", "ip_hash"], text("visitor_set") + [("day", .integer)] + text("ip_hash")),
        CopiedTable("set_visitors", key: ["visitor_set", "day"], text("visitor_set") + [("day", .integer), ("visitors", .integer)]),
        CopiedTable("link_visitors", key: ["domain", "code", "day"], text("domain", "code") + [("day", .integer), ("visitors", .integer)]),
        CopiedTable("event_counts", key: ["app_id", "domain", "code", "hour", "campaign", "platform", "kind", "match_type", "tags"],
                    text("app_id", "domain", "code") + [("hour", .integer)] + text("campaign", "platform", "kind", "match_type", "tags")
                    + [("events", .integer)]),
    ]

    /// Column names, comma-separated (fixed identifiers, never input).
    var columnList: String { columns.map(\.name).joined(separator: ", ") }
    var keyList: String { key.joined(separator: ", ") }
    /// `a = excluded.a, …` for the columns outside the key.
    var updateList: String {
        columns.map(\.name).filter { !key.contains($0) }.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
    }
}
