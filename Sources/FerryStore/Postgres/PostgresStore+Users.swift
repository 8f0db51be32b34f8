import Foundation
import FerryKit
import PostgresNIO

// MARK: Dashboard users

extension PostgresStore {
    public func save(_ user: UserAccount) async throws(StoreError) {
        let document = try Documents.encode(user)
        try await execute("""
            INSERT INTO users (id, email, document, created_at) VALUES (\(user.id), \(user.email), \(document)::jsonb, \(user.createdAt))
            ON CONFLICT (id) DO UPDATE SET email = excluded.email, document = excluded.document
            """)
    }

    public func user(email: String) async throws(StoreError) -> UserAccount? {
        try Self.documents(UserAccount.self, try await rows("SELECT document::text FROM users WHERE email = \(email.lowercased())")).first
    }

    public func users() async throws(StoreError) -> [UserAccount] {
        try Self.documents(UserAccount.self, try await rows("SELECT document::text FROM users ORDER BY email"))
    }
}
