import FerryKit

/// Every sentence the public pages show. English today; a language is one more value of this
/// type, chosen from the visitor's `Accept-Language`.
public struct PageStrings: Sendable {
    public var language: String
    public var openInApp: String
    public var getTheApp: String
    public var continueOnWeb: String
    public var copiedNote: String
    public var openInBrowserTitle: String
    /// `%@` is the app the link was opened in (WeChat).
    public var openInBrowserSteps: [String]
    public var copyLink: String
    public var notFoundTitle: String
    public var notFoundText: String
    public var goneTitle: String
    public var goneText: String
    public var choosingTitle: String

    public static let english = PageStrings(
        language: "en",
        openInApp: "Open in app",
        getTheApp: "Get the app",
        continueOnWeb: "Continue on the web",
        copiedNote: "Tapping “Get the app” copies this link, so the app can open it after you install.",
        openInBrowserTitle: "Open this link in your browser",
        openInBrowserSteps: [
            "Tap ··· in the top-right corner of %@.",
            "Choose “Open in Browser” (on iPhone: “Open in Safari”).",
        ],
        copyLink: "Or copy the link and paste it into your browser:",
        notFoundTitle: "Link not found",
        notFoundText: "This link doesn’t exist. Check that it was copied completely.",
        goneTitle: "This link has expired",
        goneText: "The link you followed is no longer active.",
        choosingTitle: "Opening…")

    /// The strings for the visitor's preferred languages; English when none is translated.
    public static func forLanguages(_ languages: [String]) -> PageStrings {
        .english
    }
}
