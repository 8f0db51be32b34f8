import ArgumentParser
import FerryStore
import Foundation

struct StoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Move a deployment between databases.",
        subcommands: [Copy.self])

    struct Copy: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Copy apps, domains, links, API keys, pending deferred intents, visits, installs, opens and statistics.",
            discussion: """
                Running it again copies only what is new and doubles nothing: rows with the same key
                are written over (the source wins); visits and events continue where the last copy
                stopped. To move without losing a click: copy while the old server runs, stop it,
                copy again, then start the new nodes — with the old installation's secret, so that
                visitors are recognised across the move.

                Example:
                  ferry store copy --from sqlite:ferry-data/ferry.sqlite --to postgres://ferry:…@db.internal/ferry
                """)

        @Option(help: "The database to copy from: sqlite:PATH (or a path) or a postgres:// URL.")
        var from: String

        @Option(help: "The database to copy into (created or migrated as needed).")
        var to: String

        func run() async throws {
            if !Stores.isPostgres(from) {
                let path = from.hasPrefix("sqlite:") ? String(from.dropFirst("sqlite:".count)) : from
                guard FileManager.default.fileExists(atPath: path) else {
                    printError("error: there is no database at \(path)")
                    throw ExitCodes.badInput
                }
            }
            let source = try await open(from)
            let target: any CopyableStore
            do {
                target = try await open(to)
            } catch {
                await source.close()
                throw error
            }
            var output = Output()
            do {
                try await StoreCopy.run(from: source, to: target) { report in
                    var line = Output()
                    line.line("\(report.table): \(report.rows) rows")
                    line.flush()
                }
            } catch {
                await source.close()
                await target.close()
                printError("error: \(error.message)")
                throw error.isInvalid ? ExitCodes.negative : ExitCodes.badInput
            }
            await source.close()
            await target.close()
            output.line("copied \(Stores.redacted(from)) → \(Stores.redacted(to))")
            if !Stores.isPostgres(from) {
                let secret = URL(fileURLWithPath: from.hasPrefix("sqlite:") ? String(from.dropFirst("sqlite:".count)) : from)
                    .deletingLastPathComponent().appendingPathComponent("secret").path
                if FileManager.default.fileExists(atPath: secret) {
                    output.line("Start the new nodes with this installation's secret: --secret \"$(cat \(secret))\"")
                }
            }
            output.flush()
        }

        private func open(_ location: String) async throws -> any CopyableStore {
            do {
                guard let store = try await Stores.open(location) as? any CopyableStore else {
                    printError("error: \(Stores.redacted(location)) cannot be copied")
                    throw ExitCodes.badInput
                }
                return store
            } catch let error as StoreError {
                printError("error: \(error.message)")
                throw ExitCodes.badInput
            }
        }
    }
}
