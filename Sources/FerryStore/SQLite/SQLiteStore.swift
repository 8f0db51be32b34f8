import Foundation
import FerryKit
import Logging
import SQLiteNIO

/// The embedded default: everything in one SQLite file (WAL mode, foreign keys on), one
/// connection whose operations run one at a time, and one more that writes visits
/// (`SQLiteVisitWriter`).
///
/// ```swift
/// let store = try await SQLiteStore.open(path: "ferry-data/ferry.sqlite")
/// try await store.save(app)
/// ```
public final class SQLiteStore: LinkStore {
    let connection: SQLiteConnection
    let visitWriter: SQLiteVisitWriter
    private let lock = AsyncLock()
    let seenVisitors = SeenVisitors()
    /// The file behind a `":memory:"` store, removed on close.
    private let throwaway: String?

    private init(connection: SQLiteConnection, path: String, countEvery: Duration, throwaway: String?) {
        self.connection = connection
        self.visitWriter = SQLiteVisitWriter(path: path, countEvery: countEvery)
        self.throwaway = throwaway
    }

    /// Opens (creating the file and its folder when needed) and migrates the database.
    /// `":memory:"` gives a private throwaway database (a temporary file, as the visit
    /// writer's connection has to see the same data), removed by `close()`.
    ///
    /// - Parameter countEvery: how often the counters statistics read are brought up to date
    ///   with the raw visits (and always before they are read).
    public static func open(path: String, countEvery: Duration = .seconds(10),
                            logger: Logger = Logger(label: "ferry.sqlite")) async throws(StoreError) -> SQLiteStore {
        try await open(path: path, countEvery: countEvery, logger: logger, lastMigration: .max)
    }

    /// Opens with the migrations up to `lastMigration` (tests of upgrades start old databases).
    static func open(path requested: String, countEvery: Duration = .seconds(10), logger: Logger = Logger(label: "ferry.sqlite"),
                     lastMigration: Int) async throws(StoreError) -> SQLiteStore {
        let throwaway = requested == ":memory:"
            ? FileManager.default.temporaryDirectory.appendingPathComponent("ferry-\(UUID().uuidString).sqlite").path : nil
        let path = throwaway ?? requested
        do {
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let connection = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
            let store = SQLiteStore(connection: connection, path: path, countEvery: countEvery, throwaway: throwaway)
            do {
                try await store.prepare(lastMigration: lastMigration)
            } catch {
                await store.close()
                throw error
            }
            return store
        } catch let error as StoreError {
            throw error
        } catch {
            throw .unavailable("cannot open the SQLite database at \(requested): \(error)")
        }
    }

