import ArgumentParser
import Foundation
import FerryKit

struct AASACommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "aasa",
        abstract: "Check apple-app-site-association files: would iOS open this URL in this app? Is the file well-formed?",
        subcommands: [Match.self, Lint.self])

    struct Match: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Match a URL against an apple-app-site-association file with Apple's rules.",
            discussion: """
                Prints, for each App ID in the file (or the one given with --app), `match`,
                `blocked` or `none`, and the rule that decided. Exits 0 whenever the file could
                be read, whatever the answer; 2 when it could not.

                Example:
                  curl -s https://go.example.com/.well-known/apple-app-site-association > aasa.json
                  ferry aasa match --file aasa.json --url 'https://go.example.com/u/42?ref=mail'
                  ABCDE12345.com.example.app  match  applinks.details[0].components[1] {"/":"/u/?*"}
                """)

        @Option(help: "The apple-app-site-association file.")
        var file: String

        @Option(help: "The URL (or just its path, query and fragment) to match.")
        var url: String

        @Option(help: "Only this App ID (TEAMID.bundle).")
        var app: String?

        @Flag(help: "One JSON object per App ID: appID, outcome, rule.")
        var json = false

        func run() throws {
            let parsed = try readAASA(file)
            let matcher = AASAMatcher(parsed.file)
            let results = app.map { [($0, matcher.match(url, appID: $0))] } ?? matcher.matchAll(url)
            var output = Output()
            if results.isEmpty, !json {
                output.line("no App ID in the file: no URL opens any app")
            }
            for (appID, result) in results {
                if json {
                    let rule = result.rule.map(jsonString) ?? "null"
                    output.line(#"{"appID":\#(jsonString(appID)),"outcome":"\#(result.outcome.rawValue)","rule":\#(rule)}"#)
                } else {
                    output.line("\(appID)  \(result.outcome.rawValue)  \(result.rule ?? "no rule matched")")
                }
            }
            output.flush()
        }
    }

    struct Lint: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Report errors and warnings in an apple-app-site-association file.",
            discussion: """
                Checks the size (Apple reads at most 128 KB), mixed legacy and current formats,
                malformed App IDs, wrong types and unknown keys. Exits 1 when there are errors,
                0 when there are only warnings or none, 2 when the file is not a JSON object.

                Example:
                  ferry aasa lint --file apple-app-site-association
                  error: applinks.details[0].appIDs[0]: 'com.example' is not an App ID: …
                  warning: applinks.details[0].components[2]: unknown key 'exclud' is ignored (did you mean 'exclude'?)
                """)

        @Option(help: "The apple-app-site-association file.")
        var file: String

        func run() throws {
            let parsed = try readAASA(file)
            var output = Output()
            for diagnostic in parsed.diagnostics { output.line(diagnostic.description) }
            let errors = parsed.errors.count
            let warnings = parsed.warnings.count
            output.line(errors + warnings == 0 ? "\(file): no problems found" : "\(file): \(errors) error(s), \(warnings) warning(s)")
            output.flush()
            if errors > 0 { throw ExitCodes.negative }
        }
    }
}

/// Reads and parses an AASA file, or fails with the reason and exit status 2.
func readAASA(_ file: String) throws -> AASAReader.Result {
    do {
        return try AASAReader.parse(try readFile(file))
    } catch let error as AASAReadError {
        printError("error: \(file): \(error.message)")
        throw ExitCodes.badInput
    }
}
