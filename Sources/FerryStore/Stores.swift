import FerryKit
import Foundation

/// Opens the store a deployment names: a `postgres://` URL, or a SQLite file path
/// (`sqlite:PATH` also reads as a path).
public enum Stores {
    public static func open(_ location: String, postgres settings: PostgresStore.Settings = .init()) async throws(StoreError) -> any LinkStore {
        if isPostgres(location) {
            return try await PostgresStore.open(url: location, settings: settings)
        }
        return try await SQLiteStore.open(path: location.hasPrefix("sqlite:") ? String(location.dropFirst("sqlite:".count)) : location)
    }

    public static func isPostgres(_ location: String) -> Bool {
        PostgresStore.isPostgresURL(location)
    }

    /// The location with any password hidden, for messages and logs.
    public static func redacted(_ location: String) -> String {
        isPostgres(location) ? PostgresStore.redacted(location) : location
    }
}
