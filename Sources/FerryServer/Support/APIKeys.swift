import Crypto
import FerryKit
import FerryStore
import Foundation

/// Admin API keys: `fy_` and 32 random bytes, shown once, stored only as their SHA-256.
public enum APIKeys {
    public static func hash(_ secret: String) -> String {
        Hex.encode(SHA256.hash(data: Data(secret.utf8)))
    }

    /// Creates a key in the store and returns its secret, which is never stored.
    public static func create(name: String, in store: some LinkStore, now: Date = Date()) async throws(StoreError) -> (record: APIKeyRecord, secret: String) {
        let secret = "fy_" + Tokens.random(bytes: 32)
        let record = APIKeyRecord(id: "key_" + Tokens.random(bytes: 6), name: name, hash: hash(secret), createdAt: now)
        try await store.insert(record)
        return (record, secret)
    }

    /// The active key a presented secret belongs to, if any.
    public static func verify(_ secret: String, in store: some LinkStore) async throws(StoreError) -> APIKeyRecord? {
        guard secret.hasPrefix("fy_"), secret.utf8.count < 200, let record = try await store.apiKey(hash: hash(secret)), record.isActive else { return nil }
        return record
    }
}

/// Public SDK keys of apps: `fy_sdk_` and 24 URL-safe random characters.
public enum SDKKeys {
    public static func generate() -> String {
        App.sdkKeyPrefix + Tokens.random(bytes: 18)
    }
}
