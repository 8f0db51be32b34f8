import FerryKit
import Foundation
import Logging
import NIOSSL
import PostgresNIO

/// Several `ferry serve` nodes sharing one PostgreSQL database. Same contract as the SQLite
/// store (`StoreContractTests` runs against both); documents are `jsonb`, times `timestamptz`.
///
/// ```swift
/// let store = try await PostgresStore.open(url: "postgres://ferry:secret@db.internal/ferry")
/// ```
public final class PostgresStore: SharedStore {
    /// How a deployment reaches its database.
    public struct Settings: Sendable {
        /// Connections per node.
        public var poolSize: Int
        /// Longest a statement may run before PostgreSQL cancels it.
        public var statementTimeout: Duration
        /// Idle connections are closed after this long.
        public var idleTimeout: Duration

        public init(poolSize: Int = 20, statementTimeout: Duration = .seconds(10), idleTimeout: Duration = .seconds(60)) {
            self.poolSize = poolSize
            self.statementTimeout = statementTimeout
            self.idleTimeout = idleTimeout
        }
    }

    let client: PostgresClient
    /// Longest a statement may run before PostgreSQL cancels it.
    public let statementTimeout: Duration
    private let runner: Task<Void, Never>
    let seenVisitors = SeenVisitors()
    let logger: Logger

    private init(client: PostgresClient, statementTimeout: Duration, logger: Logger) {
        self.client = client
        self.statementTimeout = statementTimeout
        self.logger = logger
        runner = Task { await client.run() }
    }

    /// Connects (`postgres://user:password@host:port/database`, `?sslmode=disable|prefer|require`,
    /// `?host=/path/to/socket/folder` for a Unix socket) and applies the migrations not yet
    /// applied, one node at a time.
    public static func open(url: String, settings: Settings = Settings(), logger: Logger = Logger(label: "ferry.postgres")) async throws(StoreError) -> PostgresStore {
        let configuration = try Self.configuration(url: url, settings: settings)
        let store = PostgresStore(client: PostgresClient(configuration: configuration, backgroundLogger: logger),
                                  statementTimeout: settings.statementTimeout, logger: logger)
        // Let the pool's run task start before the first query asks it for a connection.
        for _ in 0..<20 { await Task.yield() }
        do {
            try await store.migrate()
        } catch {
            await store.close()
            throw error
        }
        return store
    }

    /// Closes the pool. A connection whose call never finished (the server vanished mid-query)
    /// would keep the pool open for ever, so this waits 10 seconds at most.
    public func close() async {
        runner.cancel()
        let runner = runner
        do {
            try await withTimeout(.seconds(10)) { await runner.value }
        } catch {
            logger.warning("closing the PostgreSQL pool: \(error); leaving it")
        }
    }

