import ArgumentParser

@main
struct Ferry: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ferry",
        abstract: "Ferry: self-hosted deep links for iOS, Android and the web.",
        discussion: """
            The link server and its tools. Examples:

              ferry serve --demo
              ferry apikey create --name ci
              ferry link create --domain go.acme.com --path /u/42 --title "Ada's profile"
              ferry store copy --from sqlite:ferry-data/ferry.sqlite --to postgres://…

              ferry ua 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) …'
              ferry aasa match --file apple-app-site-association --url https://go.example.com/u/42
              ferry aasa lint --file apple-app-site-association
              ferry assetlinks check --file assetlinks.json --package com.example.app --fingerprint 14:6D:…
            """,
        subcommands: [ServeCommand.self, APIKeyCommand.self, UserCommand.self, AppCommand.self, DomainCommand.self, LinkCommand.self,
                      StoreCommand.self, UACommand.self, AASACommand.self, AssetLinksCommand.self])
}