    /// Counts the visits not counted yet and closes both connections.
    public func close() async {
        await visitWriter.close()
        try? await connection.close()
        if let throwaway {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: throwaway + suffix) }
        }
    }

    private func prepare(lastMigration: Int) async throws {
        _ = try await connection.query("PRAGMA journal_mode = WAL")
        _ = try await connection.query("PRAGMA foreign_keys = ON")
        _ = try await connection.query("PRAGMA busy_timeout = 5000")
        _ = try await connection.query("PRAGMA synchronous = NORMAL")
        // 64 MB of pages: the counters statistics read stay in memory.
        _ = try await connection.query("PRAGMA cache_size = -65536")
        // Statement journals of upserts in memory, not in temporary files.
        _ = try await connection.query("PRAGMA temp_store = MEMORY")
        _ = try await connection.query("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at REAL NOT NULL) STRICT")
        let applied = Set(try await connection.query("SELECT version FROM schema_migrations").compactMap { $0.column("version")?.integer })
        var needsBackfill = false
        for migration in SQLiteMigrations.all where !applied.contains(migration.version) && migration.version <= lastMigration {
            try await transaction {
                for statement in migration.statements { _ = try await self.connection.query(statement) }
                _ = try await self.connection.query("INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
                                                    [.integer(migration.version), .float(Date().timeIntervalSince1970)])
            }
            if migration.version == 4 { needsBackfill = true }
        }
        // Once every table is there (the count's mark is migration 8): visits stored before
        // the counters are counted.
        if needsBackfill && lastMigration >= 8 { try await backfillCounters() }
    }

    /// Runs `body` under the lock, mapping SQLite's errors to the store's.
    func run<T: Sendable>(_ body: @Sendable () async throws -> T) async throws(StoreError) -> T {
        do {
            return try await lock.withLock(body)
        } catch let error as StoreError {
            throw error
        } catch let error as SQLiteError {
            if Self.isUniquenessViolation(error) { throw .conflict("conflict: \(error.message)") }
            throw .unavailable("SQLite: \(error)")
        } catch {
            throw .unavailable("SQLite: \(error)")
        }
    }

    static func isUniquenessViolation(_ error: SQLiteError) -> Bool {
        switch error.reason {
        case .constraintPrimaryKeyFailed, .constraintUniqueFailed, .constraintUniqueRowIDFailed: true
        default: false
        }
    }

    /// `BEGIN IMMEDIATE … COMMIT`, rolled back when `body` throws. Call with the lock held.
    func transaction(_ body: () async throws -> Void) async throws {
        _ = try await connection.query("BEGIN IMMEDIATE")
        do {
            try await body()
            _ = try await connection.query("COMMIT")
        } catch {
            _ = try? await connection.query("ROLLBACK")
            throw error
        }
    }

    // MARK: Apps

    public func app(id: String) async throws(StoreError) -> App? {
        try await run {
            try await self.connection.query("SELECT document FROM apps WHERE id = ?", [.text(id)]).first.map { try Documents.decode(App.self, $0) }
        }
    }

    public func apps() async throws(StoreError) -> [App] {
        try await run {
            try await self.connection.query("SELECT document FROM apps ORDER BY id").map { try Documents.decode(App.self, $0) }
        }
    }

    public func save(_ app: App) async throws(StoreError) {
        do { try app.validate() } catch { throw .invalid(error.description) }
        let document = try Documents.encode(app)
        try await run {
            let now = Date().timeIntervalSince1970
            _ = try await self.connection.query("""
                INSERT INTO apps (id, document, created_at, updated_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET document = excluded.document, updated_at = excluded.updated_at
                """, [.text(app.id), .text(document), .float(now), .float(now)])
        }
    }

    public func deleteApp(id: String) async throws(StoreError) {
        try await deleteOne("DELETE FROM apps WHERE id = ? RETURNING id", [.text(id)], missing: "no app '\(id)'")
    }

    /// Runs a `DELETE … RETURNING` and fails with `.notFound` when it deleted nothing.
    private func deleteOne(_ sql: String, _ binds: [SQLiteData], missing: String) async throws(StoreError) {
        try await run {
            if try await self.connection.query(sql, binds).isEmpty { throw StoreError.notFound(missing) }
        }
    }

    // MARK: Domains

    public func deleteDomain(host: String) async throws(StoreError) {
        try await deleteOne("DELETE FROM domains WHERE host = ? RETURNING host", [.text(host.lowercased())], missing: "no domain '\(host)'")
    }

    public func domain(host: String) async throws(StoreError) -> Domain? {
        try await run {
            try await self.connection.query("SELECT host, app_id, alternate_host FROM domains WHERE host = ?1 OR alternate_host = ?1",
                                            [.text(host.lowercased())]).first.map(Self.domain(from:))
        }
    }

    public func domains(appID: String?) async throws(StoreError) -> [Domain] {
        try await run {
            try await self.connection.query("SELECT host, app_id, alternate_host FROM domains WHERE ?1 IS NULL OR app_id = ?1 ORDER BY host",
                                            [appID.map { .text($0) } ?? .null]).map(Self.domain(from:))
        }
    }

    public func save(_ domain: Domain) async throws(StoreError) {
        do { try domain.validate() } catch { throw .invalid(error.description) }
        try await run {
            try await self.transaction {
                guard try await !self.connection.query("SELECT 1 FROM apps WHERE id = ?", [.text(domain.appID)]).isEmpty else {
                    throw StoreError.notFound("no app '\(domain.appID)'")
                }
                let hosts: [SQLiteData] = [.text(domain.host), domain.alternateHost.map { .text($0) } ?? .null]
                let owners = try await self.connection.query("""
                    SELECT host FROM domains
                    WHERE host <> ?1 AND (host IN (?1, ?2) OR alternate_host IN (?1, ?2))
                    """, hosts)
                if let owner = owners.first?.column("host")?.string {
                    throw StoreError.conflict("\(domain.alternateHost ?? domain.host) already belongs to the domain \(owner)")
                }
                _ = try await self.connection.query("""
                    INSERT INTO domains (host, app_id, alternate_host, created_at) VALUES (?1, ?3, ?2, ?4)
                    ON CONFLICT (host) DO UPDATE SET app_id = excluded.app_id, alternate_host = excluded.alternate_host
                    """, hosts + [.text(domain.appID), .float(Date().timeIntervalSince1970)])
            }
        }
    }

    private static func domain(from row: SQLiteRow) -> Domain {
        Domain(host: row.column("host")?.string ?? "", appID: row.column("app_id")?.string ?? "",
               alternateHost: row.column("alternate_host")?.string)
    }

    // MARK: Links

    public func link(domain: String, code: String) async throws(StoreError) -> Link? {
        try await run {
            try await self.connection.query("SELECT document FROM links WHERE domain = ? AND code = ?",
                                            [.text(domain.lowercased()), .text(code)]).first.map { try Documents.decode(Link.self, $0) }
        }
    }

    public func links(_ query: LinkQuery) async throws(StoreError) -> [Link] {
        let binds: [SQLiteData] = [
            query.domain.map { .text($0.lowercased()) } ?? .null,
            query.campaign.map { .text($0) } ?? .null,
            query.text.flatMap { $0.isEmpty ? nil : .text($0.lowercased()) } ?? .null,
            .integer(max(0, min(query.limit, 1001))), .integer(max(0, query.offset)),
            query.tag.map { .text($0) } ?? .null,
        ]
        return try await run {
            try await self.connection.query("""
                SELECT document FROM links
                WHERE (?1 IS NULL OR domain = ?1)
                  AND (?2 IS NULL OR campaign = ?2)
                  AND (?3 IS NULL OR instr(lower(code || char(10) || json_extract(document, '$.path') || char(10)
                                                  || coalesce(json_extract(document, '$.preview.title'), '')), ?3) > 0)
                  AND (?6 IS NULL OR EXISTS (SELECT 1 FROM json_each(json_extract(document, '$.tags')) WHERE value = ?6))
                ORDER BY created_at DESC, rowid DESC
                LIMIT ?4 OFFSET ?5
                """, binds).map { try Documents.decode(Link.self, $0) }
        }
    }

    public func insert(_ links: [Link]) async throws(StoreError) {
        let documents = try await prepared(links)
        try await run {
            try await self.transaction {
                let now = Date().timeIntervalSince1970
                for (link, document) in zip(links, documents) {
                    do {
                        _ = try await self.connection.query("""
                            INSERT INTO links (domain, code, document, campaign, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
                            """, [.text(link.domain), .text(link.code!), .text(document),
                                  link.tags.effectiveCampaign.map { .text($0) } ?? .null, .float(now), .float(now)])
                    } catch let error as SQLiteError where Self.isUniquenessViolation(error) {
                        throw StoreError.conflict("the code '\(link.code!)' is already taken on \(link.domain)")
                    }
                }
            }
        }
    }

    public func update(_ link: Link) async throws(StoreError) {
        let document = try await prepared([link])[0]
        try await run {
            let changed = try await self.connection.query("""
                UPDATE links SET document = ?, campaign = ?, updated_at = ? WHERE domain = ? AND code = ? RETURNING code
                """, [.text(document), link.tags.effectiveCampaign.map { .text($0) } ?? .null,
                      .float(Date().timeIntervalSince1970), .text(link.domain), .text(link.code!)])
            if changed.isEmpty { throw StoreError.notFound("no link '\(link.code!)' on \(link.domain)") }
        }
    }

    public func deleteLink(domain: String, code: String) async throws(StoreError) {
        try await deleteOne("DELETE FROM links WHERE domain = ? AND code = ? RETURNING code", [.text(domain.lowercased()), .text(code)],
                            missing: "no link '\(code)' on \(domain)")
    }


    // MARK: API keys

    public func insert(_ key: APIKeyRecord) async throws(StoreError) {
        try await run {
            _ = try await self.connection.query("INSERT INTO api_keys (id, name, hash, created_at, revoked_at) VALUES (?, ?, ?, ?, ?)",
                                                [.text(key.id), .text(key.name), .text(key.hash), .float(key.createdAt.timeIntervalSince1970),
                                                 key.revokedAt.map { .float($0.timeIntervalSince1970) } ?? .null])
        }
    }

    public func apiKey(hash: String) async throws(StoreError) -> APIKeyRecord? {
        try await run {
            try await self.connection.query("SELECT * FROM api_keys WHERE hash = ?", [.text(hash)]).first.map(Self.key(from:))
        }
    }

    public func apiKeys() async throws(StoreError) -> [APIKeyRecord] {
        try await run {
            try await self.connection.query("SELECT * FROM api_keys ORDER BY created_at, id").map(Self.key(from:))
        }
    }

    public func revokeAPIKey(id: String, at date: Date) async throws(StoreError) {
        try await run {
            let rows = try await self.connection.query("UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ? RETURNING id",
                                                       [.float(date.timeIntervalSince1970), .text(id)])
            if rows.isEmpty { throw StoreError.notFound("no API key '\(id)'") }
        }
    }

    private static func key(from row: SQLiteRow) -> APIKeyRecord {
        APIKeyRecord(id: row.column("id")?.string ?? "", name: row.column("name")?.string ?? "", hash: row.column("hash")?.string ?? "",
                     createdAt: Date(timeIntervalSince1970: row.column("created_at")?.double ?? 0),
                     revokedAt: row.column("revoked_at")?.double.map(Date.init(timeIntervalSince1970:)))
    }

}

