import Foundation

/// The parts of a link request the decision needs besides the visitor.
public struct LinkRequest: Sendable, Hashable {
    public struct QueryItem: Sendable, Hashable {
        public var name: String
        public var value: String

        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Query parameters starting with this belong to Ferry (`ferry_token`) and are never
    /// passed to the app or the web page.
    public static let reservedQueryPrefix = "ferry_"
    /// The query parameter that carries a deferred-intent token in copied and referrer URLs.
    public static let tokenParameter = "ferry_token"

    /// The domain the request came to.
    public var domain: Domain
    /// The `Host` the request used: the domain's host or its alternate host.
    public var host: String
    public var path: String
    public var query: [QueryItem]
    public var now: Date
    /// A fresh deferred-intent token, made by the caller so that deciding stays pure. It is
    /// used only when the decision sends a phone toward a store.
    public var deferredToken: String?

    public init(domain: Domain, host: String? = nil, path: String, query: [QueryItem] = [], now: Date = Date(), deferredToken: String? = nil) {
        self.domain = domain
        self.host = (host ?? domain.host).lowercased()
        self.path = path
        self.query = query
        self.now = now
        self.deferredToken = deferredToken
    }

    /// The query without Ferry's own parameters.
    var passThroughQuery: [QueryItem] {
        query.filter { !$0.name.hasPrefix(Self.reservedQueryPrefix) }
    }

    /// `https://HOST/PATH?QUERY` on the given host.
    func url(on host: String, extra: [QueryItem] = []) -> URL {
        URLBuilder.url(scheme: "https", host: host, path: path, query: passThroughQuery + extra)
    }
}

/// Builds URLs from parts, encoding each part for its position.
enum URLBuilder {
    static func url(scheme: String, host: String, path: String, query: [LinkRequest.QueryItem]) -> URL {
        var text = "\(scheme)://\(host)\(encodePath(path))"
        if !query.isEmpty { text += "?" + encodeQuery(query) }
        // Every part was encoded above, so this cannot fail for a valid host.
        return URL(string: text) ?? URL(string: "\(scheme)://\(host)/")!
    }

    static func appending(_ items: [LinkRequest.QueryItem], to url: URL) -> URL {
        guard !items.isEmpty else { return url }
        var text = url.absoluteString
        var fragment = ""
        if let hash = text.firstIndex(of: "#") {
            fragment = String(text[hash...])
            text = String(text[..<hash])
        }
        text += (text.contains("?") ? "&" : "?") + encodeQuery(items) + fragment
        return URL(string: text) ?? url
    }

    static func encodeQuery(_ items: [LinkRequest.QueryItem]) -> String {
        items.map { Escaping.percentEncode($0.name) + "=" + Escaping.percentEncode($0.value) }.joined(separator: "&")
    }

    /// Keeps `/` and characters already legal in a path; encodes the rest (spaces, quotes, `?`, `#`).
    static func encodePath(_ path: String) -> String {
        var out = ""
        for byte in path.utf8 {
            if Escaping.isUnreserved(byte) || "/:@!$&'()*+,;=%".utf8.contains(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }
}
