import Foundation
import FerryKit
import SQLiteNIO

// MARK: Dashboard users

extension SQLiteStore {
    public func save(_ user: UserAccount) async throws(StoreError) {
        let document = try Documents.encode(user)
        try await run {
            _ = try await self.connection.query("""
                INSERT INTO users (id, email, document, created_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET email = excluded.email, document = excluded.document
                """, [.text(user.id), .text(user.email), .text(document), .float(user.createdAt.timeIntervalSince1970)])
        }
    }

    public func user(email: String) async throws(StoreError) -> UserAccount? {
        try await run {
            try await self.connection.query("SELECT document FROM users WHERE email = ?", [.text(email.lowercased())])
                .first.map { try Documents.decode(UserAccount.self, $0) }
        }
    }

    public func users() async throws(StoreError) -> [UserAccount] {
        try await run {
            try await self.connection.query("SELECT document FROM users ORDER BY email").map { try Documents.decode(UserAccount.self, $0) }
        }
    }
}
