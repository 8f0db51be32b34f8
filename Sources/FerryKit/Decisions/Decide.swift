import Foundation

/// Decides what to answer to one link request: a pure function of the link, its app, the
/// visitor and the request, so every case is a unit test. DESIGN.md §2 is the table it follows.
///
/// ```swift
/// let visitor = VisitorClassifier.shared.classify(headers)
/// switch decide(link: link, app: app, visitor: visitor, request: request) {
/// case .redirect(let location, _): // 302 Location: location
/// case .previewPage(let page): // render the preview page
/// …
/// }
/// ```
///
/// - Parameter link: the stored link or route link for the path; `nil` when there is none.
public func decide(link: Link?, app: App, visitor: Visitor, request: LinkRequest) -> Decision {
    decide(link.map { CompiledLink($0, app: app) }, visitor: visitor, request: request)
}

/// The same decision for a link compiled ahead of time: what the server calls per click.
public func decide(_ compiled: CompiledLink?, visitor: Visitor, request: LinkRequest) -> Decision {
    guard let compiled else { return .notFound }
    let click = Click(compiled: compiled, request: request)
    guard compiled.link.isLive(at: request.now) else {
        if let expiredURL = compiled.link.expiredURL { return .redirect(expiredURL.absoluteString, .expiredFallback) }
        return .gone(click.page(for: visitor, openInApp: nil, storeURL: nil))
    }
    switch visitor.bot {
    case .linkPreview:
        return .crawlerPreview(click.page(for: visitor, openInApp: nil, storeURL: nil))
    case .searchCrawler, .other:
        // Search engines should index the destination, not the short link.
        return .redirect(compiled.desktopURL, .web)
    case .none:
        break
    }
    if let host = visitor.inAppHost, host.blocksAppAndStoreLinks, visitor.isMobile {
        return .openInBrowser(click.page(for: visitor, openInApp: nil, storeURL: nil))
    }
    switch visitor.platform {
    case .iOS, .iPadOS:
        return click.appleDecision(for: visitor)
    case .android:
        return click.androidDecision(for: visitor)
    case .macOS where visitor.maybeIPad && compiled.app.ios != nil:
        var iPad = visitor
        iPad.platform = .iPadOS
        iPad.deviceClass = .tablet
        iPad.maybeIPad = false
        return .ambiguousIPad(IPadProbe(ipad: click.appleDecision(for: iPad), desktopURL: compiled.desktopURL))
    default:
        return .redirect(compiled.desktopURL, visitor.deviceClass == .phone ? .web : .desktop)
    }
}

/// One click on a compiled link: what depends on the request (host, token, visitor).
struct Click {
    let compiled: CompiledLink
    let request: LinkRequest

    /// The link as requested, on `host`, Ferry's own query parameters removed.
    func url(on host: String, extra: [LinkRequest.QueryItem] = []) -> String {
        var text = "https://" + host + URLBuilder.encodePath(request.path)
        let query = request.passThroughQuery + extra
        if !query.isEmpty { text += "?" + URLBuilder.encodeQuery(query) }
        return text
    }

    var linkURL: String { url(on: request.host) }

    /// The same link on the other host, where a tap opens the app.
    var otherHostURL: String? {
        request.domain.otherHost(than: request.host).map { url(on: $0) }
    }

    func appleDecision(for visitor: Visitor) -> Decision {
        guard compiled.app.ios != nil else { return .redirect(compiled.iosWebURL, .web) }
        let storeURL = compiled.appStoreURL
        let toStore = (compiled.link.ios.whenAppMissing ?? .store) == .store && storeURL != nil
        let direct: Decision = toStore ? .redirect(storeURL!, .appStore) : .redirect(compiled.iosWebURL, .web)
        switch compiled.link.previewPage {
        case .never: return direct
        case .always: break
        case .auto: if visitor.inAppHost == nil, !toStore { return direct }
        }
        return .previewPage(page(for: visitor, openInApp: otherHostURL ?? compiled.customSchemeURL, storeURL: storeURL))
    }

    func androidDecision(for visitor: Visitor) -> Decision {
        guard let android = compiled.app.android else { return .redirect(compiled.androidWebURL, .web) }
        let listing = StoreLinks.choose(for: android, visitor: visitor, link: compiled.link)
        let toStore = (compiled.link.android.whenAppMissing ?? .store) == .store
        let referrer = StoreLinks.installReferrer(token: request.deferredToken, tags: compiled.referrerTags)
        let storeURL = StoreLinks.android(android, listing: listing, referrer: referrer)
        let fallback = toStore ? storeURL : compiled.androidWebURL
        let inApp = visitor.inAppHost != nil
        let intent = StoreLinks.intent(hostAndPath: request.host + URLBuilder.encodePath(request.path), query: request.passThroughQuery,
                                       package: android.packageName, fallback: fallback)
        let previewPage = compiled.link.previewPage
        if previewPage == .always || (previewPage == .auto && inApp) {
            return .previewPage(page(for: visitor, openInApp: intent, storeURL: storeURL))
        }
        // In-app browsers don't follow intent redirects without a tap.
        if Self.opensIntents(visitor.browser), !inApp { return .redirect(intent, .androidIntent) }
        return .redirect(fallback, toStore ? (listing.store == .googlePlay ? .playStore : .androidStore) : .web)
    }

    /// Browsers known to follow `intent://` redirects (Chrome and browsers built on it).
    static func opensIntents(_ browser: BrowserFamily) -> Bool {
        switch browser {
        case .chrome, .samsungInternet, .edge, .opera, .yandex, .miuiBrowser, .huaweiBrowser: true
        default: false
        }
    }

    func page(for visitor: Visitor, openInApp: String?, storeURL: String?) -> LinkPage {
        let platformWeb = switch visitor.platform {
        case .iOS, .iPadOS: compiled.iosWebURL
        case .android: compiled.androidWebURL
        default: compiled.desktopURL
        }
        // Only a page that offers the store hands out the token.
        let token = storeURL == nil ? nil : request.deferredToken
        let clipboard = visitor.isApple ? token.map { url(on: request.domain.host, extra: [.init(LinkRequest.tokenParameter, $0)]) } : nil
        return LinkPage(compiled: compiled, linkURL: linkURL, platform: visitor.platform, inAppHost: visitor.inAppHost,
                        openInAppURL: openInApp, storeURL: storeURL, clipboardURL: clipboard, webURL: platformWeb, deferredToken: token)
    }
}
