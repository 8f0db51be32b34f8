/// SQLite schema, as numbered migrations applied in order, each once, each in a transaction.
/// Never edit a migration that has shipped; add the next number.
enum SQLiteMigrations {
    static let all: [(version: Int, statements: [String])] = [
        (1, [
            """
            CREATE TABLE apps (
                id TEXT PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 64),
                document TEXT NOT NULL CHECK (json_valid(document)),
                created_at REAL NOT NULL,
                updated_at REAL NOT NULL
            ) STRICT
            """,
            """
            CREATE TABLE domains (
                host TEXT PRIMARY KEY CHECK (host = lower(host)),
                app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                alternate_host TEXT UNIQUE CHECK (alternate_host IS NULL OR (alternate_host = lower(alternate_host) AND alternate_host <> host)),
                created_at REAL NOT NULL
            ) STRICT
            """,
            "CREATE INDEX domains_app ON domains(app_id)",
            """
            CREATE TABLE links (
                domain TEXT NOT NULL REFERENCES domains(host) ON DELETE CASCADE,
                code TEXT NOT NULL CHECK (length(code) BETWEEN 1 AND 64),
                document TEXT NOT NULL CHECK (json_valid(document)),
                campaign TEXT,
                created_at REAL NOT NULL,
                updated_at REAL NOT NULL,
                PRIMARY KEY (domain, code)
            ) STRICT
            """,
            "CREATE INDEX links_campaign ON links(campaign)",
            """
            CREATE TABLE api_keys (
                id TEXT PRIMARY KEY,
                name TEXT NOT NULL,
                hash TEXT NOT NULL UNIQUE,
                created_at REAL NOT NULL,
                revoked_at REAL
            ) STRICT
            """,
            """
            CREATE TABLE visits (
                id INTEGER PRIMARY KEY,
                at REAL NOT NULL,
                domain TEXT NOT NULL,
                code TEXT,
                path TEXT NOT NULL,
                platform TEXT NOT NULL,
                os_version TEXT,
                device TEXT NOT NULL,
                browser TEXT NOT NULL,
                in_app TEXT,
                bot TEXT NOT NULL,
                decision TEXT NOT NULL,
                referrer_host TEXT,
                ref TEXT,
                campaign TEXT,
                channel TEXT,
                utm_source TEXT,
                utm_medium TEXT,
                utm_campaign TEXT,
                ip_hash TEXT NOT NULL
            ) STRICT
            """,
            "CREATE INDEX visits_link ON visits(domain, code, at)",
        ]),
        // Raw visits are append-only: an index by link made every write touch pages all over
        // the file (a third of the server's time under load). Numbers per link come from
        // counters; raw visits are pruned by time.
        (2, [
            "DROP INDEX visits_link",
            "CREATE INDEX visits_at ON visits(at)",
        ]),
        // Deferred deep linking: what store-bound clicks leave for the app's first launch, and
        // the installs and opens apps report.
        (3, [
            """
            CREATE TABLE deferred_intents (
                token TEXT PRIMARY KEY,
                app_id TEXT NOT NULL,
                ip_hash TEXT,
                document TEXT NOT NULL CHECK (json_valid(document)),
                created_at REAL NOT NULL,
                expires_at REAL NOT NULL,
                consumed_at REAL
            ) STRICT
            """,
            "CREATE INDEX deferred_intents_match ON deferred_intents(app_id, ip_hash, expires_at)",
            "CREATE INDEX deferred_intents_expiry ON deferred_intents(expires_at)",
            """
            CREATE TABLE app_events (
                id INTEGER PRIMARY KEY,
                at REAL NOT NULL,
                app_id TEXT NOT NULL,
                kind TEXT NOT NULL CHECK (kind IN ('install', 'open')),
                platform TEXT NOT NULL,
                match_type TEXT,
                domain TEXT,
                code TEXT,
                campaign TEXT,
                document TEXT NOT NULL CHECK (json_valid(document))
            ) STRICT
            """,
            "CREATE INDEX app_events_app ON app_events(app_id, at)",
            "CREATE INDEX apps_sdk_key ON apps(json_extract(document, '$.sdkKey'))",
        ]),
        // Counters that statistics read instead of raw visits (`VisitRollup`), kept in the
        // transaction that writes the visits; the rows already stored are added when the
        // store opens (`SQLiteStore.backfillCounters`). Every tag and the country on raw visits.
        // What `ferry store copy` keeps.
        (4, [
            "ALTER TABLE visits ADD COLUMN utm_term TEXT",
            "ALTER TABLE visits ADD COLUMN utm_content TEXT",
            "ALTER TABLE visits ADD COLUMN country TEXT",
            "ALTER TABLE visits ADD COLUMN campaign_tag TEXT",
            """
            CREATE TABLE visit_hours (
                domain TEXT NOT NULL,
                code TEXT NOT NULL,
                hour INTEGER NOT NULL,
                campaign TEXT NOT NULL,
                decision TEXT NOT NULL,
                bot INTEGER NOT NULL,
                visits INTEGER NOT NULL,
                PRIMARY KEY (domain, code, hour, campaign, decision, bot)
            ) STRICT, WITHOUT ROWID
            """,
            "CREATE INDEX visit_hours_campaign ON visit_hours(campaign, hour)",
            """
            CREATE TABLE visit_days (
                domain TEXT NOT NULL,
                code TEXT NOT NULL,
                day INTEGER NOT NULL,
                campaign TEXT NOT NULL,
                dimension TEXT NOT NULL,
                value TEXT NOT NULL,
                humans INTEGER NOT NULL,
                bots INTEGER NOT NULL,
                PRIMARY KEY (domain, code, day, campaign, dimension, value)
            ) STRICT, WITHOUT ROWID
            """,
            "CREATE INDEX visit_days_campaign ON visit_days(campaign, day)",
            """
            CREATE TABLE visitor_days (
                day INTEGER NOT NULL,
                domain TEXT NOT NULL,
                code TEXT NOT NULL,
                ip_hash TEXT NOT NULL,
                campaign TEXT NOT NULL,
                PRIMARY KEY (day, domain, code, ip_hash)
            ) STRICT, WITHOUT ROWID
            """,
            "CREATE INDEX visitor_days_campaign ON visitor_days(campaign, day)",
            """
            CREATE TABLE link_visitors (
                domain TEXT NOT NULL,
                code TEXT NOT NULL,
                day INTEGER NOT NULL,
                visitors INTEGER NOT NULL,
                PRIMARY KEY (domain, code, day)
            ) STRICT, WITHOUT ROWID
            """,
            """
            CREATE TABLE event_counts (
                app_id TEXT NOT NULL,
                domain TEXT NOT NULL,
                code TEXT NOT NULL,
                hour INTEGER NOT NULL,
                campaign TEXT NOT NULL,
                platform TEXT NOT NULL,
                kind TEXT NOT NULL,
                match_type TEXT NOT NULL,
                tags TEXT NOT NULL,
                events INTEGER NOT NULL,
                PRIMARY KEY (app_id, domain, code, hour, campaign, platform, kind, match_type, tags)
            ) STRICT, WITHOUT ROWID
            """,
            // `ferry store copy`: this database's name, and how far rows from others were copied.
            "CREATE TABLE store_identity (one INTEGER PRIMARY KEY CHECK (one = 1), id TEXT NOT NULL) STRICT",
            """
            CREATE TABLE copy_marks (
                source TEXT NOT NULL,
                table_name TEXT NOT NULL,
                last_id INTEGER NOT NULL,
                PRIMARY KEY (source, table_name)
            ) STRICT
            """,
        ]),
        // Webhooks and their deliveries (each with its log in the document).
        (5, [
            """
            CREATE TABLE webhooks (
                id TEXT PRIMARY KEY,
                app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                document TEXT NOT NULL CHECK (json_valid(document)),
                created_at REAL NOT NULL
            ) STRICT
            """,
            "CREATE INDEX webhooks_app ON webhooks(app_id)",
            """
            CREATE TABLE webhook_deliveries (
                id TEXT PRIMARY KEY,
                webhook_id TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
                state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
                next_attempt_at REAL,
                created_at REAL NOT NULL,
                document TEXT NOT NULL CHECK (json_valid(document))
            ) STRICT
            """,
            "CREATE INDEX webhook_deliveries_due ON webhook_deliveries(state, next_attempt_at)",
            "CREATE INDEX webhook_deliveries_log ON webhook_deliveries(webhook_id, created_at)",
        ]),
        // Dashboard users (the password only as a slow hash, in the document).
        (6, [
            """
            CREATE TABLE users (
                id TEXT PRIMARY KEY,
                email TEXT NOT NULL UNIQUE CHECK (email = lower(email)),
                document TEXT NOT NULL CHECK (json_valid(document)),
                created_at REAL NOT NULL
            ) STRICT
            """,
        ]),
        // Unique visitors of a domain and of a campaign per day, counted as they arrive (like
        // a link's), filled from the visitors already stored.
        (7, [
            """
            CREATE TABLE set_visitor_days (
                visitor_set TEXT NOT NULL,
                day INTEGER NOT NULL,
                ip_hash TEXT NOT NULL,
                PRIMARY KEY (visitor_set, day, ip_hash)
            ) STRICT, WITHOUT ROWID
            """,
            """
            CREATE TABLE set_visitors (
                visitor_set TEXT NOT NULL,
                day INTEGER NOT NULL,
                visitors INTEGER NOT NULL,
                PRIMARY KEY (visitor_set, day)
            ) STRICT, WITHOUT ROWID
            """,
            "INSERT INTO set_visitor_days SELECT DISTINCT 'd|' || domain, day, ip_hash FROM visitor_days",
            "INSERT INTO set_visitor_days SELECT DISTINCT 'c|' || domain || '|' || campaign, day, ip_hash FROM visitor_days WHERE campaign <> ''",
            "INSERT INTO set_visitors SELECT visitor_set, day, count(*) FROM set_visitor_days GROUP BY visitor_set, day",
        ]),
        // Counters are summed from the raw visits every few seconds rather than with every
        // batch (`SQLiteVisitWriter`): the last visit they include. Everything stored so far
        // was counted as it was written.
        (8, [
            """
            CREATE TABLE visit_counting (
                one INTEGER PRIMARY KEY CHECK (one = 1),
                counted_through INTEGER NOT NULL
            ) STRICT
            """,
            "INSERT INTO visit_counting (one, counted_through) SELECT 1, coalesce(max(id), 0) FROM visits",
        ]),
    ]
}
