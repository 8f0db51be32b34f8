import Foundation

/// An install or an open that an app reported through the SDK. Opens through universal links
/// and App Links never reach the server as clicks; these are how they are counted.
public struct AppEvent: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// The first launch after an install, matched to a click or not.
        case install
        /// The app was opened by one of its links.
        case open
    }

    public var at: Date
    public var appID: String
    public var kind: Kind
    public var platform: Platform
    public var appVersion: Version?
    /// For installs: how the install was matched to a click.
    public var matchType: MatchType?
    public var confidence: Double?
    /// The link, when there is one.
    public var domain: String?
    public var code: String?
    public var path: String?
    public var tags: LinkTags
    public var ipHash: String

    public init(at: Date, appID: String, kind: Kind, platform: Platform, appVersion: Version?, matchType: MatchType? = nil,
                confidence: Double? = nil, link: ResolvedLink?, ipHash: String) {
        self.at = at
        self.appID = appID
        self.kind = kind
        self.platform = platform
        self.appVersion = appVersion
        self.matchType = matchType
        self.confidence = confidence
        self.domain = link?.domain
        self.code = link?.code
        self.path = link?.path
        self.tags = link?.tags ?? LinkTags()
        self.ipHash = ipHash
    }
}