    static func isPostgresURL(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    static func configuration(url text: String, settings: Settings) throws(StoreError) -> PostgresClient.Configuration {
        guard isPostgresURL(text), let url = URLComponents(string: text), let user = url.user, !user.isEmpty else {
            throw .invalid("database: '\(Self.redacted(text))' is not a URL like postgres://user:password@host:5432/database")
        }
        let query = Dictionary((url.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        let database = url.path.hasPrefix("/") ? String(url.path.dropFirst()) : url.path
        var configuration: PostgresClient.Configuration
        if let socketFolder = query["host"], socketFolder.hasPrefix("/") {
            let port = url.port ?? 5432
            configuration = .init(unixSocketPath: "\(socketFolder)/.s.PGSQL.\(port)", username: user, password: url.password,
                                  database: database.isEmpty ? nil : database)
        } else {
            let tls: PostgresClient.Configuration.TLS
            switch query["sslmode"] ?? "prefer" {
            case "disable": tls = .disable
            case "prefer", "allow": tls = .prefer(.makeClientConfiguration())
            case "require", "verify-ca", "verify-full": tls = .require(.makeClientConfiguration())
            case let mode: throw .invalid("database: unknown sslmode '\(mode)' (disable, prefer or require)")
            }
            configuration = .init(host: url.host ?? "localhost", port: url.port ?? 5432, username: user, password: url.password,
                                  database: database.isEmpty ? nil : database, tls: tls)
        }
        configuration.options.maximumConnections = max(1, settings.poolSize)
        configuration.options.connectionIdleTimeout = settings.idleTimeout
        let milliseconds = settings.statementTimeout.components.seconds * 1000 + settings.statementTimeout.components.attoseconds / 1_000_000_000_000_000
        configuration.options.additionalStartupParameters = [("statement_timeout", String(milliseconds)), ("application_name", "ferry")]
        return configuration
    }

    /// The URL without its password, for messages.
    static func redacted(_ text: String) -> String {
        guard var url = URLComponents(string: text), url.password != nil else { return text }
        url.password = "…"
        return url.string ?? text
    }

    // MARK: Changes between nodes

    static let changeChannel = "ferry_changes"

    public func announce(_ change: StoreChange) async throws(StoreError) {
        try await execute("SELECT pg_notify(\(Self.changeChannel), \(change.payload))")
    }

    public func changes() -> AsyncThrowingStream<StoreChange, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: StoreChange.self)
        let client = client
        let listener = Task {
            do {
                // One pooled connection stays on LISTEN for as long as the stream is read.
                try await client.withConnection { connection in
                    for try await notification in try await connection.listen(Self.changeChannel) {
                        if let change = StoreChange(payload: notification.payload) { continuation.yield(change) }
                    }
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: Self.storeError(error))
            }
        }
        continuation.onTermination = { _ in listener.cancel() }
        return stream
    }

    // MARK: Running queries

    /// Runs `body`, mapping PostgreSQL's errors to the store's.
    func run<T>(_ body: () async throws -> T) async throws(StoreError) -> T {
        do {
            return try await body()
        } catch {
            throw Self.storeError(error)
        }
    }

    static func storeError(_ error: any Error) -> StoreError {
        switch error {
        case let error as StoreError:
            return error
        case let error as PostgresTransactionError:
            // What went wrong inside the transaction, else how it failed to begin or end.
            guard let cause = error.closureError ?? error.beginError ?? error.commitError ?? error.rollbackError else {
                return .unavailable("PostgreSQL: \(String(reflecting: error))")
            }
            return storeError(cause)
        case let error as PSQLError:
            switch error.serverInfo?[.sqlState] {
            case "23505": return .conflict("conflict: \(error.serverInfo?[.message] ?? "already exists")")
            case "23503": return .notFound("refers to something that does not exist: \(error.serverInfo?[.message] ?? "")")
            case "23514", "22P02": return .invalid("rejected by the database: \(error.serverInfo?[.message] ?? "")")
            default: return .unavailable("PostgreSQL: \(String(reflecting: error))")
            }
        default:
            return .unavailable("PostgreSQL: \(error)")
        }
    }

    func rows(_ query: PostgresQuery) async throws(StoreError) -> [PostgresRow] {
        try await run { try await client.query(query, logger: logger).collect() }
    }

    func execute(_ query: PostgresQuery) async throws(StoreError) {
        _ = try await rows(query)
    }

    func transaction<T>(_ body: (PostgresConnection) async throws -> sending T) async throws(StoreError) -> T {
        try await run { try await client.withTransaction(logger: logger, body) }
    }

    static func documents<T: Decodable>(_ type: T.Type, _ rows: [PostgresRow]) throws(StoreError) -> [T] {
        var values: [T] = []
        for row in rows {
            do {
                let text = try row.decode(String.self)
                values.append(try Documents.decoder.decode(type, from: Data(text.utf8)))
            } catch {
                throw .unavailable("a stored \(type) cannot be read: \(error)")
            }
        }
        return values
    }

    private func migrate() async throws(StoreError) {
        try await transaction { connection in
            // Nodes starting together take turns; the second finds the work done.
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext('ferry-migrations'))", logger: logger)
            try await connection.query("""
                CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())
                """, logger: logger)
            var applied = Set<Int>()
            for try await version in try await connection.query("SELECT version FROM schema_migrations", logger: logger).decode(Int.self) {
                applied.insert(version)
            }
            var needsBackfill = false
            for migration in PostgresMigrations.all where !applied.contains(migration.version) {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                if migration.version == 2 { needsBackfill = true }
                try await connection.query("INSERT INTO schema_migrations (version) VALUES (\(migration.version))", logger: logger)
            }
            // Once every table is there: visits stored before the counters are counted.
            if needsBackfill { try await Self.backfillCounters(on: connection, logger: logger) }
        }
    }

    // MARK: Apps

    public func app(id: String) async throws(StoreError) -> App? {
        try Self.documents(App.self, try await rows("SELECT document::text FROM apps WHERE id = \(id)")).first
    }

    public func apps() async throws(StoreError) -> [App] {
        try Self.documents(App.self, try await rows("SELECT document::text FROM apps ORDER BY id"))
    }

