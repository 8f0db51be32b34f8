import Foundation
import FerryKit
import SQLiteNIO

// MARK: ferry store copy

extension SQLiteStore: CopyableStore {
    public func identity() async throws(StoreError) -> String {
        try await run {
            _ = try await self.connection.query("INSERT INTO store_identity (one, id) VALUES (1, ?) ON CONFLICT DO NOTHING",
                                                [.text(UUID().uuidString.lowercased())])
            return try await self.connection.query("SELECT id FROM store_identity").first?.column("id")?.string ?? ""
        }
    }

    public func exportRows(_ table: CopiedTable, after: [CopyCell]?, limit: Int, now: Date) async throws(StoreError) -> [[CopyCell]] {
        if after == nil { try await countPendingVisits() }
        var clauses: [String] = []
        var binds: [SQLiteData] = []
        let order = table.isAppendOnly ? "id" : table.keyList
        if let after {
            let placeholders = Array(repeating: "?", count: after.count).joined(separator: ", ")
            clauses.append("(\(order)) > (\(placeholders))")
            binds += after.map(Self.data)
        }
        if table.onlyLive {
            clauses.append("expires_at > ?")
            binds.append(.float(now.timeIntervalSince1970))
        }
        let selected = (table.isAppendOnly ? "id, " : "") + table.columnList
        let sql = "SELECT \(selected) FROM \(table.name)" + (clauses.isEmpty ? "" : " WHERE " + clauses.joined(separator: " AND "))
            + " ORDER BY \(order) LIMIT ?"
        let kinds = (table.isAppendOnly ? [CopiedTable.Kind.integer] : []) + table.columns.map(\.kind)
        let values = binds + [.integer(limit)]
        return try await run {
            try await self.connection.query(sql, values).map { row in
                let columns = (table.isAppendOnly ? ["id"] : []) + table.columns.map(\.name)
                return zip(columns, kinds).map { name, kind in Self.cell(row.column(name), kind) }
            }
        }
    }

    public func importRows(_ table: CopiedTable, _ rows: [[CopyCell]], mark: CopyMark?) async throws(StoreError) {
        guard !rows.isEmpty else { return }
        let names = table.columns.map(\.name)
        let perStatement = max(1, 30_000 / names.count)
        let conflict = table.isAppendOnly ? "" : " ON CONFLICT (\(table.keyList)) DO " + (table.updateList.isEmpty ? "NOTHING" : "UPDATE SET \(table.updateList)")
        // Copied visits arrive with their counters: the visits stored before them are counted
        // now, and the mark moves past the copied ones in their transaction.
        let copiesVisits = table.name == "visits"
        if copiesVisits { try await countPendingVisits() }
        try await run {
            try await self.transaction {
                for chunk in chunks(rows, of: perStatement) {
                    _ = try await self.connection.query(Self.insert(into: table.name, names, rows: chunk.count, then: conflict),
                                                        chunk.flatMap { $0.map(Self.data) })
                }
                if copiesVisits {
                    _ = try await self.connection.query("UPDATE visit_counting SET counted_through = max(counted_through, (SELECT max(id) FROM visits))")
                }
                if let mark {
                    _ = try await self.connection.query("""
                        INSERT INTO copy_marks (source, table_name, last_id) VALUES (?, ?, ?)
                        ON CONFLICT (source, table_name) DO UPDATE SET last_id = excluded.last_id
                        """, [.text(mark.source), .text(mark.table), .integer(Int(mark.lastID))])
                }
            }
        }
    }

    public func copyMark(source: String, table: String) async throws(StoreError) -> Int64 {
        try await run {
            Int64(try await self.connection.query("SELECT last_id FROM copy_marks WHERE source = ? AND table_name = ?",
                                                  [.text(source), .text(table)]).first?.column("last_id")?.integer ?? 0)
        }
    }

    private static func cell(_ data: SQLiteData?, _ kind: CopiedTable.Kind) -> CopyCell {
        switch data {
        case .none, .null?: .null
        case .integer(let value)?: kind == .time ? .real(Double(value)) : .integer(Int64(value))
        case .float(let value)?: .real(value)
        case .text(let value)?: .text(value)
        case .blob(let buffer)?: .text(String(buffer: buffer))
        }
    }

    private static func data(_ cell: CopyCell) -> SQLiteData {
        switch cell {
        case .null: .null
        case .text(let value): .text(value)
        case .integer(let value): .integer(Int(value))
        case .real(let value): .float(value)
        }
    }
}
