import ArgumentParser
import FerryServer
import FerryStore
import Foundation

struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Manage dashboard accounts (passwords kept only as scrypt hashes).",
        discussion: """
            The password is read from standard input (one line), so it stays out of the shell's
            history and the process list.

            Examples:
              printf '%s\\n' "$PASSWORD" | ferry user create --email ada@acme.example --name Ada
              ferry user list
              ferry user disable ada@acme.example
            """,
        subcommands: [Create.self, List.self, Disable.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an account; the password comes from standard input.")
        @Option(help: "The email address to sign in with.") var email: String
        @Option(help: "The person's name.") var name: String = ""
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            guard let password = readLine(strippingNewline: true), !password.isEmpty else {
                printError("error: give the password on standard input (one line)")
                throw ExitCodes.badInput
            }
            let user = try await storeOptions.withStore { store in
                try await UserAccounts.create(email: email, name: name, password: password, in: store)
            }
            print("created \(user.email) (\(user.id)); sign in at /dashboard")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List accounts.")
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            let users = try await storeOptions.withStore { try await $0.users() }
            for user in users { print("\(user.email)  \(user.disabled ? "disabled" : "active  ")  \(user.name)") }
            if users.isEmpty { print("no accounts") }
        }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Disable an account (its sessions end at once).")
        @Argument(help: "The account's email.") var email: String
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            try await storeOptions.withStore { store in
                guard var user = try await store.user(email: email) else { throw StoreError.notFound("no account for \(email)") }
                user.disabled = true
                try await store.save(user)
            }
            print("disabled \(email)")
        }
    }
}
