import Foundation

/// An `apple-app-site-association` file: the legacy format (`paths` with `NOT`, iOS 9–12) and
/// the current one (`components`, iOS 13+), plus `webcredentials`, `appclips` and
/// `activitycontinuation`.
///
/// Decoding is lenient the way iOS is (the old details-as-dictionary form, `appID` next to
/// `appIDs`); ``AASAReader`` explains what it had to skip. Encoding writes what Apple documents.
///
/// ```swift
/// let file = try JSONDecoder().decode(AppleAppSiteAssociation.self, from: data)
/// AASAMatcher(file).match("https://go.acme.com/u/42", appID: "ABCDE12345.com.acme.app").outcome  // .match
/// ```
public struct AppleAppSiteAssociation: Sendable, Hashable, Codable {
    public var applinks: AppLinks?
    public var webcredentials: AppList?
    public var appclips: AppList?
    public var activitycontinuation: AppList?

    public init(applinks: AppLinks? = nil, webcredentials: AppList? = nil, appclips: AppList? = nil, activitycontinuation: AppList? = nil) {
        self.applinks = applinks
        self.webcredentials = webcredentials
        self.appclips = appclips
        self.activitycontinuation = activitycontinuation
    }

    public struct AppLinks: Sendable, Hashable, Codable {
        /// Legacy: must be present and empty in iOS 9–12 files.
        public var apps: [String]?
        public var defaults: ComponentDefaults?
        public var substitutionVariables: [String: [String]]?
        public var details: [Detail]

        public init(apps: [String]? = nil, defaults: ComponentDefaults? = nil, substitutionVariables: [String: [String]]? = nil, details: [Detail]) {
            self.apps = apps
            self.defaults = defaults
            self.substitutionVariables = substitutionVariables
            self.details = details
        }
    }

    public struct Detail: Sendable, Hashable, Codable {
        public var appIDs: [String]?
        /// Legacy single App ID; ignored when `appIDs` is present.
        public var appID: String?
        /// Legacy path patterns; ignored when `components` is present.
        public var paths: [String]?
        public var components: [Component]?
        public var defaults: ComponentDefaults?

        public init(appIDs: [String]? = nil, appID: String? = nil, paths: [String]? = nil, components: [Component]? = nil, defaults: ComponentDefaults? = nil) {
            self.appIDs = appIDs
            self.appID = appID
            self.paths = paths
            self.components = components
            self.defaults = defaults
        }

        /// The App IDs this detail applies to, as iOS reads them.
        public var effectiveAppIDs: [String] {
            appIDs ?? appID.map { [$0] } ?? []
        }
    }

    public struct Component: Sendable, Hashable, Codable {
        public var path: String?
        public var query: QueryPattern?
        public var fragment: String?
        public var exclude: Bool?
        public var caseSensitive: Bool?
        public var percentEncoded: Bool?
        public var comment: String?

        public init(path: String? = nil, query: QueryPattern? = nil, fragment: String? = nil, exclude: Bool? = nil,
                    caseSensitive: Bool? = nil, percentEncoded: Bool? = nil, comment: String? = nil) {
            self.path = path
            self.query = query
            self.fragment = fragment
            self.exclude = exclude
            self.caseSensitive = caseSensitive
            self.percentEncoded = percentEncoded
            self.comment = comment
        }

        enum CodingKeys: String, CodingKey {
            case path = "/"
            case query = "?"
            case fragment = "#"
            case exclude, caseSensitive, percentEncoded, comment
        }
    }

    /// `?` of a component: a pattern for the whole query, or one pattern per query item name.
    public enum QueryPattern: Sendable, Hashable, Codable {
        case string(String)
        case items([String: String])

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self) {
                self = .string(text)
            } else {
                self = .items(try container.decode([String: String].self))
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .string(let text): try container.encode(text)
            case .items(let items): try container.encode(items)
            }
        }
    }

    public struct ComponentDefaults: Sendable, Hashable, Codable {
        public var caseSensitive: Bool?
        public var percentEncoded: Bool?

        public init(caseSensitive: Bool? = nil, percentEncoded: Bool? = nil) {
            self.caseSensitive = caseSensitive
            self.percentEncoded = percentEncoded
        }
    }

    public struct AppList: Sendable, Hashable, Codable {
        public var apps: [String]

        public init(apps: [String]) {
            self.apps = apps
        }
    }

    public init(from decoder: any Decoder) throws {
        let value = try JSONValue(from: decoder)
        let result = AASAReader.read(value)
        if let error = result.diagnostics.first(where: { $0.severity == .error && $0.isFatal }) {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
        self = result.file
    }

    /// The file as Apple's CDN should receive it: compact, keys sorted, slashes unescaped.
    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding plain strings, arrays and booleans cannot fail.
        return (try? encoder.encode(self)) ?? Data("{}".utf8)
    }
}