    public func save(_ app: App) async throws(StoreError) {
        do { try app.validate() } catch { throw .invalid(error.description) }
        let document = try Documents.encode(app)
        try await execute("""
            INSERT INTO apps (id, document, created_at, updated_at) VALUES (\(app.id), \(document)::jsonb, now(), now())
            ON CONFLICT (id) DO UPDATE SET document = excluded.document, updated_at = excluded.updated_at
            """)
    }

    public func deleteApp(id: String) async throws(StoreError) {
        try await deleteOne("DELETE FROM apps WHERE id = \(id) RETURNING id", missing: "no app '\(id)'")
    }

    private func deleteOne(_ query: PostgresQuery, missing: String) async throws(StoreError) {
        if try await rows(query).isEmpty { throw .notFound(missing) }
    }

    public func app(sdkKey: String) async throws(StoreError) -> App? {
        try Self.documents(App.self, try await rows("SELECT document::text FROM apps WHERE document->>'sdkKey' = \(sdkKey)")).first
    }

    // MARK: Domains

    public func domain(host: String) async throws(StoreError) -> Domain? {
        let host = host.lowercased()
        return try Self.domains(try await rows("SELECT host, app_id, alternate_host FROM domains WHERE host = \(host) OR alternate_host = \(host)")).first
    }

    public func domains(appID: String?) async throws(StoreError) -> [Domain] {
        try Self.domains(try await rows("""
            SELECT host, app_id, alternate_host FROM domains WHERE \(appID)::text IS NULL OR app_id = \(appID) ORDER BY host
            """))
    }

    private static func domains(_ rows: [PostgresRow]) throws(StoreError) -> [Domain] {
        do {
            return try rows.map { row in
                let (host, app, alternate) = try row.decode((String, String, String?).self)
                return Domain(host: host, appID: app, alternateHost: alternate)
            }
        } catch {
            throw .unavailable("a stored domain cannot be read: \(error)")
        }
    }

