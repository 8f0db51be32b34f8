import Foundation

/// The `<head>` tags that make a link look right where it is shared: Open Graph, Twitter/X
/// cards, Meta's App Links (`al:*`) and Safari's smart app banner.
///
/// ```swift
/// let metadata = PageMetadata(app: app, link: link, linkURL: "https://go.acme.com/x7Kp2", webURL: web, appURL: scheme)
/// let head = metadata.html   // <meta property="og:title" content="…"> …, every value escaped
/// ```
public struct PageMetadata: Sendable, Hashable {
    public struct Tag: Sendable, Hashable {
        /// `property` for Open Graph and App Links, `name` for the others, as each consumer expects.
        public var attribute: String
        public var key: String
        public var content: String
    }

    public var title: String
    public var description: String?
    public var tags: [Tag]

    public init(title: String, description: String?, tags: [Tag]) {
        self.title = title
        self.description = description
        self.tags = tags
    }

    /// - Parameters:
    ///   - linkURL: the shared URL (`og:url`).
    ///   - webURL: the web page (`al:web:url`).
    ///   - appURL: what the app opens (`al:ios:url`, `twitter:app:url:*`): the route's custom
    ///     scheme URL, or the link itself for universal links.
    public init(app: App, link: Link, linkURL: String, webURL: String, appURL: String) {
        let title = link.preview.title ?? app.name
        let description = link.preview.description
        var tags: [Tag] = []
        func add(_ attribute: String, _ key: String, _ content: String?) {
            guard let content, !content.isEmpty else { return }
            tags.append(Tag(attribute: attribute, key: key, content: content))
        }
        add("name", "description", description)
        add("property", "og:title", title)
        add("property", "og:type", "website")
        add("property", "og:url", linkURL)
        add("property", "og:site_name", app.name)
        add("property", "og:description", description)
        add("property", "og:image", (link.preview.imageURL ?? app.iconURL)?.absoluteString)

        add("name", "twitter:card", link.preview.imageURL != nil ? "summary_large_image" : "summary")
        add("name", "twitter:title", Self.truncated(title, to: 70))
        add("name", "twitter:description", description.map { Self.truncated($0, to: 200) })
        add("name", "twitter:image", (link.preview.imageURL ?? app.iconURL)?.absoluteString)
        if let ios = app.ios, let storeID = ios.appStoreID {
            add("name", "twitter:app:name:iphone", app.name)
            add("name", "twitter:app:id:iphone", storeID)
            add("name", "twitter:app:url:iphone", appURL)
            add("name", "twitter:app:name:ipad", app.name)
            add("name", "twitter:app:id:ipad", storeID)
            add("name", "twitter:app:url:ipad", appURL)
        }
        if let android = app.android {
            add("name", "twitter:app:name:googleplay", app.name)
            add("name", "twitter:app:id:googleplay", android.packageName)
            add("name", "twitter:app:url:googleplay", appURL)
        }

        if let ios = app.ios {
            add("property", "al:ios:url", appURL)
            add("property", "al:ios:app_store_id", ios.appStoreID)
            add("property", "al:ios:app_name", app.name)
        }
        if let android = app.android {
            add("property", "al:android:url", appURL)
            add("property", "al:android:package", android.packageName)
            add("property", "al:android:app_name", app.name)
        }
        add("property", "al:web:url", webURL)
        add("property", "al:web:should_fallback", "true")

        if let ios = app.ios, let storeID = ios.appStoreID {
            // The banner's content is a comma-separated list, so the argument's commas are encoded.
            var banner = "app-id=\(storeID), app-argument=\(linkURL.replacingOccurrences(of: ",", with: "%2C"))"
            if let clip = ios.appClipBundleID { banner += ", app-clip-bundle-id=\(clip)" }
            add("name", "apple-itunes-app", banner)
        }
        self.init(title: title, description: description, tags: tags)
    }

    /// The tags as HTML, one per line, with every value escaped for a quoted attribute.
    public var html: String {
        var out = "<title>\(Escaping.html(title))</title>\n"
        for tag in tags {
            out += "<meta \(tag.attribute)=\"\(Escaping.html(tag.key))\" content=\"\(Escaping.html(tag.content))\">\n"
        }
        return out
    }

    /// The tag's content, for tests and previews.
    public func content(of key: String) -> String? {
        tags.first { $0.key == key }?.content
    }

    /// At most `limit` characters, cut at a word boundary with an ellipsis.
    static func truncated(_ text: String, to limit: Int) -> String {
        guard text.count > limit else { return text }
        let cut = text.prefix(limit - 1)
        let word = cut.lastIndex(of: " ").map { cut[..<$0] } ?? cut
        return (word.count > limit / 2 ? String(word) : String(cut)) + "…"
    }
}
