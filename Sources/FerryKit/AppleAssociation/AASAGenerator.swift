import Foundation

/// Generates a domain's `apple-app-site-association` file from its app and route table.
///
/// The file excludes Ferry's own paths first — among them the web-fallback path the SDK uses
/// to send an app version too old for a route to the web without bouncing back into the app —
/// then lists the routes (with their names as comments), then every other path, because every
/// other path on a Ferry domain is a short link.
public enum AASAGenerator {
    /// Paths under this prefix never open the app.
    public static let excludedPrefix = "/_ferry/"
    /// `GET /_ferry/web?path=/u/42` sends the visitor to the route's web page.
    public static let webFallbackPath = "/_ferry/web"

    public static func file(for app: App) -> AppleAppSiteAssociation {
        guard let ios = app.ios else { return AppleAppSiteAssociation(applinks: .init(details: [])) }
        var association = AppleAppSiteAssociation(
            applinks: .init(details: [.init(appIDs: [ios.appID], components: components(forRoutes: app.routes))]))
        if ios.webCredentials { association.webcredentials = .init(apps: [ios.appID]) }
        if let clip = ios.appClipID { association.appclips = .init(apps: [clip]) }
        return association
    }

    /// The components for a route table, in the order that gives each its meaning.
    static func components(forRoutes routes: [Route]) -> [AppleAppSiteAssociation.Component] {
        typealias Component = AppleAppSiteAssociation.Component
        var components = [Component(path: excludedPrefix + "*", exclude: true, comment: "Ferry's own pages, including the web fallback for old app versions")]
        for route in routes {
            components.append(Component(path: route.pattern.associationPattern, comment: route.name ?? "route \(route.pattern)"))
        }
        components.append(Component(path: "/*", comment: "short links"))
        return components
    }

    /// The file's bytes, exactly as served.
    public static func data(for app: App) -> Data {
        file(for: app).encoded()
    }
}
