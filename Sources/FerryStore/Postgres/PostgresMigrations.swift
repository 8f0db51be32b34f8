/// PostgreSQL schema, as numbered migrations applied in order, each once, in one transaction
/// under an advisory lock (several nodes may start at once). Never edit a migration that has
/// shipped; add the next number.
enum PostgresMigrations {
    static let all: [(version: Int, statements: [String])] = [
        (1, [
            """
            CREATE TABLE apps (
                id TEXT PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 64),
                document JSONB NOT NULL,
                created_at TIMESTAMPTZ NOT NULL,
                updated_at TIMESTAMPTZ NOT NULL
            )
            """,
            "CREATE UNIQUE INDEX apps_sdk_key ON apps ((document->>'sdkKey'))",
            """
            CREATE TABLE domains (
                host TEXT PRIMARY KEY CHECK (host = lower(host)),
                app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                alternate_host TEXT UNIQUE CHECK (alternate_host IS NULL OR (alternate_host = lower(alternate_host) AND alternate_host <> host)),
                created_at TIMESTAMPTZ NOT NULL
            )
            """,
            "CREATE INDEX domains_app ON domains(app_id)",
            """
            CREATE TABLE links (
                domain TEXT NOT NULL REFERENCES domains(host) ON DELETE CASCADE,
                code TEXT NOT NULL CHECK (length(code) BETWEEN 1 AND 64),
                document JSONB NOT NULL,
                campaign TEXT,
                created_at TIMESTAMPTZ NOT NULL,
                updated_at TIMESTAMPTZ NOT NULL,
                sequence BIGSERIAL NOT NULL,
                PRIMARY KEY (domain, code)
            )
            """,
            "CREATE INDEX links_campaign ON links(campaign)",
            "CREATE INDEX links_newest ON links(created_at DESC, sequence DESC)",
            """
            CREATE TABLE api_keys (
                id TEXT PRIMARY KEY,
                name TEXT NOT NULL,
                hash TEXT NOT NULL UNIQUE,
                created_at TIMESTAMPTZ NOT NULL,
                revoked_at TIMESTAMPTZ
            )
            """,
            """
            CREATE TABLE visits (
                id BIGSERIAL PRIMARY KEY,
                at TIMESTAMPTZ NOT NULL,
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
            )
            """,
            "CREATE INDEX visits_at ON visits(at)",
            """
            CREATE TABLE deferred_intents (
                token TEXT PRIMARY KEY,
                app_id TEXT NOT NULL,
                ip_hash TEXT,
                document JSONB NOT NULL,
                created_at TIMESTAMPTZ NOT NULL,
                expires_at TIMESTAMPTZ NOT NULL,
                consumed_at TIMESTAMPTZ
            )
            """,
            "CREATE INDEX deferred_intents_match ON deferred_intents(app_id, ip_hash, expires_at)",
            "CREATE INDEX deferred_intents_expiry ON deferred_intents(expires_at)",
            """
            CREATE TABLE app_events (
                id BIGSERIAL PRIMARY KEY,
                at TIMESTAMPTZ NOT NULL,
                app_id TEXT NOT NULL,
                kind TEXT NOT NULL CHECK (kind IN ('install', 'open')),
                platform TEXT NOT NULL,
                match_type TEXT,
                domain TEXT,
                code TEXT,
                campaign TEXT,
                document JSONB NOT NULL
            )
            """,
            "CREATE INDEX app_events_app ON app_events(app_id, at)",
        ]),
        // Counters that statistics read instead of raw visits (`VisitRollup`), kept in the
        // transaction that writes the visits; rows already stored are added by
        // `PostgresStore.backfillCounters` right after. Every tag and the country on raw visits.
        // What `ferry store copy` keeps.
        (2, [
            "ALTER TABLE visits ADD COLUMN utm_term TEXT, ADD COLUMN utm_content TEXT, ADD COLUMN campaign_tag TEXT, ADD COLUMN country TEXT",
            """
            CREATE TABLE visit_hours (
                domain TEXT NOT NULL,
                code TEXT NOT NULL,
                hour BIGINT NOT NULL,
                campaign TEXT NOT NULL,
                decision TEXT NOT NULL,
                bot BOOLEAN NOT NULL,
                visits BIGINT NOT NULL,
                PRIMARY KEY (domain, code, hour, campaign, decision, bot)
            )
            """,
            "CREATE INDEX visit_hours_campaign ON visit_hours(campaign, hour)",
            """
            CREATE TABLE visit_days (
                domain TEXT NOT NULL,
                code TEXT NOT NULL,
                day BIGINT NOT NULL,
                campaign TEXT NOT NULL,
                dimension TEXT NOT NULL,
                value TEXT NOT NULL,
                humans BIGINT NOT NULL,
                bots BIGINT NOT NULL,
                PRIMARY KEY (domain, code, day, campaign, dimension, value)
            )
            """,
            "CREATE INDEX visit_days_campaign ON visit_days(campaign, day)",
            """
            CREATE TABLE visitor_days (
                day BIGINT NOT NULL,
                domain TEXT NOT NULL,
                code TEXT NOT NULL,
                ip_hash TEXT NOT NULL,
                campaign TEXT NOT NULL,
                PRIMARY KEY (day, domain, code, ip_hash)
            )
            """,
            "CREATE INDEX visitor_days_campaign ON visitor_days(campaign, day)",
            """
            CREATE TABLE link_visitors (
                domain TEXT NOT NULL,
                code TEXT NOT NULL,
                day BIGINT NOT NULL,
                visitors BIGINT NOT NULL,
                PRIMARY KEY (domain, code, day)
            )
            """,
            """
            CREATE TABLE event_counts (
                app_id TEXT NOT NULL,
                domain TEXT NOT NULL,
                code TEXT NOT NULL,
                hour BIGINT NOT NULL,
                campaign TEXT NOT NULL,
                platform TEXT NOT NULL,
                kind TEXT NOT NULL,
                match_type TEXT NOT NULL,
                tags TEXT NOT NULL,
                events BIGINT NOT NULL,
                PRIMARY KEY (app_id, domain, code, hour, campaign, platform, kind, match_type, tags)
            )
            """,
            // `ferry store copy`: this database's name, and how far rows from others were copied.
            "CREATE TABLE store_identity (one INTEGER PRIMARY KEY CHECK (one = 1), id TEXT NOT NULL)",
            """
            CREATE TABLE copy_marks (
                source TEXT NOT NULL,
                table_name TEXT NOT NULL,
                last_id BIGINT NOT NULL,
                PRIMARY KEY (source, table_name)
            )
            """,
        ]),
        // Webhooks and their deliveries (each with its log in the document).
        (3, [
            """
            CREATE TABLE webhooks (
                id TEXT PRIMARY KEY,
                app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
                document JSONB NOT NULL,
                created_at TIMESTAMPTZ NOT NULL
            )
            """,
            "CREATE INDEX webhooks_app ON webhooks(app_id)",
            """
            CREATE TABLE webhook_deliveries (
                id TEXT PRIMARY KEY,
                webhook_id TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
                state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
                next_attempt_at TIMESTAMPTZ,
                created_at TIMESTAMPTZ NOT NULL,
                document JSONB NOT NULL
            )
            """,
            "CREATE INDEX webhook_deliveries_due ON webhook_deliveries(state, next_attempt_at)",
            "CREATE INDEX webhook_deliveries_log ON webhook_deliveries(webhook_id, created_at)",
        ]),
        // Dashboard users (the password only as a slow hash, in the document).
        (4, [
            """
            CREATE TABLE users (
                id TEXT PRIMARY KEY,
                email TEXT NOT NULL UNIQUE CHECK (email = lower(email)),
                document JSONB NOT NULL,
                created_at TIMESTAMPTZ NOT NULL
            )
            """,
        ]),
        // Unique visitors of a domain and of a campaign per day, counted as they arrive (like
        // a link's), filled from the visitors already stored.
        (5, [
            """
            CREATE TABLE set_visitor_days (
                visitor_set TEXT NOT NULL,
                day BIGINT NOT NULL,
                ip_hash TEXT NOT NULL,
                PRIMARY KEY (visitor_set, day, ip_hash)
            )
            """,
            """
            CREATE TABLE set_visitors (
                visitor_set TEXT NOT NULL,
                day BIGINT NOT NULL,
                visitors BIGINT NOT NULL,
                PRIMARY KEY (visitor_set, day)
            )
            """,
            "INSERT INTO set_visitor_days SELECT DISTINCT 'd|' || domain, day, ip_hash FROM visitor_days",
            "INSERT INTO set_visitor_days SELECT DISTINCT 'c|' || domain || '|' || campaign, day, ip_hash FROM visitor_days WHERE campaign <> ''",
            "INSERT INTO set_visitors SELECT visitor_set, day, count(*) FROM set_visitor_days GROUP BY visitor_set, day",
        ]),
    ]
}
