/// Why a value given to Ferry (an app, a route, a link) was refused.
///
/// `field` names the offending field the way the admin API and the CLI spell it
/// (`ios.appID`, `routes[2].webURL`), `message` says what is wrong in a sentence a
/// person can act on.
///
/// ```swift
/// do { try app.validate() } catch let error as ValidationError {
///     print(error.field, error.message)   // "ios.appID", "'com.example' is not TEAMID.bundle…"
/// }
/// ```
public struct ValidationError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case invalid
        case missing
        case unsafe
    }

    private let code: Code
    public let field: String
    public let message: String

    private init(_ code: Code, field: String, message: String) {
        self.code = code
        self.field = field
        self.message = message
    }

    /// The value is there but malformed.
    public static func invalid(_ field: String, _ message: String) -> ValidationError {
        ValidationError(.invalid, field: field, message: message)
    }

    /// A required value is absent or empty.
    public static func missing(_ field: String, _ message: String) -> ValidationError {
        ValidationError(.missing, field: field, message: message)
    }

    /// The value is well-formed but would be dangerous to serve (a `javascript:` URL, say).
    public static func unsafe(_ field: String, _ message: String) -> ValidationError {
        ValidationError(.unsafe, field: field, message: message)
    }

    public var isMissing: Bool { code == .missing }
    public var isUnsafe: Bool { code == .unsafe }

    public var description: String { "\(field): \(message)" }

    /// The same error, reported one level deeper (`routes[1]` + `webURL` → `routes[1].webURL`).
    func nested(under prefix: String) -> ValidationError {
        ValidationError(code, field: field.isEmpty ? prefix : "\(prefix).\(field)", message: message)
    }
}
