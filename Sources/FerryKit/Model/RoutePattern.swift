/// A path pattern such as `/u/{userId}` or `/product/{sku}/reviews`: literal segments and
/// named placeholders, each placeholder standing for exactly one non-empty path segment.
///
/// ```swift
/// let pattern = try RoutePattern("/u/{userId}")
/// pattern.match("/u/42")        // ["userId": "42"]
/// pattern.match("/u/42/posts")  // nil
/// ```
public struct RoutePattern: Sendable, Hashable, Codable, CustomStringConvertible, ExpressibleByStringLiteral {
    public enum Segment: Sendable, Hashable {
        case literal(String)
        case placeholder(String)
    }

    public let segments: [Segment]
    public let description: String

    /// Paths Ferry keeps for itself: well-known files and its own endpoints.
    public static let reservedPrefixes = ["/.well-known/", "/_ferry/", "/apple-app-site-association", "/api/", "/sdk/", "/dashboard", "/healthz", "/readyz", "/metrics"]

    public init(_ text: String) throws(ValidationError) {
        guard text.hasPrefix("/") else {
            throw .invalid("pattern", "'\(text)' must start with '/'")
        }
        for prefix in Self.reservedPrefixes where text.hasPrefix(prefix) || text + "/" == prefix {
            throw .invalid("pattern", "'\(text)' is a path Ferry reserves for itself (\(prefix)…)")
        }
        var segments: [Segment] = []
        var names = Set<String>()
        for raw in text.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            if raw.isEmpty {
                // Only the pattern "/" itself has an empty segment.
                guard text == "/" else { throw .invalid("pattern", "'\(text)' has an empty segment ('//' or a trailing '/')") }
                continue
            }
            if raw.hasPrefix("{") {
                guard raw.hasSuffix("}"), raw.count > 2 else {
                    throw .invalid("pattern", "'\(raw)' in '\(text)' is not a placeholder: write {name}")
                }
                let name = String(raw.dropFirst().dropLast())
                guard Self.isPlaceholderName(name) else {
                    throw .invalid("pattern", "'{\(name)}' in '\(text)': a placeholder name uses letters, digits and '_', starting with a letter")
                }
                guard names.insert(name).inserted else {
                    throw .invalid("pattern", "'{\(name)}' appears twice in '\(text)'")
                }
                segments.append(.placeholder(name))
            } else {
                guard raw.utf8.allSatisfy(Self.isLiteralByte) else {
                    throw .invalid("pattern", "'\(raw)' in '\(text)' holds characters a path segment can't (use letters, digits and -._~)")
                }
                segments.append(.literal(String(raw)))
            }
        }
        self.segments = segments
        self.description = text
    }

    public init(stringLiteral value: String) {
        do {
            try self.init(value)
        } catch {
            preconditionFailure("invalid route pattern literal \(value): \(error)")
        }
    }

    public var placeholderNames: [String] {
        segments.compactMap { if case .placeholder(let name) = $0 { name } else { nil } }
    }

    /// The values of the placeholders if `path` matches, percent-decoded; otherwise `nil`.
    public func match(_ path: String) -> [String: String]? {
        var parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        if parts.last == "" { parts = parts.dropLast() }  // `/u/42/` matches `/u/{id}` too
        guard path.hasPrefix("/"), parts.count == segments.count else { return nil }
        var values: [String: String] = [:]
        for (segment, part) in zip(segments, parts) {
            switch segment {
            case .literal(let literal):
                guard part == literal else { return nil }
            case .placeholder(let name):
                guard !part.isEmpty else { return nil }
                values[name] = Escaping.percentDecode(part)
            }
        }
        return values
    }

    /// The path for these values (`/u/{id}` + `["id": "42"]` → `/u/42`), or `nil` if one is missing.
    public func path(with values: [String: String]) -> String? {
        var path = ""
        for segment in segments {
            switch segment {
            case .literal(let literal): path += "/" + literal
            case .placeholder(let name):
                guard let value = values[name], !value.isEmpty else { return nil }
                path += "/" + Escaping.percentEncode(value)
            }
        }
        return path.isEmpty ? "/" : path
    }

    /// The pattern as an AASA / assetlinks path pattern: each placeholder becomes `?*` (one or
    /// more characters).
    public var associationPattern: String {
        guard !segments.isEmpty else { return "/" }
        return segments.map { segment in
            switch segment {
            case .literal(let literal): "/" + literal
            case .placeholder: "/?*"
            }
        }.joined()
    }

    static func isPlaceholderName(_ name: String) -> Bool {
        guard let first = name.utf8.first, URLRules.isLetter(first), name.utf8.count <= 64 else { return false }
        return name.utf8.allSatisfy { URLRules.isAlphanumeric($0) || $0 == 0x5F }
    }

    static func isLiteralByte(_ byte: UInt8) -> Bool {
        Escaping.isUnreserved(byte) || byte == 0x40 || byte == 0x3A || byte == 0x2B || byte == 0x21
            || byte == 0x2C || byte == 0x3B || byte == 0x3D || byte == 0x25
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            try self.init(text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.message)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
