import ArgumentParser
import FerryKit
import FerryServer
import FerryStore
import Foundation

/// JSON for `--json` output and `--file` input: ISO 8601 dates, sorted keys.
enum CommandJSON {
    static func encode(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func decode<T: Decodable>(_ type: T.Type, file: String) throws -> T {
        let data = file == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try readFile(file)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            return try decoder.decode(type, from: data)
        } catch {
            printError("error: \(file == "-" ? "standard input" : file) is not a valid \(type): \(error)")
            throw ExitCodes.badInput
        }
    }
}

/// Checks a value before it is written, with the field named.
func validated(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as FerryKit.ValidationError {
        printError("error: \(error.field): \(error.message)")
        throw ExitCodes.negative
    }
}

struct AppCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app",
        abstract: "Create, list and show apps in the database (no server needed).",
        discussion: """
            An app is JSON: id, name, ios (teamID, bundleID, appStoreID…), android (packageName,
            sha256CertFingerprints, stores…), web (fallbackURL) and routes — the same document
            as the API's (see openapi.yaml).

            Examples:
              ferry app create --file acme.json
              ferry app list
              ferry app show acme --json
            """,
        subcommands: [Create.self, List.self, Show.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create or replace an app from a JSON file ('-' reads standard input).")
        @Option(help: "The app as JSON.") var file: String
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            var app = try CommandJSON.decode(App.self, file: file)
            let saved = try await storeOptions.withStore { store in
                // A new app gets an SDK key; a replaced one keeps its key unless the file names one.
                if app.sdkKey == nil { app.sdkKey = try await store.app(id: app.id)?.sdkKey ?? SDKKeys.generate() }
                try validated { try app.validate() }
                try await store.save(app)
                return app
            }
            print("saved app \(saved.id) (SDK key \(saved.sdkKey ?? "-"))")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List apps.")
        @Flag(help: "One JSON object per line.") var json = false
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            let apps = try await storeOptions.withStore { try await $0.apps() }
            for app in apps {
                print(json ? try CommandJSON.encode(app)
                     : "\(app.id)  \(app.name)  ios=\(app.ios?.appID ?? "-")  android=\(app.android?.packageName ?? "-")  routes=\(app.routes.count)")
            }
            if apps.isEmpty, !json { print("no apps") }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one app, with its domains.")
        @Argument(help: "The app's id.") var id: String
        @Flag(help: "The app as JSON.") var json = false
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            let (app, domains) = try await storeOptions.withStore { store in
                (try await store.app(id: id), try await store.domains(appID: id))
            }
            guard let app else {
                printError("error: no app '\(id)'")
                throw ExitCodes.negative
            }
            if json {
                print(try CommandJSON.encode(app))
                return
            }
            print("\(app.id)  \(app.name)")
            if let ios = app.ios { print("  ios: \(ios.appID)\(ios.appStoreID.map { "  App Store id\($0)" } ?? "")") }
            if let android = app.android { print("  android: \(android.packageName)  stores: \(android.stores.map(\.store.rawValue).joined(separator: ", "))") }
            print("  web: \(app.web.fallbackURL.absoluteString)")
            print("  sdk key: \(app.sdkKey ?? "-")  deferred window: \(app.deferred.windowMinutes) min  probabilistic: "
                  + "ios \(app.deferred.probabilisticIOS ? "on" : "off"), android \(app.deferred.probabilisticAndroid ? "on" : "off")")
            for route in app.routes { print("  route \(route.pattern)\(route.webURL.map { " → \($0)" } ?? "")") }
            for domain in domains { print("  domain \(domain.host)\(domain.alternateHost.map { " (alternate \($0))" } ?? "")") }
        }
    }
}

struct DomainCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "domain",
        abstract: "Add and list link domains.",
        discussion: """
            Examples:
              ferry domain add go.acme.com --app acme --alternate open.acme.com
              ferry domain list --app acme
            """,
        subcommands: [Add.self, List.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a domain (or change its alternate host).")
        @Argument(help: "The host, e.g. go.acme.com.") var host: String
        @Option(help: "The app it serves.") var app: String
        @Option(help: "The alternate host for \"Open in app\" buttons, e.g. open.acme.com.") var alternate: String?
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            let domain = Domain(host: host, appID: app, alternateHost: alternate)
            try validated { try domain.validate() }
            try await storeOptions.withStore { try await $0.save(domain) }
            print("saved domain \(domain.host)")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List domains.")
        @Option(help: "Only this app's domains.") var app: String?
        @Flag(help: "One JSON object per line.") var json = false
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            let domains = try await storeOptions.withStore { try await $0.domains(appID: app) }
            for domain in domains {
                print(json ? try CommandJSON.encode(domain) : "\(domain.host)  app=\(domain.appID)  alternate=\(domain.alternateHost ?? "-")")
            }
            if domains.isEmpty, !json { print("no domains") }
        }
    }
}

