import Foundation

/// A short link (`go.acme.com/x7Kp2`) or a route URL (`go.acme.com/u/42?ref=mail`): where it
/// points inside the app, how it behaves per platform, how it looks when shared, and the tags
/// that attribute its visits.
///
/// ```swift
/// var link = Link(code: "spring", domain: "go.acme.com", path: "/p/sku-123")
/// link.preview = PreviewMetadata(title: "Spring sale", imageURL: URL(string: "https://acme.com/spring.png"))
/// link.tags.campaign = "spring-2026"
/// try link.validate(for: app)
/// ```
public struct Link: Sendable, Hashable, Codable {
    /// The short code; `nil` for a route URL that has no stored record.
    public var code: String?
    public var domain: String
    /// The path inside the app, one of its routes with values (`/u/42`).
    public var path: String
    /// Extra parameters for the app, passed along with the path.
    public var parameters: [String: String]
    public var ios: PlatformBehaviour
    public var android: PlatformBehaviour
    /// Where desktops go; without it, the web page of the path.
    public var desktopURL: URL?
    public var previewPage: PreviewPageMode
    public var preview: PreviewMetadata
    public var tags: LinkTags
    public var expiresAt: Date?
    public var disabled: Bool
    /// Where an expired or disabled link goes instead of the "link expired" page.
    public var expiredURL: URL?
    /// Force one Android store for this link (it must be one the app lists).
    public var androidStore: AndroidStore?

    public init(
        code: String?, domain: String, path: String, parameters: [String: String] = [:],
        ios: PlatformBehaviour = PlatformBehaviour(), android: PlatformBehaviour = PlatformBehaviour(),
        desktopURL: URL? = nil, previewPage: PreviewPageMode = .auto, preview: PreviewMetadata = PreviewMetadata(),
        tags: LinkTags = LinkTags(), expiresAt: Date? = nil, disabled: Bool = false, expiredURL: URL? = nil,
        androidStore: AndroidStore? = nil
    ) {
        self.code = code
        self.domain = domain.lowercased()
        self.path = path
        self.parameters = parameters
        self.ios = ios
        self.android = android
        self.desktopURL = desktopURL
        self.previewPage = previewPage
        self.preview = preview
        self.tags = tags
        self.expiresAt = expiresAt
        self.disabled = disabled
        self.expiredURL = expiredURL
        self.androidStore = androidStore
    }

    /// The link a route URL stands for: its path, and its query split into tags (`utm_*`,
    /// `ref`, `campaign`, `channel`) and parameters for the app.
    public static func routeLink(domain: String, path: String, query: [(name: String, value: String)]) -> Link {
        var link = Link(code: nil, domain: domain, path: path)
        for (name, value) in query where !link.tags.set(name, value) && !name.hasPrefix(LinkRequest.reservedQueryPrefix) {
            link.parameters[name] = value
        }
        return link
    }

    public func isLive(at date: Date) -> Bool {
        !disabled && (expiresAt.map { $0 > date } ?? true)
    }

    public func validate(for app: App? = nil) throws(ValidationError) {
        if let code, let problem = Self.problem(withCode: code) { throw .invalid("code", problem) }
        if let problem = URLRules.problem(withHost: domain) { throw .invalid("domain", problem) }
        guard path.hasPrefix("/"), !path.hasPrefix("//"), path.utf8.count <= 2048,
              path.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F && $0 != 0x3F && $0 != 0x23 }) else {
            throw .invalid("path", "'\(path.prefix(200))' is not a path: it must start with a single '/' and hold no spaces, '?' or '#'")
        }
        for prefix in RoutePattern.reservedPrefixes where path.hasPrefix(prefix) {
            throw .invalid("path", "'\(path)' is a path Ferry reserves for itself")
        }
        if let app, !app.routes.isEmpty, app.route(matching: path) == nil {
            let patterns = app.routes.map(\.pattern.description).joined(separator: ", ")
            throw .invalid("path", "'\(path)' matches none of the app's routes (\(patterns))")
        }
        guard parameters.count <= 50 else { throw .invalid("parameters", "at most 50 parameters") }
        for (name, value) in parameters where name.isEmpty || name.utf8.count > 100 || value.utf8.count > 1000 {
            throw .invalid("parameters", "parameter names need 1–100 characters and values at most 1,000")
        }
        do { try ios.validate() } catch { throw error.nested(under: "ios") }
        do { try android.validate() } catch { throw error.nested(under: "android") }
        if let desktopURL { try URLRules.checkWebURL(desktopURL, field: "desktopURL") }
        if let expiredURL { try URLRules.checkWebURL(expiredURL, field: "expiredURL") }
        do { try preview.validate() } catch { throw error.nested(under: "preview") }
        do { try tags.validate() } catch { throw error.nested(under: "tags") }
        if let androidStore, let android = app?.android, android.listing(for: androidStore) == nil {
            throw .invalid("androidStore", "the app is not listed in \(androidStore.rawValue); add it to the app's stores first")
        }
    }

    /// What is wrong with a short code, or `nil`.
    public static func problem(withCode code: String) -> String? {
        guard !code.isEmpty, code.utf8.count <= 64 else { return "a code needs 1–64 characters" }
        guard code.utf8.allSatisfy({ URLRules.isAlphanumeric($0) || $0 == 0x2D || $0 == 0x5F }) else {
            return "'\(code.prefix(80))' is not a code: use letters, digits, '-' and '_'"
        }
        return nil
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            code: try container.decodeIfPresent(String.self, forKey: .code),
            domain: try container.decode(String.self, forKey: .domain),
            path: try container.decodeIfPresent(String.self, forKey: .path) ?? "/",
            parameters: try container.decodeIfPresent([String: String].self, forKey: .parameters) ?? [:],
            ios: try container.decodeIfPresent(PlatformBehaviour.self, forKey: .ios) ?? PlatformBehaviour(),
            android: try container.decodeIfPresent(PlatformBehaviour.self, forKey: .android) ?? PlatformBehaviour(),
            desktopURL: try container.decodeIfPresent(URL.self, forKey: .desktopURL),
            previewPage: try container.decodeIfPresent(PreviewPageMode.self, forKey: .previewPage) ?? .auto,
            preview: try container.decodeIfPresent(PreviewMetadata.self, forKey: .preview) ?? PreviewMetadata(),
            tags: try container.decodeIfPresent(LinkTags.self, forKey: .tags) ?? LinkTags(),
            expiresAt: try container.decodeIfPresent(Date.self, forKey: .expiresAt),
            disabled: try container.decodeIfPresent(Bool.self, forKey: .disabled) ?? false,
            expiredURL: try container.decodeIfPresent(URL.self, forKey: .expiredURL),
            androidStore: try container.decodeIfPresent(AndroidStore.self, forKey: .androidStore))
    }
}

