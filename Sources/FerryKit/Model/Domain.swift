/// A host name Ferry answers for, belonging to one app.
///
/// The alternate host serves the same links under another name. A tap on a link to the
/// *same* host never opens the app, so the preview page's "Open in app" button points at the
/// other one.
public struct Domain: Sendable, Hashable, Codable {
    public var host: String
    public var appID: String
    public var alternateHost: String?

    public init(host: String, appID: String, alternateHost: String? = nil) {
        self.host = host.lowercased()
        self.appID = appID
        self.alternateHost = alternateHost?.lowercased()
    }

    /// The host a button on a page served from `requestHost` should link to so that iOS and
    /// Android treat the tap as a link into the app.
    public func otherHost(than requestHost: String) -> String? {
        guard let alternateHost else { return nil }
        return requestHost == alternateHost || requestHost.lowercased() == alternateHost ? host : alternateHost
    }

    public func validate() throws(ValidationError) {
        if let problem = URLRules.problem(withHost: host) { throw .invalid("host", problem) }
        if let alternateHost {
            if let problem = URLRules.problem(withHost: alternateHost) { throw .invalid("alternateHost", problem) }
            guard alternateHost != host else {
                throw .invalid("alternateHost", "the alternate host must differ from the host, or a tap on it won't open the app")
            }
        }
        guard App.isSlug(appID) else { throw .invalid("appID", "'\(appID)' is not an app id") }
    }
}
