import Foundation

/// One answered request on a link: who asked, what Ferry answered, and the link's tags.
/// Append-only; the IP address is kept only as a keyed hash.
public struct Visit: Sendable, Hashable, Codable {
    public var at: Date
    public var domain: String
    /// The short code, `nil` for a route link.
    public var code: String?
    public var path: String
    public var platform: Platform
    public var osVersion: Version?
    public var deviceClass: DeviceClass
    public var browser: BrowserFamily
    public var inAppHost: InAppHost?
    public var bot: BotKind
    public var decision: DecisionKind
    /// The host of the `Referer`, never the full URL (it may carry personal data).
    public var referrerHost: String?
    /// ISO 3166 country code, when a trusted proxy said (`CF-IPCountry` and the like).
    public var country: String?
    public var tags: LinkTags
    /// HMAC-SHA256 of the client IP under the installation's secret, hex.
    public var ipHash: String

    public init(at: Date, domain: String, code: String?, path: String, visitor: Visitor, decision: DecisionKind,
                referrerHost: String?, country: String? = nil, tags: LinkTags, ipHash: String) {
        self.at = at
        self.domain = domain
        self.code = code
        self.path = path
        self.platform = visitor.platform
        self.osVersion = visitor.osVersion
        self.deviceClass = visitor.deviceClass
        self.browser = visitor.browser
        self.inAppHost = visitor.inAppHost
        self.bot = visitor.bot
        self.decision = decision
        self.referrerHost = referrerHost
        self.country = country
        self.tags = tags
        self.ipHash = ipHash
    }

    public var isBot: Bool { bot != .none }
}
