import Foundation
import FerryKit

/// Maps the app's links to its screens in one place, with the same route table the server
/// uses for the AASA file and web fallbacks.
///
/// ```swift
/// var router = DeepLinkRouter(linkDomains: ["go.acme.com", "open.acme.com"])
/// router.register("/u/{userId}") { match in
///     showProfile(id: match.parameters["userId"]!)
/// }
/// // in scene(_:continue:) or .onOpenURL:
/// if !router.open(url) { /* not a Ferry link: handle it elsewhere */ }
/// ```
public struct DeepLinkRouter: Sendable {
    public struct Match: Sendable, Hashable {
        public var route: Route
        /// Values of the pattern's placeholders, percent-decoded.
        public var parameters: [String: String]
        /// The URL's query items (tags and extra parameters), Ferry's own removed.
        public var query: [String: String]
    }

    public typealias Handler = @Sendable (Match) -> Void

    private var entries: [(route: Route, handler: Handler)] = []
    private let linkDomains: Set<String>
    private let customSchemes: Set<String>

    /// - Parameters:
    ///   - linkDomains: the hosts of the app's Ferry domains and alternate domains.
    ///   - customSchemes: the app's URL schemes, whose URLs are routed by host and path
    ///     (`acme://u/42` as `/u/42`).
    public init(linkDomains: [String], customSchemes: [String] = []) {
        self.linkDomains = Set(linkDomains.map { $0.lowercased() })
        self.customSchemes = Set(customSchemes.map { $0.lowercased() })
    }

    public mutating func register(_ pattern: RoutePattern, handler: @escaping Handler) {
        entries.append((Route(pattern: pattern), handler))
    }

    public mutating func register(_ route: Route, handler: @escaping Handler) {
        entries.append((route, handler))
    }

    /// The first registered route the URL matches, or `nil` for URLs that are not this app's links.
    public func match(_ url: URL) -> Match? {
        guard let path = path(of: url) else { return nil }
        var query: [String: String] = [:]
        for item in URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        where !item.name.hasPrefix(LinkRequest.reservedQueryPrefix) {
            query[item.name] = item.value ?? ""
        }
        for entry in entries {
            if let parameters = entry.route.pattern.match(path) {
                return Match(route: entry.route, parameters: parameters, query: query)
            }
        }
        return nil
    }

    /// Runs the handler of the matching route. `false` when no route matches.
    @discardableResult
    public func open(_ url: URL) -> Bool {
        guard let match = match(url), let entry = entries.first(where: { $0.route == match.route }) else { return false }
        entry.handler(match)
        return true
    }

    /// The path of a URL on the link domains or custom schemes; `nil` for any other URL.
    func path(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased() else { return nil }
        if scheme == "https" || scheme == "http" {
            guard let host = url.host?.lowercased(), linkDomains.contains(host) else { return nil }
            let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? url.path
            return path.isEmpty ? "/" : path
        }
        guard customSchemes.contains(scheme), let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        return URLRules.appPath(ofCustomScheme: components)
    }
}
