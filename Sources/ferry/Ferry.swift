import ArgumentParser

@main
struct Ferry: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ferry",
        abstract: "Ferry: self-hosted deep links for iOS, Android and the web.",
        discussion: """
            Offline tools that need no server and no database. Examples:

              ferry ua 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) …'
              ferry aasa match --file apple-app-site-association --url https://go.example.com/u/42
              ferry aasa lint --file apple-app-site-association
              ferry assetlinks check --file assetlinks.json --package com.example.app --fingerprint 14:6D:…
            """,
        subcommands: [UACommand.self, AASACommand.self, AssetLinksCommand.self])
}
