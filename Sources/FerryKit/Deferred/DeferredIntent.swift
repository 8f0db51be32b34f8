import Foundation

/// What a click that sends a phone toward a store leaves behind, so that the app installed
/// from there can open the link on its first launch (DESIGN.md §3): a one-time token, the link
/// as clicked, and the signals a probabilistic match compares.
public struct DeferredIntent: Sendable, Hashable, Codable {
    /// Unguessable; travels in the Play Store's install referrer and in the URL that "Get the
    /// app" copies to the clipboard.
    public var token: String
    public var appID: String
    /// The link domain the click came to.
    public var domain: String
    /// The short code; `nil` for a route link.
    public var code: String?
    /// The path as clicked, with its query (`/u/42?ref=mail`), Ferry's own parameters removed.
    public var path: String
    public var signals: DeviceSignals
    public var createdAt: Date
    public var expiresAt: Date

    public init(token: String, appID: String, domain: String, code: String?, path: String, signals: DeviceSignals,
                createdAt: Date, expiresAt: Date) {
        self.token = token
        self.appID = appID
        self.domain = domain
        self.code = code
        self.path = path
        self.signals = signals
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }

    public func isLive(at date: Date) -> Bool {
        createdAt <= date && date < expiresAt
    }
}

/// What both a browser and a freshly installed app can tell about a device. Every field but
/// the platform may be unknown.
public struct DeviceSignals: Sendable, Hashable, Codable {
    /// HMAC of the client IP (the server's, never the IP itself).
    public var ipHash: String?
    public var platform: Platform
    public var osVersion: Version?
    /// `iPhone15,2`, `Pixel 8`: from client hints on the web side, from the system in the app.
    public var deviceModel: String?
    /// Preferred languages, lowercased (`en-gb`, `en`), most preferred first.
    public var languages: [String]
    /// An IANA zone such as `Europe/Berlin`.
    public var timeZone: String?
    public var screen: Screen?

    public init(ipHash: String? = nil, platform: Platform, osVersion: Version? = nil, deviceModel: String? = nil,
                languages: [String] = [], timeZone: String? = nil, screen: Screen? = nil) {
        self.ipHash = ipHash
        self.platform = platform
        self.osVersion = osVersion
        self.deviceModel = deviceModel
        self.languages = languages.map { $0.lowercased() }
        self.timeZone = timeZone
        self.screen = screen
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            ipHash: try container.decodeIfPresent(String.self, forKey: .ipHash),
            platform: try container.decode(Platform.self, forKey: .platform),
            osVersion: try container.decodeIfPresent(Version.self, forKey: .osVersion),
            deviceModel: try container.decodeIfPresent(String.self, forKey: .deviceModel),
            languages: try container.decodeIfPresent([String].self, forKey: .languages) ?? [],
            timeZone: try container.decodeIfPresent(String.self, forKey: .timeZone),
            screen: try container.decodeIfPresent(Screen.self, forKey: .screen))
    }
}

extension DeviceSignals {
    /// Adds what a preview page reported (`navigator.sendBeacon`): only fields it knows.
    public mutating func merge(screen: Screen?, timeZone: String?, languages: [String]) {
        if let screen { self.screen = screen }
        if let timeZone { self.timeZone = timeZone }
        if !languages.isEmpty { self.languages = languages.map { $0.lowercased() } }
    }
}

/// A screen in points (CSS pixels on the web), portrait: the shorter side first.
public struct Screen: Sendable, Hashable, Codable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = min(width, height)
        self.height = max(width, height)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(width: try container.decode(Int.self, forKey: .width), height: try container.decode(Int.self, forKey: .height))
    }

    public var description: String { "\(width)×\(height)" }
}

/// How the token gets from the click to the app: as a query parameter of the copied link, or
/// inside the Play Store's install referrer.
public enum DeferredToken {
    /// The token in a Ferry URL (`https://go.acme.com/spring?ferry_token=…`), if it has one.
    public static func fromURL(_ text: String) -> String? {
        guard let components = URLComponents(string: text.trimmingCharacters(in: .whitespacesAndNewlines)),
              components.scheme == "https" || components.scheme == "http" else { return nil }
        return components.queryItems?.first { $0.name == LinkRequest.tokenParameter }?.value.flatMap(valid)
    }

    /// The token in an install referrer string as the Play Install Referrer API returns it
    /// (`ferry_token=…&utm_source=…`).
    public static func fromInstallReferrer(_ text: String) -> String? {
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, Escaping.percentDecode(parts[0]) == LinkRequest.tokenParameter {
                return valid(Escaping.percentDecode(parts[1]))
            }
        }
        return nil
    }

    /// Tokens are URL-safe base64 (`A–Z a–z 0–9 - _`), 16 to 64 characters.
    public static func valid(_ token: String) -> String? {
        guard (16...64).contains(token.utf8.count),
              token.utf8.allSatisfy({ URLRules.isAlphanumeric($0) || $0 == 0x2D || $0 == 0x5F }) else { return nil }
        return token
    }
}