// MARK: Deferred deep linking

extension SQLiteStore {
    public func app(sdkKey: String) async throws(StoreError) -> App? {
        try await run {
            try await self.connection.query("SELECT document FROM apps WHERE json_extract(document, '$.sdkKey') = ?", [.text(sdkKey)])
                .first.map { try Documents.decode(App.self, $0) }
        }
    }

    public func insert(_ intents: [DeferredIntent]) async throws(StoreError) {
        guard !intents.isEmpty else { return }
        let documents = try intents.map { intent throws(StoreError) in (intent, try Documents.encode(intent)) }
        // Through the visit writer's connection, which the recorder writes on anyway: waiting
        // here for its transaction would hold up this connection's readers.
        try await writingVisits { try await self.visitWriter.insert(documents) }
    }

    public func updateSignals(token: String, screen: Screen?, timeZone: String?, languages: [String]) async throws(StoreError) {
        try await run {
            guard let row = try await self.connection.query(
                "SELECT document FROM deferred_intents WHERE token = ? AND consumed_at IS NULL", [.text(token)]).first else { return }
            var intent = try Documents.decode(DeferredIntent.self, row)
            intent.signals.merge(screen: screen, timeZone: timeZone, languages: languages)
            _ = try await self.connection.query("UPDATE deferred_intents SET document = ? WHERE token = ? AND consumed_at IS NULL",
                                                [.text(try Documents.encode(intent)), .text(token)])
        }
    }