/// How a link behaves on one mobile platform when Ferry sees the click (so the app did not open).
public struct PlatformBehaviour: Sendable, Hashable, Codable {
    /// The web page for this platform instead of the route's.
    public var webURL: URL?
    /// Store or web when the app is missing; the store when unset.
    public var whenAppMissing: MissingAppBehavior?

    public init(webURL: URL? = nil, whenAppMissing: MissingAppBehavior? = nil) {
        self.webURL = webURL
        self.whenAppMissing = whenAppMissing
    }

    func validate() throws(ValidationError) {
        if let webURL { try URLRules.checkWebURL(webURL, field: "webURL") }
    }
}

public enum MissingAppBehavior: String, Sendable, Hashable, Codable, CaseIterable {
    case store, web
}

/// Whether a phone sees Ferry's preview page before going on.
public enum PreviewPageMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// Where it helps: iOS browsers when the link leads to the store (the page's button copies the
    /// deferred-link token and the tap lets iOS open the app), and every in-app browser.
    case auto
    /// On every phone, Android browsers included.
    case always
    /// Never: straight to the store or the web, even from in-app browsers.
    case never
}

/// How the link looks when shared.
public struct PreviewMetadata: Sendable, Hashable, Codable {
    public var title: String?
    public var description: String?
    public var imageURL: URL?

    public init(title: String? = nil, description: String? = nil, imageURL: URL? = nil) {
        self.title = title
        self.description = description
        self.imageURL = imageURL
    }

    func validate() throws(ValidationError) {
        if let title, title.count > 300 { throw .invalid("title", "the title is longer than 300 characters") }
        if let description, description.count > 1000 { throw .invalid("description", "the description is longer than 1,000 characters") }
        if let imageURL { try URLRules.checkWebURL(imageURL, field: "imageURL") }
    }
}

/// Attribution tags of a link. They travel with every visit, install and open.
public struct LinkTags: Sendable, Hashable, Codable {
    public var ref: String?
    public var campaign: String?
    public var channel: String?
    public var utmSource: String?
    public var utmMedium: String?
    public var utmCampaign: String?
    public var utmTerm: String?
    public var utmContent: String?

    public init(
        ref: String? = nil, campaign: String? = nil, channel: String? = nil, utmSource: String? = nil,
        utmMedium: String? = nil, utmCampaign: String? = nil, utmTerm: String? = nil, utmContent: String? = nil
    ) {
        self.ref = ref
        self.campaign = campaign
        self.channel = channel
        self.utmSource = utmSource
        self.utmMedium = utmMedium
        self.utmCampaign = utmCampaign
        self.utmTerm = utmTerm
        self.utmContent = utmContent
    }

    /// The tags as query parameters, in a fixed order (`utm_source=…`), skipping empty ones.
    public var queryItems: [(name: String, value: String)] {
        [("ref", ref), ("campaign", campaign), ("channel", channel), ("utm_source", utmSource),
         ("utm_medium", utmMedium), ("utm_campaign", utmCampaign), ("utm_term", utmTerm), ("utm_content", utmContent)]
            .compactMap { name, value in value.flatMap { $0.isEmpty ? nil : (name, $0) } }
    }

    /// Sets the tag a query parameter names; `false` when the name is not a tag.
    @discardableResult
    public mutating func set(_ name: String, _ value: String) -> Bool {
        switch name {
        case "ref": ref = value
        case "campaign": campaign = value
        case "channel": channel = value
        case "utm_source": utmSource = value
        case "utm_medium": utmMedium = value
        case "utm_campaign": utmCampaign = value
        case "utm_term": utmTerm = value
        case "utm_content": utmContent = value
        default: return false
        }
        return true
    }

    /// The campaign for reports: `campaign`, else `utm_campaign`.
    public var effectiveCampaign: String? { campaign ?? utmCampaign }

    func validate() throws(ValidationError) {
        for (name, value) in queryItems where value.count > 200 {
            throw .invalid(name, "tags are at most 200 characters")
        }
    }
}
