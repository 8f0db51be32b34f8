import FerryStore
import Foundation

/// Dashboard accounts: made by `ferry user create`, signed in with an email and a password.
public enum UserAccounts {
    static let idPrefix = "usr_"

    /// A new account; fails with the reason when the email or password will not do.
    public static func create(email: String, name: String, password: String, in store: some LinkStore,
                              now: Date = Date()) async throws -> UserAccount {
        let email = email.trimmingCharacters(in: .whitespaces).lowercased()
        guard email.utf8.count <= 254, let at = email.firstIndex(of: "@"), at != email.startIndex, email[email.index(after: at)...].contains(".") else {
            throw StoreError.invalid("email: '\(email)' is not an email address")
        }
        if let problem = Passwords.check(password) { throw StoreError.invalid("password: \(problem)") }
        if try await store.user(email: email) != nil { throw StoreError.conflict("\(email) already has an account") }
        let user = UserAccount(id: idPrefix + Tokens.random(bytes: 12), email: email, name: name, passwordHash: try Passwords.hash(password), createdAt: now)
        try await store.save(user)
        return user
    }
}