    public func consumeIntent(token: String, appID: String, at date: Date) async throws(StoreError) -> DeferredIntent? {
        let now = date.timeIntervalSince1970
        return try await run {
            // One statement: of two installs racing for the token, one updates the row, the other finds it consumed.
            try await self.connection.query("""
                UPDATE deferred_intents SET consumed_at = ?
                WHERE token = ? AND app_id = ? AND consumed_at IS NULL AND created_at <= ? AND expires_at > ?
                RETURNING document
                """, [.float(now), .text(token), .text(appID), .float(now), .float(now)]).first.map { try Documents.decode(DeferredIntent.self, $0) }
        }
    }

    public func intentCandidates(appID: String, ipHash: String, at date: Date) async throws(StoreError) -> [DeferredIntent] {
        let now = date.timeIntervalSince1970
        return try await run {
            try await self.connection.query("""
                SELECT document FROM deferred_intents
                WHERE app_id = ? AND ip_hash = ? AND expires_at > ? AND created_at <= ? AND consumed_at IS NULL
                ORDER BY created_at LIMIT 100
                """, [.text(appID), .text(ipHash), .float(now), .float(now)]).map { try Documents.decode(DeferredIntent.self, $0) }
        }
    }

    @discardableResult
    public func purgeIntents(expiredBefore date: Date) async throws(StoreError) -> Int {
        try await run {
            try await self.connection.query("DELETE FROM deferred_intents WHERE expires_at < ? RETURNING token",
                                            [.float(date.timeIntervalSince1970)]).count
        }
    }

    public func record(events: [AppEvent]) async throws(StoreError) {
        guard !events.isEmpty else { return }
        let documents = try events.map { event throws(StoreError) in (event, try Documents.encode(event)) }
        try await run {
            try await self.transaction {
                for (event, document) in documents {
                    _ = try await self.connection.query("""
                        INSERT INTO app_events (at, app_id, kind, platform, match_type, domain, code, campaign, document)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """, [.float(event.at.timeIntervalSince1970), .text(event.appID), .text(event.kind.rawValue),
                              .text(event.platform.rawValue), event.matchType.map { .text($0.rawValue) } ?? .null,
                              event.domain.map { .text($0) } ?? .null, event.code.map { .text($0) } ?? .null,
                              event.tags.effectiveCampaign.map { .text($0) } ?? .null, .text(document)])
                }
                try await self.countEvents(events)
            }
        }
    }

    public func appEvents(appID: String) async throws(StoreError) -> [AppEvent] {
        try await run {
            try await self.connection.query("SELECT document FROM app_events WHERE app_id = ? ORDER BY id", [.text(appID)])
                .map { try Documents.decode(AppEvent.self, $0) }
        }
    }
}

/// Apps and links are stored as JSON documents (with indexed columns beside them for queries).
enum Documents {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .secondsSince1970
        return encoder
    }()

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }()

    static func encode(_ value: some Encodable) throws(StoreError) -> String {
        do {
            return String(decoding: try encoder.encode(value), as: UTF8.self)
        } catch {
            throw .invalid("cannot encode: \(error)")
        }
    }

    static func decode<T: Decodable>(_ type: T.Type, _ row: SQLiteRow) throws -> T {
        guard let text = row.column("document")?.string else { throw StoreError.unavailable("a stored document is missing") }
        do {
            return try decoder.decode(type, from: Data(text.utf8))
        } catch {
            throw StoreError.unavailable("a stored \(type) cannot be read: \(error)")
        }
    }
}
