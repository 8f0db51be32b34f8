import Foundation

/// A link prepared for answering clicks: every URL that depends only on the link and its app,
/// built once. The server keeps one per cached link, so a click only joins strings.
///
/// ```swift
/// let compiled = CompiledLink(link, app: app)      // when the link enters the cache
/// let decision = decide(compiled, visitor: visitor, request: request)   // per click
/// ```
public final class CompiledLink: Sendable {
    public let link: Link
    public let app: App
    /// The route's web page with the link's utm tags, or the app's fallback.
    public let webURL: String
    public let iosWebURL: String
    public let androidWebURL: String
    public let desktopURL: String
    /// The same screen through the app's URL scheme, when the app has one.
    public let customSchemeURL: String?
    public let appStoreURL: String?
    /// `utm_*` part of the Play install referrer (the token is added per click).
    let referrerTags: [LinkRequest.QueryItem]

    public init(_ link: Link, app: App) {
        self.link = link
        self.app = app
        let match = app.route(matching: link.path)
        let base = match.map { $0.route.webURL(parameters: $0.parameters, app: app, path: link.path).absoluteString }
            ?? app.web.fallbackURL.appendingPathComponent(String(link.path.drop { $0 == "/" })).absoluteString
        let web = URLBuilder.appending(link.tags.queryItems.filter { $0.name.hasPrefix("utm_") }.map { .init($0.name, $0.value) }, to: base)
        webURL = web
        iosWebURL = link.ios.webURL?.absoluteString ?? web
        androidWebURL = link.android.webURL?.absoluteString ?? web
        desktopURL = link.desktopURL?.absoluteString ?? web
        customSchemeURL = match.flatMap { $0.route.customScheme?.fill($0.parameters)?.absoluteString }
            ?? (app.ios?.customScheme ?? app.android?.customScheme).map {
                "\($0)://" + URLBuilder.encodePath(String(link.path.drop { $0 == "/" }))
            }
        appStoreURL = app.ios.flatMap { StoreLinks.appStore($0, tags: link.tags) }
        referrerTags = StoreLinks.referrerTags(link.tags)
    }
}
