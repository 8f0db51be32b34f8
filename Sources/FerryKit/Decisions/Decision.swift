import Foundation

/// What Ferry answers to one link request. Computed by ``decide(link:app:visitor:request:)``,
/// rendered by the server.
public indirect enum Decision: Sendable, Hashable {
    /// `200` HTML with Open Graph, Twitter and App Links tags and no redirect: for the chat and
    /// social apps that draw preview cards.
    case crawlerPreview(LinkPage)
    /// `302` to `url`.
    case redirect(URL, Destination)
    /// The preview page: app icon, title, "Open in app", "Get the app".
    case previewPage(LinkPage)
    /// A page telling the user how to open the link in the system browser (WeChat and hosts
    /// like it block both app links and store links).
    case openInBrowser(LinkPage)
    /// A Mac Safari user agent that may be an iPad in desktop mode: the page decides from
    /// touch support, taking `ipad` on an iPad and `desktopURL` on a Mac.
    case ambiguousIPad(ipad: Decision, desktopURL: URL)
    /// `410`: the link expired or was disabled.
    case gone(LinkPage?)
    /// `404`: no such link.
    case notFound

    public var kind: DecisionKind {
        switch self {
        case .crawlerPreview: .crawlerPreview
        case .redirect(_, let destination): destination.kind
        case .previewPage: .previewPage
        case .openInBrowser: .openInBrowser
        case .ambiguousIPad: .ipadProbe
        case .gone: .gone
        case .notFound: .notFound
        }
    }

    /// The page content, for decisions that render one.
    public var page: LinkPage? {
        switch self {
        case .crawlerPreview(let page), .previewPage(let page), .openInBrowser(let page): page
        case .gone(let page): page
        case .ambiguousIPad(let ipad, _): ipad.page
        case .redirect, .notFound: nil
        }
    }
}

/// Where a redirect leads.
public enum Destination: String, Sendable, Hashable, Codable, CaseIterable {
    case web
    case desktop
    case appStore = "app-store"
    case playStore = "play-store"
    case androidStore = "android-store"
    /// A Chrome `intent://` URL: the app if installed, else its `S.browser_fallback_url`.
    case androidIntent = "android-intent"
    /// The link's own replacement once it expired or was disabled.
    case expiredFallback = "expired-fallback"

    var kind: DecisionKind {
        switch self {
        case .web: .web
        case .desktop: .desktop
        case .appStore: .appStore
        case .playStore: .playStore
        case .androidStore: .androidStore
        case .androidIntent: .androidIntent
        case .expiredFallback: .expiredFallback
        }
    }
}

/// A decision's label for metrics and visit records.
public enum DecisionKind: String, Sendable, Hashable, Codable, CaseIterable {
    case crawlerPreview = "crawler-preview"
    case web
    case desktop
    case appStore = "app-store"
    case playStore = "play-store"
    case androidStore = "android-store"
    case androidIntent = "android-intent"
    case previewPage = "preview-page"
    case openInBrowser = "open-in-browser"
    case ipadProbe = "ipad-probe"
    case gone
    case expiredFallback = "expired-fallback"
    case notFound = "not-found"

    /// Decisions that send a phone toward a store and so leave a deferred intent behind.
    public var leadsTowardStore: Bool {
        switch self {
        case .appStore, .playStore, .androidStore, .androidIntent, .previewPage, .openInBrowser, .ipadProbe: true
        default: false
        }
    }
}

/// Everything a page about a link shows. Values are raw; the renderer escapes them.
public struct LinkPage: Sendable, Hashable {
    public var appName: String
    public var iconURL: URL?
    public var title: String
    public var description: String?
    public var imageURL: URL?
    /// The link itself, as shared (`og:url`).
    public var linkURL: URL
    public var platform: Platform
    public var inAppHost: InAppHost?
    /// "Open in app": the link on the other host (iOS) or an `intent://` URL (Android).
    public var openInAppURL: URL?
    /// "Get the app": the store, with the deferred-intent token where the store carries one.
    public var storeURL: URL?
    /// What "Get the app" copies on iOS: the link with the deferred-intent token.
    public var clipboardURL: URL?
    /// "Continue on the web".
    public var webURL: URL
    public var deferredToken: String?
    public var metadata: PageMetadata
}
