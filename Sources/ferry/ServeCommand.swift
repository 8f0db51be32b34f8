import ArgumentParser
import Configuration
import FerryKit
import FerryServer
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// Settings shared by every command that opens the database.
struct StoreOptions: ParsableArguments {
    @Option(help: "SQLite database file, or a postgres://user:password@host:5432/database URL. Environment: FERRY_DATABASE.")
    var database: String?

    @Option(help: "PostgreSQL connections per node. Environment: FERRY_DATABASE_POOL_SIZE. Default: 20.")
    var databasePoolSize: Int?

    @Option(help: "Seconds a PostgreSQL statement may run (a visit write is retried after 4 × this, at least 30 s). Environment: FERRY_DATABASE_TIMEOUT. Default: 10.")
    var databaseTimeout: Int?

    private var reader: ConfigReader {
        var flags: [AbsoluteConfigKey: ConfigValue] = [:]
        if let database { flags["ferry.database"] = ConfigValue(.string(database), isSecret: false) }
        if let databasePoolSize { flags["ferry.databasePoolSize"] = ConfigValue(.int(databasePoolSize), isSecret: false) }
        if let databaseTimeout { flags["ferry.databaseTimeout"] = ConfigValue(.int(databaseTimeout), isSecret: false) }
        return ConfigReader(providers: [InMemoryProvider(name: "flags", values: flags), EnvironmentVariablesProvider()])
    }

    var databasePath: String {
        reader.string(forKey: "ferry.database", default: "ferry-data/ferry.sqlite")
    }

    /// Opens the store, runs `body`, and closes the store however `body` ends.
    func withStore<T>(_ body: (any LinkStore) async throws -> T) async throws -> T {
        let store = try await openStore()
        do {
            let result = try await body(store)
            await store.close()
            return result
        } catch {
            await store.close()
            if let error = error as? StoreError {
                printError("error: \(error.message)")
                throw error.isNotFound || error.isConflict || error.isInvalid ? ExitCodes.negative : ExitCodes.badInput
            }
            throw error
        }
    }

