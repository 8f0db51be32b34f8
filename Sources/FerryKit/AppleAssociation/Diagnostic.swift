/// One finding about a file Ferry read: where it is and what is wrong.
public struct Diagnostic: Sendable, Hashable, CustomStringConvertible {
    public enum Severity: String, Sendable, Hashable {
        case error, warning
    }

    public var severity: Severity
    /// Where in the file, as a JSON path: `applinks.details[0].appIDs[1]`.
    public var path: String
    public var message: String
    /// The file cannot be read at all (not JSON, not an object).
    public var isFatal: Bool

    public init(_ severity: Severity, _ path: String, _ message: String, fatal: Bool = false) {
        self.severity = severity
        self.path = path
        self.message = message
        self.isFatal = fatal
    }

    public var description: String {
        path.isEmpty ? "\(severity): \(message)" : "\(severity): \(path): \(message)"
    }
}
