import ArgumentParser
import Foundation
import FerryKit

struct AssetLinksCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "assetlinks",
        abstract: "Check Android assetlinks.json files.",
        subcommands: [Check.self])

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Say whether an assetlinks.json grants an app handle_all_urls (Android App Links).",
            discussion: """
                Exits 0 when the file grants the app, 1 when it does not, 2 when the file or
                an argument cannot be used. Statements the file gets wrong are listed; Android
                skips them too.

                Example:
                  curl -s https://go.example.com/.well-known/assetlinks.json > assetlinks.json
                  ferry assetlinks check --file assetlinks.json --package com.example.app \\
                      --fingerprint 14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5
                  granted: com.example.app may open this site's links (handle_all_urls)
                """)

        @Option(help: "The assetlinks.json file.")
        var file: String

        @Option(help: "The app's package name, e.g. com.example.app.")
        var package: String

        @Option(help: "SHA-256 fingerprint of the signing certificate (colons and case don't matter).")
        var fingerprint: String

        func run() throws {
            guard AndroidAppAsset.isValid(packageName: package) else {
                printError("error: '\(package)' is not a package name (expected e.g. com.example.app)")
                throw ExitCodes.badInput
            }
            guard let normalized = AndroidApp.normalizedFingerprint(fingerprint) else {
                printError("error: '\(fingerprint)' is not a SHA-256 fingerprint (expected 32 hex bytes, e.g. 14:6D:E9:…)")
                throw ExitCodes.badInput
            }
            let body = String(decoding: try readFile(file), as: UTF8.self)
            let answer = AssetLinksGenerator.grantsHandleAllURLs(body, package: package, fingerprint: normalized)
            var output = Output()
            for error in answer.errors { output.line("warning: \(error.message)") }
            output.line(answer.granted
                ? "granted: \(package) may open this site's links (handle_all_urls)"
                : "not granted: no valid statement gives \(package) with certificate \(normalized) handle_all_urls")
            output.flush()
            if !answer.granted { throw ExitCodes.negative }
        }
    }
}