    func openStore() async throws -> any LinkStore {
        let reader = reader
        let poolSize = reader.int(forKey: "ferry.databasePoolSize", default: 20)
        let timeout = reader.int(forKey: "ferry.databaseTimeout", default: 10)
        guard (1...1000).contains(poolSize), (1...3600).contains(timeout) else {
            printError("error: the database pool size is 1 to 1000 connections and the timeout 1 to 3600 seconds")
            throw ExitCodes.badInput
        }
        do {
            return try await Stores.open(databasePath, postgres: .init(poolSize: poolSize, statementTimeout: .seconds(timeout)))
        } catch {
            printError("error: \(error.message)")
            throw ExitCodes.badInput
        }
    }
}

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the link server.",
        discussion: """
            Serves links, previews and the association files for every configured domain, and
            keeps its data in one SQLite file, or in PostgreSQL shared by several nodes
            (--database postgres://…; give every node the same --secret). The database is
            created or migrated on start. Every option also reads an environment variable, shown
            with it; a flag wins over the variable.

            On first start Ferry prints an admin API key once; it keeps only its hash.
            SIGTERM or Ctrl-C stops it gracefully: no new connections, requests in flight
            finished, every queued visit written.

            Example:
              ferry serve --demo
              curl -si -A 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1' \\
                  -H 'Host: go.demo.ferry.test' http://127.0.0.1:8080/hello
            """)

    @Option(help: "Address to listen on. Environment: FERRY_HOST.")
    var host: String?

    @Option(help: "Port to listen on. Environment: FERRY_PORT.")
    var port: Int?

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "Secret that keys IP hashes (any long random string). Environment: FERRY_SECRET. Default: generated once and kept beside the database.")
    var secret: String?

    @Option(name: .customLong("trusted-proxy"), help: "A proxy whose X-Forwarded-For/Forwarded headers are believed: an address or IPv4 CIDR; repeatable. Environment: FERRY_TRUSTED_PROXIES (comma-separated).")
    var trustedProxies: [String] = []

    @Option(help: "Where the API is reached from outside, e.g. https://links.example.com (shown in messages). Environment: FERRY_PUBLIC_URL. Default: http://HOST:PORT.")
    var publicURL: String?

    @Option(help: "trace, debug, info, notice, warning, error or critical. Environment: FERRY_LOG_LEVEL.")
    var logLevel: String?

    @Option(help: "SDK API requests a minute from one address (also the burst). Environment: FERRY_SDK_RATE_PER_IP. Default: 60.")
    var sdkRatePerIP: Int?

    @Option(help: "SDK API requests a minute with one app's SDK key. Environment: FERRY_SDK_RATE_PER_KEY. Default: 60000.")
    var sdkRatePerKey: Int?

    @Option(help: "Seconds a cached link, domain or app is served before it is read again (also while the database is away). Environment: FERRY_CACHE_SECONDS. Default: 60, or 15 on PostgreSQL.")
    var cacheSeconds: Int?

    @Option(help: "Days raw visits are kept; statistics come from counters and keep every visit. 0 keeps raw visits for ever. Environment: FERRY_VISIT_RETENTION_DAYS. Default: 90.")
    var visitRetentionDays: Int?

    @Option(help: "Header in which a trusted proxy gives the client's country (two letters); empty for none. Environment: FERRY_COUNTRY_HEADER. Default: CF-IPCountry.")
    var countryHeader: String?

    @Flag(help: "Let webhooks use http:// URLs (receivers on a private network). Environment: FERRY_WEBHOOKS_ALLOW_HTTP=true. Default: https only.")
    var webhooksAllowHTTP = false

    @Flag(help: "Seed a demo app, domain (go.demo.ferry.test) and links.")
    var demo = false

    /// The settings: flags first, then `FERRY_*` environment variables (swift-configuration
    /// maps `ferry.trustedProxies` to `FERRY_TRUSTED_PROXIES`), then defaults.
    func configuration() -> ConfigReader {
        var flags: [AbsoluteConfigKey: ConfigValue] = [:]
        if let host { flags["ferry.host"] = ConfigValue(.string(host), isSecret: false) }
        if let port { flags["ferry.port"] = ConfigValue(.int(port), isSecret: false) }
        if let secret { flags["ferry.secret"] = ConfigValue(.string(secret), isSecret: true) }
        if !trustedProxies.isEmpty { flags["ferry.trustedProxies"] = ConfigValue(.stringArray(trustedProxies), isSecret: false) }
        if let logLevel { flags["ferry.logLevel"] = ConfigValue(.string(logLevel), isSecret: false) }
        if let publicURL { flags["ferry.publicURL"] = ConfigValue(.string(publicURL), isSecret: false) }
        if let sdkRatePerIP { flags["ferry.sdkRatePerIP"] = ConfigValue(.int(sdkRatePerIP), isSecret: false) }
        if let sdkRatePerKey { flags["ferry.sdkRatePerKey"] = ConfigValue(.int(sdkRatePerKey), isSecret: false) }
        if let cacheSeconds { flags["ferry.cacheSeconds"] = ConfigValue(.int(cacheSeconds), isSecret: false) }
        if let visitRetentionDays { flags["ferry.visitRetentionDays"] = ConfigValue(.int(visitRetentionDays), isSecret: false) }
        if let countryHeader { flags["ferry.countryHeader"] = ConfigValue(.string(countryHeader), isSecret: false) }
        if webhooksAllowHTTP { flags["ferry.webhooksAllowHTTP"] = ConfigValue(.bool(true), isSecret: false) }
        return ConfigReader(providers: [
            InMemoryProvider(name: "flags", values: flags),
            EnvironmentVariablesProvider(secretsSpecifier: .specific(["FERRY_SECRET"])),
        ])
    }

    func run() async throws {
        let config = configuration()
        let level = config.string(forKey: "ferry.logLevel", default: "info")
        guard let logLevel = Logger.Level(rawValue: level) else {
            printError("error: unknown log level '\(level)'")
            throw ExitCodes.badInput
        }
        var logger = Logger(label: "ferry")
        logger.logLevel = logLevel
        let port = config.int(forKey: "ferry.port", default: 8080)
        guard (0...65535).contains(port) else {
            printError("error: '\(port)' is not a port")
            throw ExitCodes.badInput
        }
        let ratePerIP = config.int(forKey: "ferry.sdkRatePerIP", default: 60)
        let ratePerKey = config.int(forKey: "ferry.sdkRatePerKey", default: 60_000)
        guard ratePerIP > 0, ratePerKey > 0 else {
            printError("error: SDK rate limits are requests a minute, at least 1")
            throw ExitCodes.badInput
        }
        let cacheSeconds = config.int(forKey: "ferry.cacheSeconds")
        if let cacheSeconds, !(1...86_400).contains(cacheSeconds) {
            printError("error: the cache lifetime is 1 to 86,400 seconds")
            throw ExitCodes.badInput
        }
        let retentionDays = config.int(forKey: "ferry.visitRetentionDays", default: 90)
        guard (0...36_500).contains(retentionDays) else {
            printError("error: the visit retention is 0 (for ever) to 36,500 days")
            throw ExitCodes.badInput
        }
        let countryHeader = config.string(forKey: "ferry.countryHeader", default: "CF-IPCountry")
        guard countryHeader.isEmpty || HTTPField.Name(countryHeader) != nil else {
            printError("error: '\(countryHeader)' is not a header name")
            throw ExitCodes.badInput
        }
        let proxies = config.stringArray(forKey: "ferry.trustedProxies", default: [])
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let databasePath = storeOptions.databasePath
        let configuredSecret = try config.string(forKey: "ferry.secret", isSecret: true)
        if Stores.isPostgres(databasePath), configuredSecret == nil {
            // Every node must hash IPs with the same key, or no visitor is counted once.
            printError("error: with PostgreSQL, give every node the same --secret (FERRY_SECRET)")
            throw ExitCodes.badInput
        }
        let store = try await storeOptions.openStore()
        var publicURL: URL?
        if let text = config.string(forKey: "ferry.publicURL") {
            do {
                publicURL = try URLRules.webURL(text, field: "public-url")
            } catch {
                await store.close()
                printError("error: --public-url: \(error.message)")
                throw ExitCodes.badInput
            }
        }
        let settings = ServerSettings(
            host: config.string(forKey: "ferry.host", default: "127.0.0.1"), port: port,
            secret: try configuredSecret ?? Self.storedSecret(beside: databasePath),
            trustedProxies: proxies, publicURL: publicURL, sdkRequestsPerMinutePerIP: ratePerIP, sdkRequestsPerMinutePerKey: ratePerKey,
            cacheLifetime: cacheSeconds.map(TimeInterval.init), visitRetentionDays: retentionDays,
            countryHeader: countryHeader.isEmpty ? nil : countryHeader,
            webhooksAllowHTTP: config.bool(forKey: "ferry.webhooksAllowHTTP", default: false))
        if demo {
            try await Demo.seed(store)
            logger.info("demo seeded: try http://\(settings.host):\(settings.port)/hello with Host: \(Demo.host)")
        }
        if try await store.apiKeys().isEmpty {
            let (_, secret) = try await APIKeys.create(name: "first admin key", in: store)
            var output = Output()
            output.line("""
                Admin API key (shown once, stored only as a hash):
                  \(secret)
                Use it as 'Authorization: Bearer <key>' on \(settings.publicURL.absoluteString)/api/v1. Manage keys with 'ferry apikey'.
                """)
            output.flush()
        }
        do {
            try await Self.serve(store, settings: settings, logger: logger)
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }

    /// Runs the server on `store` until a graceful stop.
    static func serve<Store: LinkStore>(_ store: Store, settings: ServerSettings, logger: Logger) async throws {
        let services = FerryServices(store: store, settings: settings, logger: logger)
        try await buildApplication(services).runService()
        let counts = services.recorder.counts
        logger.info("stopped: \(counts.written) visits written, \(counts.dropped) dropped")
    }

    /// A secret generated on first start and kept (mode 600) beside the database.
    static func storedSecret(beside database: String) throws -> String {
        let url = URL(fileURLWithPath: database).deletingLastPathComponent().appendingPathComponent("secret")
        if let data = FileManager.default.contents(atPath: url.path), let text = String(data: data, encoding: .utf8), text.count >= 32 {
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let secret = Tokens.random(bytes: 32)
        try Data(secret.utf8).write(to: url, options: .atomic)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
        return secret
    }
}

struct APIKeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apikey",
        abstract: "Manage admin API keys (stored only as hashes).",
        discussion: """
            Examples:
              ferry apikey create --name ci
              ferry apikey list
              ferry apikey revoke key_AbCdEfGh
            """,
        subcommands: [Create.self, List.self, Revoke.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a key and print its secret once.")
        @Option(help: "What the key is for.") var name: String
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            let (record, secret) = try await storeOptions.withStore { try await APIKeys.create(name: name, in: $0) }
            print("\(record.id)  \(secret)")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List keys (never their secrets).")
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            let keys = try await storeOptions.withStore { try await $0.apiKeys() }
            let formatter = ISO8601DateFormatter()
            for key in keys {
                print("\(key.id)  \(key.isActive ? "active " : "revoked")  \(formatter.string(from: key.createdAt))  \(key.name)")
            }
            if keys.isEmpty { print("no API keys") }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a key by id.")
        @Argument(help: "The key's id (key_…).") var id: String
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            try await storeOptions.withStore { try await $0.revokeAPIKey(id: id, at: Date()) }
            print("revoked \(id)")
        }
    }
}
