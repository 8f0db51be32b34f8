import Foundation

/// A link as an app needs it: the screen it points at and what came with it. The server's SDK
/// API answers with it, and the `Ferry` library builds the same thing locally from its route
/// table when the server cannot be reached.
public struct ResolvedLink: Sendable, Hashable, Codable {
    /// The link as shared (`https://go.acme.com/spring`).
    public var url: String
    public var domain: String
    /// The short code; `nil` for a route link.
    public var code: String?
    /// The path inside the app (`/u/42`).
    public var path: String
    /// The pattern of the route the path matches (`/u/{userId}`), if any.
    public var route: String?
    /// The route's placeholder values, the link's own parameters and the query's non-tag items.
    public var parameters: [String: String]
    public var tags: LinkTags
    /// This version of the app is older than the route's minimum for its platform: show
    /// ``webURL`` instead.
    public var requiresUpdate: Bool
    /// Where an app too old for the route sends the person: the web page, through Ferry's
    /// web-fallback path, which the association file excludes so it does not come back into
    /// the app.
    public var webURL: String?

    public init(url: String, domain: String, code: String?, path: String, route: String?, parameters: [String: String],
                tags: LinkTags, requiresUpdate: Bool = false, webURL: String? = nil) {
        self.url = url
        self.domain = domain
        self.code = code
        self.path = path
        self.route = route
        self.parameters = parameters
        self.tags = tags
        self.requiresUpdate = requiresUpdate
        self.webURL = webURL
    }

    /// `link` (a stored link or ``Link/routeLink(domain:path:query:)``) for `app` at
    /// `appVersion` on `platform`. An unknown version is taken to be new enough.
    public init(link: Link, app: App, platform: Platform, appVersion: Version?) {
        self.init(link: link, routes: app.routes, platform: platform, appVersion: appVersion)
    }

    /// The same from a route table alone: what the app's library does with its own routes.
    public init(link: Link, routes: [Route], platform: Platform, appVersion: Version?) {
        let match = routes.lazy.compactMap { route in route.pattern.match(link.path).map { (route: route, parameters: $0) } }.first
        var parameters = link.parameters
        for (name, value) in match?.parameters ?? [:] { parameters[name] = value }
        let requestPath = link.code.map { "/" + $0 } ?? link.path
        let tooOld = match.map { match in appVersion.map { !match.route.minimumVersion.allows($0, on: platform) } ?? false } ?? false
        var url = "https://" + link.domain + URLBuilder.encodePath(requestPath)
        if link.code == nil, !link.tags.queryItems.isEmpty || !link.parameters.isEmpty {
            let items = link.tags.queryItems.map { LinkRequest.QueryItem($0.name, $0.value) }
                + link.parameters.sorted { $0.key < $1.key }.map { LinkRequest.QueryItem($0.key, $0.value) }
            url += "?" + URLBuilder.encodeQuery(items)
        }
        self.init(url: url, domain: link.domain, code: link.code, path: link.path, route: match?.route.pattern.description,
                  parameters: parameters, tags: link.tags, requiresUpdate: tooOld,
                  webURL: tooOld ? Self.webFallbackURL(domain: link.domain, path: requestPath) : nil)
    }

    /// `https://go.acme.com/_ferry/web?path=%2Fu%2F42`
    public static func webFallbackURL(domain: String, path: String) -> String {
        "https://" + domain + AASAGenerator.webFallbackPath + "?path=" + Escaping.percentEncode(path)
    }
}

/// `POST /sdk/v1/install`: the app's first launch.
public struct InstallReport: Sendable, Hashable, Codable {
    public var platform: Platform
    public var appVersion: Version
    public var osVersion: Version?
    public var deviceModel: String?
    public var screen: Screen?
    public var languages: [String]
    public var timeZone: String?
    /// A token the app already has: read from a pasted Ferry URL.
    public var token: String?
    /// The Play Store's install referrer string, as the Install Referrer API gives it.
    public var installReferrer: String?

    public init(platform: Platform, appVersion: Version, osVersion: Version? = nil, deviceModel: String? = nil, screen: Screen? = nil,
                languages: [String] = [], timeZone: String? = nil, token: String? = nil, installReferrer: String? = nil) {
        self.platform = platform
        self.appVersion = appVersion
        self.osVersion = osVersion
        self.deviceModel = deviceModel
        self.screen = screen
        self.languages = languages
        self.timeZone = timeZone
        self.token = token
        self.installReferrer = installReferrer
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            platform: try container.decode(Platform.self, forKey: .platform),
            appVersion: try container.decode(Version.self, forKey: .appVersion),
            osVersion: try container.decodeIfPresent(Version.self, forKey: .osVersion),
            deviceModel: try container.decodeIfPresent(String.self, forKey: .deviceModel),
            screen: try container.decodeIfPresent(Screen.self, forKey: .screen),
            languages: try container.decodeIfPresent([String].self, forKey: .languages) ?? [],
            timeZone: try container.decodeIfPresent(String.self, forKey: .timeZone),
            token: try container.decodeIfPresent(String.self, forKey: .token),
            installReferrer: try container.decodeIfPresent(String.self, forKey: .installReferrer))
    }

    /// The token from either source, if it has the form of one.
    public var deferredToken: String? {
        token.flatMap(DeferredToken.valid) ?? installReferrer.flatMap(DeferredToken.fromInstallReferrer)
    }

    /// What the install can tell about the device, for a probabilistic match.
    public func signals(ipHash: String) -> DeviceSignals {
        DeviceSignals(ipHash: ipHash, platform: platform, osVersion: osVersion, deviceModel: deviceModel,
                      languages: languages, timeZone: timeZone, screen: screen)
    }
}

/// The answer to an install: the link, how it was matched and how sure the match is. A
/// probabilistic match is a guess: never log a person in on it.
public struct InstallAnswer: Sendable, Hashable, Codable {
    public var matchType: MatchType
    /// 1 for a token match, 0–1 for a probabilistic one, 0 without a match.
    public var confidence: Double
    public var link: ResolvedLink?

    public init(matchType: MatchType, confidence: Double, link: ResolvedLink?) {
        self.matchType = matchType
        self.confidence = confidence
        self.link = link
    }

    public static let none = InstallAnswer(matchType: .none, confidence: 0, link: nil)
}

/// `POST /sdk/v1/open`: the app was opened by a URL.
public struct OpenReport: Sendable, Hashable, Codable {
    public var url: String
    public var platform: Platform
    public var appVersion: Version?

    public init(url: String, platform: Platform, appVersion: Version?) {
        self.url = url
        self.platform = platform
        self.appVersion = appVersion
    }
}
