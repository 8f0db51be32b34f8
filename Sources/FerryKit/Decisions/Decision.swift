import Foundation

/// What Ferry answers to one link request. Computed by ``decide(link:app:visitor:request:)``,
/// rendered by the server.
public enum Decision: Sendable, Hashable {
    /// `200` HTML with Open Graph, Twitter and App Links tags and no redirect: for the chat and
    /// social apps that draw preview cards.
    case crawlerPreview(LinkPage)
    /// `302` to the absolute URL, built by Ferry from validated parts (safe for `Location`).
    case redirect(String, Destination)
    /// The preview page: app icon, title, "Open in app", "Get the app".
    case previewPage(LinkPage)
    /// A page telling the user how to open the link in the system browser (WeChat and hosts
    /// like it block both app links and store links).
    case openInBrowser(LinkPage)
    /// A Mac Safari user agent that may be an iPad in desktop mode: the page decides from
    /// touch support, taking the probe's iPad decision on an iPad and its desktop URL on a Mac.
    case ambiguousIPad(IPadProbe)
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

    /// Whether the request's deferred-intent `token` travels with this answer: in the URL a
    /// page's "Get the app" copies, or in the Play Store's install referrer.
    public func handsOut(token: String) -> Bool {
        switch self {
        case .redirect(let location, let destination):
            (destination == .playStore || destination == .androidIntent) && location.contains(token)
        case .ambiguousIPad(let probe):
            probe.ipad.handsOut(token: token)
        default:
            page?.deferredToken == token
        }
    }

    /// The page content, for decisions that render one.
    public var page: LinkPage? {
        switch self {
        case .crawlerPreview(let page), .previewPage(let page), .openInBrowser(let page): page
        case .gone(let page): page
        case .ambiguousIPad(let probe): probe.ipad.page
        case .redirect, .notFound: nil
        }
    }
}

/// The two answers for a visitor who may be an iPad in desktop mode or a Mac.
public final class IPadProbe: Sendable, Hashable {
    /// What an iPad gets.
    public let ipad: Decision
    /// Where a Mac goes.
    public let desktopURL: String

    public init(ipad: Decision, desktopURL: String) {
        self.ipad = ipad
        self.desktopURL = desktopURL
    }

    public static func == (lhs: IPadProbe, rhs: IPadProbe) -> Bool {
        lhs.ipad == rhs.ipad && lhs.desktopURL == rhs.desktopURL
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ipad)
        hasher.combine(desktopURL)
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

    /// Every destination is also a decision kind of the same name.
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

/// Everything a page about a link shows. Values are raw; the renderer escapes them. URLs are
/// absolute URL strings that Ferry built from the app's and the link's validated settings.
public struct LinkPage: Sendable, Hashable {
    /// The link and app the page is about.
    public let compiled: CompiledLink
    /// The link itself, as requested (`og:url`).
    public var linkURL: String
    public var platform: Platform
    public var inAppHost: InAppHost?
    /// "Open in app": the link on the other host (iOS) or an `intent://` URL (Android).
    public var openInAppURL: String?
    /// "Get the app": the store, with the deferred-intent token where the store carries one.
    public var storeURL: String?
    /// What "Get the app" copies on iOS: the link with the deferred-intent token.
    public var clipboardURL: String?
    /// "Continue on the web".
    public var webURL: String
    public var deferredToken: String?

    public var appName: String { compiled.app.name }
    public var iconURL: URL? { compiled.app.iconURL }
    public var title: String { compiled.link.preview.title ?? compiled.app.name }
    public var description: String? { compiled.link.preview.description }
    public var imageURL: URL? { compiled.link.preview.imageURL }

    /// The `<head>` tags, built when the page is rendered rather than when it is decided.
    public var metadata: PageMetadata {
        PageMetadata(app: compiled.app, link: compiled.link, linkURL: linkURL, webURL: compiled.desktopURL,
                     appURL: compiled.customSchemeURL ?? linkURL)
    }

    public static func == (lhs: LinkPage, rhs: LinkPage) -> Bool {
        lhs.compiled === rhs.compiled && lhs.linkURL == rhs.linkURL && lhs.platform == rhs.platform
            && lhs.inAppHost == rhs.inAppHost && lhs.openInAppURL == rhs.openInAppURL && lhs.storeURL == rhs.storeURL
            && lhs.clipboardURL == rhs.clipboardURL && lhs.webURL == rhs.webURL && lhs.deferredToken == rhs.deferredToken
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(compiled))
        hasher.combine(linkURL)
        hasher.combine(openInAppURL)
        hasher.combine(deferredToken)
    }
}
