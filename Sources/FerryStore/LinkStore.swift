import FerryKit

/// Where Ferry keeps apps, domains and links. The server reads through it only on a cache
/// miss; every implementation (SQLite, PostgreSQL, memory) passes the same contract tests.
public protocol LinkStore: Sendable {
    func app(id: String) async throws(StoreError) -> App?
    /// The domain whose host *or alternate host* is `host`.
    func domain(host: String) async throws(StoreError) -> Domain?
    func link(domain: String, code: String) async throws(StoreError) -> Link?

    /// Creates or replaces an app.
    func save(_ app: App) async throws(StoreError)
    /// Creates or replaces a domain; fails with `.conflict` when another domain already
    /// answers for one of its hosts.
    func save(_ domain: Domain) async throws(StoreError)
    /// Creates a link; fails with `.conflict` when its code is taken on its domain.
    func insert(_ link: Link) async throws(StoreError)
}

/// Why a store refused an operation.
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case conflict, notFound, invalid, unavailable
    }

    private let code: Code
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// Something with the same identity exists (a link code, a host).
    public static func conflict(_ message: String) -> StoreError { StoreError(.conflict, message) }
    /// What the operation refers to does not exist.
    public static func notFound(_ message: String) -> StoreError { StoreError(.notFound, message) }
    /// The value breaks a rule of the model (see `ValidationError`).
    public static func invalid(_ message: String) -> StoreError { StoreError(.invalid, message) }
    /// The database could not be reached.
    public static func unavailable(_ message: String) -> StoreError { StoreError(.unavailable, message) }

    public var isConflict: Bool { code == .conflict }
    public var isNotFound: Bool { code == .notFound }
    public var isInvalid: Bool { code == .invalid }
    public var isUnavailable: Bool { code == .unavailable }
    public var description: String { message }
}