    public func save(_ domain: Domain) async throws(StoreError) {
        do { try domain.validate() } catch { throw .invalid(error.description) }
        let logger = logger
        try await transaction { connection in
            guard try await connection.query("SELECT 1 FROM apps WHERE id = \(domain.appID)", logger: logger).collect().count == 1 else {
                throw StoreError.notFound("no app '\(domain.appID)'")
            }
            // Serialise saves of domains, so two nodes cannot hand one host to two domains.
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext('ferry-domains'))", logger: logger)
            let owners = try await connection.query("""
                SELECT host FROM domains
                WHERE host <> \(domain.host) AND (host IN (\(domain.host), \(domain.alternateHost)) OR alternate_host IN (\(domain.host), \(domain.alternateHost)))
                """, logger: logger).collect()
            if let owner = try owners.first?.decode(String.self) {
                throw StoreError.conflict("\(domain.alternateHost ?? domain.host) already belongs to the domain \(owner)")
            }
            try await connection.query("""
                INSERT INTO domains (host, app_id, alternate_host, created_at) VALUES (\(domain.host), \(domain.appID), \(domain.alternateHost), now())
                ON CONFLICT (host) DO UPDATE SET app_id = excluded.app_id, alternate_host = excluded.alternate_host
                """, logger: logger)
        }
    }

    public func deleteDomain(host: String) async throws(StoreError) {
        try await deleteOne("DELETE FROM domains WHERE host = \(host.lowercased()) RETURNING host", missing: "no domain '\(host)'")
    }

    // MARK: Links

    public func link(domain: String, code: String) async throws(StoreError) -> Link? {
        try Self.documents(Link.self, try await rows("SELECT document::text FROM links WHERE domain = \(domain.lowercased()) AND code = \(code)")).first
    }

    public func links(_ query: LinkQuery) async throws(StoreError) -> [Link] {
        let domain = query.domain?.lowercased()
        let text = query.text.flatMap { $0.isEmpty ? nil : $0.lowercased() }
        let limit = max(0, min(query.limit, 1001))
        let offset = max(0, query.offset)
        return try Self.documents(Link.self, try await rows("""
            SELECT document::text FROM links
            WHERE (\(domain)::text IS NULL OR domain = \(domain))
              AND (\(query.campaign)::text IS NULL OR campaign = \(query.campaign))
              AND (\(text)::text IS NULL OR strpos(lower(code || E'\\n' || (document->>'path') || E'\\n'
                                                 || coalesce(document#>>'{preview,title}', '')), \(text)) > 0)
              AND (\(query.tag)::text IS NULL OR EXISTS (SELECT 1 FROM jsonb_each_text(document->'tags') AS tag WHERE tag.value = \(query.tag)))
            ORDER BY created_at DESC, sequence DESC
            LIMIT \(limit) OFFSET \(offset)
            """))
    }

    public func insert(_ links: [Link]) async throws(StoreError) {
        let documents = try await prepared(links)
        let logger = logger
        try await transaction { connection in
            for (link, document) in zip(links, documents) {
                do {
                    try await connection.query("""
                        INSERT INTO links (domain, code, document, campaign, created_at, updated_at)
                        VALUES (\(link.domain), \(link.code!), \(document)::jsonb, \(link.tags.effectiveCampaign), now(), now())
                        """, logger: logger)
                } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
                    throw StoreError.conflict("the code '\(link.code!)' is already taken on \(link.domain)")
                }
            }
        }
    }

    public func update(_ link: Link) async throws(StoreError) {
        let document = try await prepared([link])[0]
        let changed = try await rows("""
            UPDATE links SET document = \(document)::jsonb, campaign = \(link.tags.effectiveCampaign), updated_at = now()
            WHERE domain = \(link.domain) AND code = \(link.code!) RETURNING code
            """)
        if changed.isEmpty { throw .notFound("no link '\(link.code!)' on \(link.domain)") }
    }

    public func deleteLink(domain: String, code: String) async throws(StoreError) {
        try await deleteOne("DELETE FROM links WHERE domain = \(domain.lowercased()) AND code = \(code) RETURNING code",
                            missing: "no link '\(code)' on \(domain)")
    }


    // MARK: API keys

    public func insert(_ key: APIKeyRecord) async throws(StoreError) {
        try await execute("""
            INSERT INTO api_keys (id, name, hash, created_at, revoked_at) VALUES (\(key.id), \(key.name), \(key.hash), \(key.createdAt), \(key.revokedAt))
            """)
    }

    public func apiKey(hash: String) async throws(StoreError) -> APIKeyRecord? {
        try Self.keys(try await rows("SELECT id, name, hash, created_at, revoked_at FROM api_keys WHERE hash = \(hash)")).first
    }

    public func apiKeys() async throws(StoreError) -> [APIKeyRecord] {
        try Self.keys(try await rows("SELECT id, name, hash, created_at, revoked_at FROM api_keys ORDER BY created_at, id"))
    }

    public func revokeAPIKey(id: String, at date: Date) async throws(StoreError) {
        let rows = try await rows("UPDATE api_keys SET revoked_at = coalesce(revoked_at, \(date)) WHERE id = \(id) RETURNING id")
        if rows.isEmpty { throw .notFound("no API key '\(id)'") }
    }

    private static func keys(_ rows: [PostgresRow]) throws(StoreError) -> [APIKeyRecord] {
        do {
            return try rows.map { row in
                let (id, name, hash, created, revoked) = try row.decode((String, String, String, Date, Date?).self)
                return APIKeyRecord(id: id, name: name, hash: hash, createdAt: created, revokedAt: revoked)
            }
        } catch {
            throw .unavailable("a stored API key cannot be read: \(error)")
        }
    }

    // MARK: Visits

    /// One statement per batch: the rows travel as one JSON array that PostgreSQL unpacks
    /// (`jsonb_to_recordset`), so the statement text is fixed whatever the batch size.
    static func json(_ value: some Encodable) throws(StoreError) -> String {
        do {
            return String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
        } catch {
            throw .invalid("cannot encode: \(error)")
        }
    }

    // MARK: Deferred deep linking

    public func insert(_ intents: [DeferredIntent]) async throws(StoreError) {
        guard !intents.isEmpty else { return }
        struct Row: Encodable { let token: String, app_id: String, ip_hash: String?, document: String, created_at: Double, expires_at: Double }
        var rows: [Row] = []
        for intent in intents {
            rows.append(Row(token: intent.token, app_id: intent.appID, ip_hash: intent.signals.ipHash, document: try Documents.encode(intent),
                            created_at: intent.createdAt.timeIntervalSince1970, expires_at: intent.expiresAt.timeIntervalSince1970))
        }
        let json = try Self.json(rows)
        try await execute("""
            INSERT INTO deferred_intents (token, app_id, ip_hash, document, created_at, expires_at)
            SELECT r.token, r.app_id, r.ip_hash, r.document::jsonb, to_timestamp(r.created_at), to_timestamp(r.expires_at)
            FROM jsonb_to_recordset(\(json)::jsonb) AS r(token text, app_id text, ip_hash text, document text, created_at double precision,
                 expires_at double precision)
            ON CONFLICT (token) DO NOTHING
            """)
    }

    public func updateSignals(token: String, screen: Screen?, timeZone: String?, languages: [String]) async throws(StoreError) {
        let logger = logger
        try await transaction { connection in
            let rows = try await connection.query(
                "SELECT document::text FROM deferred_intents WHERE token = \(token) AND consumed_at IS NULL FOR UPDATE", logger: logger).collect()
            guard var intent = try Self.documents(DeferredIntent.self, rows).first else { return }
            intent.signals.merge(screen: screen, timeZone: timeZone, languages: languages)
            let document = try Documents.encode(intent)
            try await connection.query("UPDATE deferred_intents SET document = \(document)::jsonb WHERE token = \(token)", logger: logger)
        }
    }

    public func consumeIntent(token: String, appID: String, at date: Date) async throws(StoreError) -> DeferredIntent? {
        // One statement: of two installs racing for the token — on any node — one updates the row.
        try Self.documents(DeferredIntent.self, try await rows("""
            UPDATE deferred_intents SET consumed_at = \(date)
            WHERE token = \(token) AND app_id = \(appID) AND consumed_at IS NULL AND created_at <= \(date) AND expires_at > \(date)
            RETURNING document::text
            """)).first
    }

    public func intentCandidates(appID: String, ipHash: String, at date: Date) async throws(StoreError) -> [DeferredIntent] {
        try Self.documents(DeferredIntent.self, try await rows("""
            SELECT document::text FROM deferred_intents
            WHERE app_id = \(appID) AND ip_hash = \(ipHash) AND expires_at > \(date) AND created_at <= \(date) AND consumed_at IS NULL
            ORDER BY created_at LIMIT 100
            """))
    }

    @discardableResult
    public func purgeIntents(expiredBefore date: Date) async throws(StoreError) -> Int {
        try await rows("DELETE FROM deferred_intents WHERE expires_at < \(date) RETURNING token").count
    }

    public func record(events: [AppEvent]) async throws(StoreError) {
        guard !events.isEmpty else { return }
        struct Row: Encodable {
            let at: Double, app_id: String, kind: String, platform: String, match_type: String?, domain: String?, code: String?
            let campaign: String?, document: String
        }
        var rows: [Row] = []
        for event in events {
            rows.append(Row(at: event.at.timeIntervalSince1970, app_id: event.appID, kind: event.kind.rawValue, platform: event.platform.rawValue,
                            match_type: event.matchType?.rawValue, domain: event.domain, code: event.code,
                            campaign: event.tags.effectiveCampaign, document: try Documents.encode(event)))
        }
        let json = try Self.json(rows)
        let logger = logger
        try await transaction { connection in
            try await connection.query("""
                INSERT INTO app_events (at, app_id, kind, platform, match_type, domain, code, campaign, document)
                SELECT to_timestamp(r.at), r.app_id, r.kind, r.platform, r.match_type, r.domain, r.code, r.campaign, r.document::jsonb
                FROM jsonb_to_recordset(\(json)::jsonb) AS r(at double precision, app_id text, kind text, platform text, match_type text,
                     domain text, code text, campaign text, document text)
                """, logger: logger)
            try await Self.countEvents(events, on: connection, logger: logger)
        }
    }

    public func appEvents(appID: String) async throws(StoreError) -> [AppEvent] {
        try Self.documents(AppEvent.self, try await rows("SELECT document::text FROM app_events WHERE app_id = \(appID) ORDER BY id"))
    }
}

extension PostgresStore {
    /// Creates an empty database beside the one `url` names (for tests and first set-up);
    /// answers the URL of the new database.
    public static func createDatabase(named name: String, besides url: String) async throws(StoreError) -> String {
        guard name.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F }) else {
            throw .invalid("database: '\(name)' is not a plain database name")
        }
        let client = PostgresClient(configuration: try configuration(url: url, settings: Settings(poolSize: 1)))
        let runner = Task { await client.run() }
        defer { runner.cancel() }
        do {
            try await client.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"))
        } catch {
            throw .unavailable("cannot create database \(name): \(String(reflecting: error))")
        }
        guard var components = URLComponents(string: url) else { throw .invalid("database: not a URL") }
        components.path = "/" + name
        return components.string ?? url
    }
}
