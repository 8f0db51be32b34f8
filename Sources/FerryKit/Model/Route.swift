import Foundation

/// One entry of an app's route table. The same table drives the AASA file, the assetlinks
/// file, web fallbacks and the SDK's in-app router.
///
/// ```swift
/// Route(pattern: "/u/{userId}", webURL: "https://acme.com/users/{userId}",
///       customScheme: "acme://user/{userId}", minimumVersion: .init(ios: Version(3, 2)))
/// ```
public struct Route: Sendable, Hashable, Codable {
    public var pattern: RoutePattern
    /// The web page for this route; without it, the app's fallback URL with the same path.
    public var webURL: URLTemplate?
    /// The same screen through the app's URL scheme (for `al:*` tags and old app versions).
    public var customScheme: URLTemplate?
    /// The oldest app versions that can show this route.
    public var minimumVersion: MinimumAppVersions
    /// A note for people reading the route table; also the AASA component's `comment`.
    public var name: String?

    public init(
        pattern: RoutePattern, webURL: URLTemplate? = nil, customScheme: URLTemplate? = nil,
        minimumVersion: MinimumAppVersions = MinimumAppVersions(), name: String? = nil
    ) {
        self.pattern = pattern
        self.webURL = webURL
        self.customScheme = customScheme
        self.minimumVersion = minimumVersion
        self.name = name
    }

    public func validate() throws(ValidationError) {
        let names = pattern.placeholderNames
        try webURL?.validate(field: "webURL", known: names, web: true)
        try customScheme?.validate(field: "customScheme", known: names, web: false)
        if let name, name.count > 200 { throw .invalid("name", "the name is longer than 200 characters") }
    }

    /// The web page for a path this route matched.
    public func webURL(parameters: [String: String], app: App, path: String) -> URL {
        if let url = webURL?.fill(parameters) { return url }
        return app.web.fallbackURL.appendingPathComponent(String(path.drop { $0 == "/" }))
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        pattern = try container.decode(RoutePattern.self, forKey: .pattern)
        webURL = try container.decodeIfPresent(URLTemplate.self, forKey: .webURL)
        customScheme = try container.decodeIfPresent(URLTemplate.self, forKey: .customScheme)
        minimumVersion = try container.decodeIfPresent(MinimumAppVersions.self, forKey: .minimumVersion) ?? MinimumAppVersions()
        name = try container.decodeIfPresent(String.self, forKey: .name)
    }
}

/// The oldest app version, per platform, that can open a route.
public struct MinimumAppVersions: Sendable, Hashable, Codable {
    public var ios: Version?
    public var android: Version?

    public init(ios: Version? = nil, android: Version? = nil) {
        self.ios = ios
        self.android = android
    }

    /// Whether an app of `version` on `platform` can show the route.
    public func allows(_ version: Version, on platform: Platform) -> Bool {
        switch platform {
        case .iOS, .iPadOS: ios.map { version >= $0 } ?? true
        case .android: android.map { version >= $0 } ?? true
        default: true
        }
    }
}
