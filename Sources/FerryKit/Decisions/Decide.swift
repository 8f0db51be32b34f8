import Foundation

/// Decides what to answer to one link request: a pure function of the link, its app, the
/// visitor and the request, so every case is a unit test. DESIGN.md §2 is the table it follows.
///
/// ```swift
/// let visitor = VisitorClassifier.shared.classify(headers)
/// switch decide(link: link, app: app, visitor: visitor, request: request) {
/// case .redirect(let url, _): // 302 Location: url
/// case .previewPage(let page): // render the preview page
/// …
/// }
/// ```
///
/// - Parameter link: the stored link or route link for the path; `nil` when there is none.
public func decide(link: Link?, app: App, visitor: Visitor, request: LinkRequest) -> Decision {
    guard let link else { return .notFound }
    let targets = LinkTargets(link: link, app: app, request: request)
    guard link.isLive(at: request.now) else {
        if let expiredURL = link.expiredURL { return .redirect(expiredURL, .expiredFallback) }
        return .gone(targets.page(for: visitor, openInApp: nil, storeURL: nil))
    }
    switch visitor.bot {
    case .linkPreview:
        return .crawlerPreview(targets.page(for: visitor, openInApp: nil, storeURL: nil))
    case .searchCrawler, .other:
        // Search engines should index the destination, not the short link.
        return .redirect(targets.desktopURL, .web)
    case .none:
        break
    }
    if let host = visitor.inAppHost, host.blocksAppAndStoreLinks, visitor.isMobile {
        return .openInBrowser(targets.page(for: visitor, openInApp: nil, storeURL: nil))
    }
    switch visitor.platform {
    case .iOS, .iPadOS:
        return targets.appleDecision(for: visitor)
    case .android:
        return targets.androidDecision(for: visitor)
    case .macOS where visitor.maybeIPad && app.ios != nil:
        var iPad = visitor
        iPad.platform = .iPadOS
        iPad.deviceClass = .tablet
        iPad.maybeIPad = false
        return .ambiguousIPad(ipad: targets.appleDecision(for: iPad), desktopURL: targets.desktopURL)
    default:
        return .redirect(targets.desktopURL, visitor.deviceClass == .phone ? .web : .desktop)
    }
}

/// The URLs one link resolves to for one request.
struct LinkTargets {
    let link: Link
    let app: App
    let request: LinkRequest
    let webURL: URL
    let customSchemeURL: URL?

    init(link: Link, app: App, request: LinkRequest) {
        self.link = link
        self.app = app
        self.request = request
        let match = app.route(matching: link.path)
        var web = match.map { $0.route.webURL(parameters: $0.parameters, app: app, path: link.path) }
            ?? app.web.fallbackURL.appendingPathComponent(String(link.path.drop { $0 == "/" }))
        web = URLBuilder.appending(link.tags.queryItems.filter { $0.name.hasPrefix("utm_") }.map { .init($0.name, $0.value) }, to: web)
        webURL = web
        customSchemeURL = match.flatMap { $0.route.customScheme?.fill($0.parameters) }
            ?? (app.ios?.customScheme ?? app.android?.customScheme).flatMap {
                URL(string: "\($0)://" + URLBuilder.encodePath(String(link.path.drop { $0 == "/" })))
            }
    }

    var desktopURL: URL { link.desktopURL ?? webURL }
    var iosWebURL: URL { link.ios.webURL ?? webURL }
    var androidWebURL: URL { link.android.webURL ?? webURL }
    var linkURL: URL { request.url(on: request.host) }

    /// The same link on the other host, where a tap opens the app.
    var otherHostURL: URL? {
        request.domain.otherHost(than: request.host).map { request.url(on: $0) }
    }

    func appleDecision(for visitor: Visitor) -> Decision {
        guard let ios = app.ios else { return .redirect(iosWebURL, .web) }
        let storeURL = StoreLinks.appStore(ios, tags: link.tags)
        let toStore = (link.ios.whenAppMissing ?? .store) == .store && storeURL != nil
        let direct: Decision = toStore ? .redirect(storeURL!, .appStore) : .redirect(iosWebURL, .web)
        let page = Decision.previewPage(page(for: visitor, openInApp: otherHostURL ?? customSchemeURL, storeURL: storeURL))
        switch link.previewPage {
        case .never: return direct
        case .always: return page
        case .auto: return visitor.inAppHost != nil || toStore ? page : direct
        }
    }

    func androidDecision(for visitor: Visitor) -> Decision {
        guard let android = app.android else { return .redirect(androidWebURL, .web) }
        let listing = StoreLinks.choose(for: android, visitor: visitor, link: link)
        let toStore = (link.android.whenAppMissing ?? .store) == .store
        let referrer = StoreLinks.installReferrer(token: request.deferredToken, tags: link.tags)
        let storeURL = StoreLinks.android(android, listing: listing, referrer: referrer)
        let fallback = toStore ? storeURL : androidWebURL
        let intent = StoreLinks.intent(for: linkURL, package: android.packageName, fallback: fallback)
        let direct: Decision = .redirect(fallback, toStore ? (listing.store == .googlePlay ? .playStore : .androidStore) : .web)
        let page = Decision.previewPage(page(for: visitor, openInApp: intent, storeURL: storeURL))
        let inApp = visitor.inAppHost != nil
        switch link.previewPage {
        case .never: return !inApp && Self.opensIntents(visitor.browser) ? .redirect(intent, .androidIntent) : direct
        case .always: return page
        case .auto:
            if inApp { return page }
            return Self.opensIntents(visitor.browser) ? .redirect(intent, .androidIntent) : direct
        }
    }

    /// Browsers known to follow `intent://` redirects (Chrome and browsers built on it).
    static func opensIntents(_ browser: BrowserFamily) -> Bool {
        switch browser {
        case .chrome, .samsungInternet, .edge, .opera, .yandex, .miuiBrowser, .huaweiBrowser: true
        default: false
        }
    }

    func page(for visitor: Visitor, openInApp: URL?, storeURL: URL?) -> LinkPage {
        let title = link.preview.title ?? app.name
        let platformWeb: URL = switch visitor.platform {
        case .iOS, .iPadOS: iosWebURL
        case .android: androidWebURL
        default: desktopURL
        }
        // Only a page that offers the store hands out the token.
        let token = storeURL == nil ? nil : request.deferredToken
        let clipboard = visitor.isApple ? token.map { request.url(on: request.domain.host, extra: [.init(LinkRequest.tokenParameter, $0)]) } : nil
        return LinkPage(
            appName: app.name, iconURL: app.iconURL, title: title, description: link.preview.description,
            imageURL: link.preview.imageURL, linkURL: linkURL, platform: visitor.platform, inAppHost: visitor.inAppHost,
            openInAppURL: openInApp, storeURL: storeURL, clipboardURL: clipboard, webURL: platformWeb,
            deferredToken: token,
            metadata: PageMetadata(app: app, link: link, linkURL: linkURL, webURL: desktopURL, appURL: customSchemeURL ?? linkURL))
    }
}
