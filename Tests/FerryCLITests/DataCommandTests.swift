import Foundation
import Testing

/// `ferry app|domain|link|apikey` on a database, as a self-hoster scripts them.
@Suite struct DataCommandTests {
    let runner = FerryCommandTests()

    func database() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("ferry-cli-\(UUID().uuidString)/ferry.sqlite").path
    }

    static let app = #"{"id":"acme","name":"Acme","ios":{"teamID":"ABCDE12345","bundleID":"com.acme.app","appStoreID":"123"},"web":{"fallbackURL":"https://acme.example"},"routes":[{"pattern":"/u/{id}","webURL":"https://acme.example/users/{id}"}]}"#

    @Test func scriptingAppsDomainsAndLinks() throws {
        let db = database()
        let appFile = try runner.temporaryFile(Self.app)
        let saved = try runner.ferry("app", "create", "--file", appFile, "--database", db).output
        #expect(saved.hasPrefix("saved app acme (SDK key fy_sdk_"), "a new app gets an SDK key")
        let key = try #require(saved.firstMatch(of: /fy_sdk_[A-Za-z0-9_-]+/)?.0)
        #expect(try runner.ferry("app", "create", "--file", appFile, "--database", db).output.contains(key), "replacing it keeps the key")
        #expect(try runner.ferry("domain", "add", "go.acme.example", "--app", "acme", "--alternate", "open.acme.example", "--database", db).status == 0)
        let created = try runner.ferry("link", "create", "--domain", "go.acme.example", "--path", "/u/42", "--code", "ada",
                                       "--title", "Ada", "--campaign", "spring", "--database", db)
        #expect(created.status == 0)
        #expect(created.output == "created https://go.acme.example/ada → /u/42\n")
        let generated = try runner.ferry("link", "create", "--domain", "go.acme.example", "--path", "/u/7", "--json", "--database", db)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(generated.output.utf8)) as? [String: Any])
        #expect((object["code"] as? String)?.count == 8)

        let list = try runner.ferry("link", "list", "--campaign", "spring", "--database", db)
        #expect(list.output.contains("https://go.acme.example/ada") && !list.output.contains("/u/7"))
        #expect(try runner.ferry("app", "show", "acme", "--database", db).output.contains("domain go.acme.example (alternate open.acme.example)"))
        #expect(try runner.ferry("app", "list", "--json", "--database", db).output.contains(#""id":"acme""#))
        #expect(try runner.ferry("domain", "list", "--database", db).output.contains("go.acme.example  app=acme"))

        #expect(try runner.ferry("link", "disable", "go.acme.example", "ada", "--database", db).status == 0)
        #expect(try runner.ferry("link", "show", "go.acme.example", "ada", "--database", db).output.contains("state: disabled"))
    }

    @Test func aDeploymentIsCopiedToAnotherDatabaseOnceOver() throws {
        let source = database()
        let target = database()
        _ = try runner.ferry("app", "create", "--file", try runner.temporaryFile(Self.app), "--database", source)
        _ = try runner.ferry("domain", "add", "go.acme.example", "--app", "acme", "--database", source)
        _ = try runner.ferry("link", "create", "--domain", "go.acme.example", "--path", "/u/42", "--code", "ada", "--database", source)
        let first = try runner.ferry("store", "copy", "--from", "sqlite:" + source, "--to", target)
        #expect(first.status == 0, "\(first.error)")
        #expect(first.output.contains("links: 1 rows") && first.output.contains("copied sqlite:\(source) → \(target)"))
        #expect(try runner.ferry("link", "show", "go.acme.example", "ada", "--database", target).output.contains("/u/42"))
        let second = try runner.ferry("store", "copy", "--from", source, "--to", target)
        #expect(second.status == 0 && second.output.contains("visits: 0 rows"))
        #expect(try runner.ferry("link", "list", "--json", "--database", target).output.components(separatedBy: #""code":"ada""#).count == 2,
                "one link, not two")

        let missing = try runner.ferry("store", "copy", "--from", source + ".nope", "--to", target)
        #expect(missing.status == 2 && missing.error.contains("there is no database"))
        let itself = try runner.ferry("store", "copy", "--from", source, "--to", source)
        #expect(itself.status == 1 && itself.error.contains("the same database"))
    }

    @Test func dashboardAccounts() throws {
        let db = database()
        let created = try runner.ferry("user", "create", "--email", "ada@acme.example", "--name", "Ada", "--database", db,
                                       input: "correct horse battery\n")
        #expect(created.status == 0 && created.output.hasPrefix("created ada@acme.example (usr_"), "\(created.error)")
        let short = try runner.ferry("user", "create", "--email", "bob@acme.example", "--database", db, input: "short\n")
        #expect(short.status == 1 && short.error.contains("at least 12 characters"))
        let again = try runner.ferry("user", "create", "--email", "ADA@acme.example", "--database", db, input: "another long password\n")
        #expect(again.status == 1 && again.error.contains("already has an account"))
        #expect(try runner.ferry("user", "create", "--email", "not-an-email", "--database", db, input: "correct horse battery\n").status == 1)
        #expect(try runner.ferry("user", "create", "--email", "eve@acme.example", "--database", db, input: "").status == 2)
        #expect(try runner.ferry("user", "disable", "ada@acme.example", "--database", db).status == 0)
        #expect(try runner.ferry("user", "list", "--database", db).output == "ada@acme.example  disabled  Ada\n")
        #expect(try runner.ferry("user", "disable", "nobody@acme.example", "--database", db).status == 1)
    }

    @Test func refusalsAreMessagesWithAnExitStatus() throws {
        let db = database()
        let appFile = try runner.temporaryFile(Self.app)
        _ = try runner.ferry("app", "create", "--file", appFile, "--database", db)
        _ = try runner.ferry("domain", "add", "go.acme.example", "--app", "acme", "--database", db)
        _ = try runner.ferry("link", "create", "--domain", "go.acme.example", "--path", "/u/1", "--code", "taken", "--database", db)

        let clash = try runner.ferry("link", "create", "--domain", "go.acme.example", "--path", "/u/2", "--code", "taken", "--database", db)
        #expect(clash.status == 1 && clash.error.contains("already taken"))
        let offRoute = try runner.ferry("link", "create", "--domain", "go.acme.example", "--path", "/nowhere", "--database", db)
        #expect(offRoute.status == 1 && offRoute.error.contains("path"))
        let unsafe = try runner.ferry("link", "create", "--domain", "go.acme.example", "--path", "/u/3", "--desktop-url", "javascript:alert(1)", "--database", db)
        #expect(unsafe.status == 1 && unsafe.error.contains("desktopURL"))
        let badApp = try runner.ferry("app", "create", "--file", try runner.temporaryFile(#"{"id":"x","name":"X","ios":{"teamID":"bad","bundleID":"b"},"web":{"fallbackURL":"https://x.example"}}"#), "--database", db)
        #expect(badApp.status == 1 && badApp.error.contains("ios.appID"))
        #expect(try runner.ferry("app", "create", "--file", try runner.temporaryFile("{not json"), "--database", db).status == 2)
        #expect(try runner.ferry("domain", "add", "x.example", "--app", "missing", "--database", db).status == 1)
        #expect(try runner.ferry("link", "show", "go.acme.example", "nope", "--database", db).status == 1)
        #expect(try runner.ferry("link", "disable", "go.acme.example", "nope", "--database", db).status == 1)
        // Nothing of the refused writes is there.
        #expect(!(try runner.ferry("link", "list", "--database", db).output.contains("/u/2")))
    }

    @Test func serveRefusesBadSettingsWithAMessage() throws {
        let badURL = try runner.ferry("serve", "--public-url", "javascript:alert(1)", "--database", database())
        #expect(badURL.status == 2 && badURL.error.contains("public-url"))
        let badLevel = try runner.ferry("serve", "--log-level", "loud", "--database", database())
        #expect(badLevel.status == 2 && badLevel.error.contains("log level"))
        let badPort = try runner.ferry("serve", "--port", "70000", "--database", database())
        #expect(badPort.status == 2 && badPort.error.contains("port"))
        let badRate = try runner.ferry("serve", "--sdk-rate-per-ip", "0", "--database", database())
        #expect(badRate.status == 2 && badRate.error.contains("SDK rate limits"))
    }

    @Test func apiKeysAreListedWithoutSecretsAndRevoked() throws {
        let db = database()
        let created = try runner.ferry("apikey", "create", "--name", "ci", "--database", db)
        #expect(created.status == 0)
        let parts = created.output.split(separator: " ", omittingEmptySubsequences: true).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        let (id, secret) = (try #require(parts.first), try #require(parts.last))
        #expect(secret.hasPrefix("fy_"))
        let list = try runner.ferry("apikey", "list", "--database", db)
        #expect(list.output.contains(id) && list.output.contains("active") && !list.output.contains(secret))
        #expect(try runner.ferry("apikey", "revoke", id, "--database", db).status == 0)
        #expect(try runner.ferry("apikey", "list", "--database", db).output.contains("revoked"))
        #expect(try runner.ferry("apikey", "revoke", "key_nope", "--database", db).status == 1)
    }
}
