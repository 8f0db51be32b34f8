import Foundation

/// A URL with `{name}` placeholders filled from a route's parameters:
/// `https://acme.com/users/{userId}` or `acme://user/{userId}`.
///
/// Values are percent-encoded as they are filled in, so a parameter can never add a path
/// segment, a query or another host.
public struct URLTemplate: Sendable, Hashable, Codable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let description: String

    public init(_ text: String) {
        description = text
    }

    public init(stringLiteral value: String) {
        description = value
    }

    public init(from decoder: any Decoder) throws {
        description = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// Placeholder names in order of appearance.
    public var placeholderNames: [String] {
        var names: [String] = []
        var rest = Substring(description)
        while let open = rest.firstIndex(of: "{") {
            guard let close = rest[open...].firstIndex(of: "}") else { break }
            names.append(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return names
    }

    /// The URL with every placeholder replaced by its percent-encoded value; `nil` if a value
    /// is missing or the result is not a URL.
    public func fill(_ values: [String: String]) -> URL? {
        var result = ""
        var rest = Substring(description)
        while let open = rest.firstIndex(of: "{") {
            guard let close = rest[open...].firstIndex(of: "}") else { break }
            result += rest[..<open]
            let name = String(rest[rest.index(after: open)..<close])
            guard let value = values[name] else { return nil }
            result += Escaping.percentEncode(value)
            rest = rest[rest.index(after: close)...]
        }
        result += rest
        return URL(string: result)
    }

    /// Checks the template against the placeholders a route defines. `web` templates must be
    /// http(s) URLs; others must use a custom scheme.
    func validate(field: String, known: [String], web: Bool) throws(ValidationError) {
        for name in placeholderNames where !known.contains(name) {
            let defined = known.isEmpty ? "the pattern defines none" : "the pattern defines " + known.map { "{\($0)}" }.joined(separator: ", ")
            throw .invalid(field, "unknown placeholder {\(name)} in '\(description)'; \(defined)")
        }
        guard let sample = fill(Dictionary(uniqueKeysWithValues: known.map { ($0, "x") })), let scheme = sample.scheme else {
            throw .invalid(field, "'\(description)' is not a URL once its placeholders are filled in")
        }
        if web {
            try URLRules.checkWebURL(sample, field: field)
            // Values are encoded, but a placeholder in the authority would still let a link
            // choose the host: an open redirect.
            if let schemeEnd = description.range(of: "://") {
                let authority = description[schemeEnd.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
                if authority.contains("{") {
                    throw .unsafe(field, "a placeholder may not choose the host of '\(description)'")
                }
            }
        } else {
            try URLRules.checkCustomScheme(scheme, field: field)
        }
    }
}
