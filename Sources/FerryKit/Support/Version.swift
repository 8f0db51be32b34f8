/// A dotted version number such as `17.4.1`, compared numerically part by part.
///
/// ```swift
/// Version("17.4")! < Version("17.10")!   // true
/// Version("10_15_7")                     // 10.15.7 — user agents write iOS and macOS versions with underscores
/// ```
public struct Version: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public var components: [Int]

    public init(_ components: [Int]) {
        self.components = components.isEmpty ? [0] : components
    }

    public init(_ major: Int, _ minor: Int = 0, _ patch: Int = 0) {
        self.init([major, minor, patch])
    }

    /// Parses `1`, `1.2`, `1.2.3` or `1_2_3`; anything else is `nil`.
    public init?(_ text: some StringProtocol) {
        var parts: [Int] = []
        var current = 0
        var digits = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                guard digits < 9 else { return nil }
                current = current * 10 + Int(byte - UInt8(ascii: "0"))
                digits += 1
            case UInt8(ascii: "."), UInt8(ascii: "_"):
                guard digits > 0 else { return nil }
                parts.append(current)
                current = 0
                digits = 0
            default:
                return nil
            }
        }
        guard digits > 0, parts.count < 8 else { return nil }
        parts.append(current)
        self.init(parts)
    }

    public var major: Int { components[0] }
    public var minor: Int { components.count > 1 ? components[1] : 0 }
    public var patch: Int { components.count > 2 ? components[2] : 0 }

    public var description: String {
        components.map(String.init).joined(separator: ".")
    }

    public static func < (lhs: Version, rhs: Version) -> Bool {
        let count = max(lhs.components.count, rhs.components.count)
        for index in 0..<count {
            let left = index < lhs.components.count ? lhs.components[index] : 0
            let right = index < rhs.components.count ? rhs.components[index] : 0
            if left != right { return left < right }
        }
        return false
    }

    public static func == (lhs: Version, rhs: Version) -> Bool {
        !(lhs < rhs) && !(rhs < lhs)
    }

    public func hash(into hasher: inout Hasher) {
        var trimmed = components
        while trimmed.count > 1, trimmed.last == 0 { trimmed.removeLast() }
        hasher.combine(trimmed)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let version = Version(text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "'\(text)' is not a version such as 1.2.3")
        }
        self = version
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