struct LinkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "link",
        abstract: "Create, list, show and disable links.",
        discussion: """
            A running server sees new links at once and changes to cached links within a minute;
            the admin API's changes are immediate.

            Examples:
              ferry link create --domain go.acme.com --path /u/42 --title "Ada's profile" --campaign spring
              ferry link create --file links.json        # one link object, or {"links": [...]}
              ferry link list --domain go.acme.com --campaign spring
              ferry link show go.acme.com x7Kp2Q9a --json
              ferry link disable go.acme.com x7Kp2Q9a
            """,
        subcommands: [Create.self, List.self, Show.self, Disable.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a link; without --code an unguessable one is made.")
        @Option(help: "The link's domain.") var domain: String?
        @Option(help: "The path in the app, e.g. /u/42.") var path: String?
        @Option(help: "A custom code (letters, digits, - and _).") var code: String?
        @Option(help: "Preview title.") var title: String?
        @Option(help: "Preview description.") var description: String?
        @Option(help: "Campaign tag.") var campaign: String?
        @Option(help: "Where desktops go instead of the route's web page.") var desktopURL: String?
        @Option(help: "Links as JSON (one object or {\"links\": [...]}); '-' reads standard input.") var file: String?
        @Flag(help: "Print the created links as JSON.") var json = false
        @OptionGroup var storeOptions: StoreOptions

        struct Bulk: Decodable { let links: [Link] }

        func run() async throws {
            var links: [Link]
            if let file {
                if let bulk = try? CommandJSON.decode(Bulk.self, file: file) { links = bulk.links } else { links = [try CommandJSON.decode(Link.self, file: file)] }
            } else {
                guard let domain, let path else {
                    printError("error: give --domain and --path, or --file")
                    throw ExitCodes.badInput
                }
                var link = Link(code: code, domain: domain, path: path,
                                preview: PreviewMetadata(title: title, description: description), tags: LinkTags(campaign: campaign))
                if let desktopURL {
                    do { link.desktopURL = try URLRules.webURL(desktopURL, field: "desktopURL") } catch {
                        printError("error: \(error.field): \(error.message)")
                        throw ExitCodes.negative
                    }
                }
                links = [link]
            }
            for index in links.indices where links[index].code == nil { links[index].code = LinkCodes.generate() }
            let created = links
            try await storeOptions.withStore { try await $0.insert(created) }
            for link in created {
                print(json ? try CommandJSON.encode(link) : "created https://\(link.domain)/\(link.code!) → \(link.path)")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List links, newest first.")
        @Option(help: "Only this domain.") var domain: String?
        @Option(help: "Only this campaign.") var campaign: String?
        @Option(help: "Only links with a tag of this value.") var tag: String?
        @Option(name: .customLong("q"), help: "Text in the code, path or title.") var text: String?
        @Option(help: "At most this many.") var limit = 50
        @Flag(help: "One JSON object per line.") var json = false
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            let query = LinkQuery(domain: domain, campaign: campaign, tag: tag, text: text, limit: max(1, min(limit, 1000)))
            let links = try await storeOptions.withStore { try await $0.links(query) }
            for link in links {
                print(json ? try CommandJSON.encode(link)
                     : "https://\(link.domain)/\(link.code ?? "")  → \(link.path)  \(link.disabled ? "disabled" : "live")  \(link.preview.title ?? "")")
            }
            if links.isEmpty, !json { print("no links") }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one link.")
        @Argument(help: "The link's domain.") var domain: String
        @Argument(help: "The link's code.") var code: String
        @Flag(help: "As JSON.") var json = false
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            guard let link = try await storeOptions.withStore({ try await $0.link(domain: domain, code: code) }) else {
                printError("error: no link '\(code)' on \(domain)")
                throw ExitCodes.negative
            }
            if json {
                print(try CommandJSON.encode(link))
            } else {
                print("https://\(link.domain)/\(code) → \(link.path)")
                print("  state: \(link.disabled ? "disabled" : "live")\(link.expiresAt.map { ", expires \(ISO8601DateFormatter().string(from: $0))" } ?? "")")
                if let title = link.preview.title { print("  title: \(title)") }
                for (name, value) in link.tags.queryItems { print("  \(name): \(value)") }
            }
        }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Disable a link: it answers 410 (or its expired URL) from then on.")
        @Argument(help: "The link's domain.") var domain: String
        @Argument(help: "The link's code.") var code: String
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            try await storeOptions.withStore { store in
                guard var link = try await store.link(domain: domain, code: code) else {
                    throw StoreError.notFound("no link '\(code)' on \(domain)")
                }
                link.disabled = true
                try await store.update(link)
            }
            print("disabled https://\(domain)/\(code)")
        }
    }
}
