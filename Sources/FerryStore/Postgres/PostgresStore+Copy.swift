import Foundation
import FerryKit
import PostgresNIO

// MARK: ferry store copy

extension PostgresStore: CopyableStore {
    public func identity() async throws(StoreError) -> String {
        let id = UUID().uuidString.lowercased()
        try await execute("INSERT INTO store_identity (one, id) VALUES (1, \(id)) ON CONFLICT DO NOTHING")
        return try await run {
            for try await id in try await client.query("SELECT id FROM store_identity", logger: logger).decode(String.self) { return id }
            return ""
        }
    }

    public func exportRows(_ table: CopiedTable, after: [CopyCell]?, limit: Int, now: Date) async throws(StoreError) -> [[CopyCell]] {
        var bindings = PostgresBindings()
        var clauses: [String] = []
        let order = table.isAppendOnly ? "id" : table.keyList
        if let after {
            let placeholders = after.indices.map { "$\(bindings.count + $0 + 1)" }.joined(separator: ", ")
            let kinds = table.isAppendOnly ? [.integer] : table.key.map { name in table.columns.first { $0.name == name }?.kind ?? .text }
            for (cell, kind) in zip(after, kinds) {
                if kind == .flag, case .integer(let value) = cell { bindings.append(value != 0) } else { Self.append(cell, to: &bindings) }
            }
            clauses.append("(\(order)) > (\(placeholders))")
        }
        if table.onlyLive {
            bindings.append(now)
            clauses.append("expires_at > $\(bindings.count)")
        }
        bindings.append(limit)
        let kinds = (table.isAppendOnly ? [CopiedTable.Kind.integer] : []) + table.columns.map(\.kind)
        let selected = ((table.isAppendOnly ? ["id::int8"] : []) + table.columns.map { name, kind in
            switch kind {
            case .time: "extract(epoch FROM \(name))::float8"
            case .json: "\(name)::text"
            case .integer: "\(name)::int8"
            case .flag: "\(name)::int::int8"
            case .text: name
            }
        }).joined(separator: ", ")
        let sql = "SELECT \(selected) FROM \(table.name)" + (clauses.isEmpty ? "" : " WHERE " + clauses.joined(separator: " AND "))
            + " ORDER BY \(order) LIMIT $\(bindings.count)"
        return try await run {
            var rows: [[CopyCell]] = []
            for try await row in try await client.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger) {
                var cells: [CopyCell] = []
                for (cell, kind) in zip(row.makeRandomAccess(), kinds) {
                    switch kind {
                    case .text, .json: cells.append(try cell.decode(String?.self).map(CopyCell.text) ?? .null)
                    case .integer, .flag: cells.append(try cell.decode(Int64?.self).map(CopyCell.integer) ?? .null)
                    case .time: cells.append(try cell.decode(Double?.self).map(CopyCell.real) ?? .null)
                    }
                }
                rows.append(cells)
            }
            return rows
        }
    }

    public func importRows(_ table: CopiedTable, _ rows: [[CopyCell]], mark: CopyMark?) async throws(StoreError) {
        guard !rows.isEmpty else { return }
        let names = table.columns.map(\.name)
        let json = try Self.json(rows.map { CopyRow(names: names, cells: $0) })
        let record = table.columns.map { name, kind in
            switch kind {
            case .text, .json: "\(name) text"
            case .integer, .flag: "\(name) bigint"
            case .time: "\(name) double precision"
            }
        }.joined(separator: ", ")
        let values = table.columns.map { name, kind in
            switch kind {
            case .time: "to_timestamp(r.\(name))"
            case .json: "r.\(name)::jsonb"
            case .flag: "(r.\(name) <> 0)"
            case .text, .integer: "r.\(name)"
            }
        }.joined(separator: ", ")
        let conflict = table.isAppendOnly ? "" : " ON CONFLICT (\(table.keyList)) DO " + (table.updateList.isEmpty ? "NOTHING" : "UPDATE SET \(table.updateList)")
        var bindings = PostgresBindings()
        bindings.append(json)
        let insert = PostgresQuery(unsafeSQL: "INSERT INTO \(table.name) (\(table.columnList)) SELECT \(values) FROM jsonb_to_recordset($1::jsonb) AS r(\(record))" + conflict,
                                   binds: bindings)
        let logger = logger
        try await transaction { connection in
            try await connection.query(insert, logger: logger)
            if let mark {
                try await connection.query("""
                    INSERT INTO copy_marks (source, table_name, last_id) VALUES (\(mark.source), \(mark.table), \(mark.lastID))
                    ON CONFLICT (source, table_name) DO UPDATE SET last_id = excluded.last_id
                    """, logger: logger)
            }
        }
    }

    public func copyMark(source: String, table: String) async throws(StoreError) -> Int64 {
        try await run {
            let query: PostgresQuery = "SELECT last_id FROM copy_marks WHERE source = \(source) AND table_name = \(table)"
            for try await id in try await client.query(query, logger: logger).decode(Int64.self) { return id }
            return 0
        }
    }

    private static func append(_ cell: CopyCell, to bindings: inout PostgresBindings) {
        switch cell {
        case .null: bindings.appendNull()
        case .text(let value): bindings.append(value)
        case .integer(let value): bindings.append(value)
        case .real(let value): bindings.append(value)
        }
    }
}

/// A copied row as a JSON object, for `jsonb_to_recordset`.
private struct CopyRow: Encodable {
    let names: [String]
    let cells: [CopyCell]

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for (name, cell) in zip(names, cells) {
            let key = Key(stringValue: name)
            switch cell {
            case .null: try container.encodeNil(forKey: key)
            case .text(let value): try container.encode(value, forKey: key)
            case .integer(let value): try container.encode(value, forKey: key)
            case .real(let value): try container.encode(value, forKey: key)
            }
        }
    }
}
