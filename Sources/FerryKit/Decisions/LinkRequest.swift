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

    /// The path with its query as requested, Ferry's own parameters removed (`/u/42?ref=mail`).
    public var pathWithQuery: String {
        let query = passThroughQuery
        return query.isEmpty ? path : path + "?" + URLBuilder.encodeQuery(query)
    }

    /// The query without Ferry's own parameters.
    var passThroughQuery: [QueryItem] {
        guard query.contains(where: { $0.name.hasPrefix(Self.reservedQueryPrefix) }) else { return query }
        return query.filter { !$0.name.hasPrefix(Self.reservedQueryPrefix) }
    }

}

/// Builds URLs from parts, encoding each part for its position.
enum URLBuilder {
    static func appending(_ items: [LinkRequest.QueryItem], to url: String) -> String {
        guard !items.isEmpty else { return url }
        var text = url
        var fragment = ""
        if let hash = text.firstIndex(of: "#") {
            fragment = String(text[hash...])
            text = String(text[..<hash])
        }
        return text + (text.contains("?") ? "&" : "?") + encodeQuery(items) + fragment
    }

    static func encodeQuery(_ items: [LinkRequest.QueryItem]) -> String {
        var out = ""
        for (index, item) in items.enumerated() {
            if index > 0 { out += "&" }
            out += Escaping.percentEncode(item.name)
            out += "="
            out += Escaping.percentEncode(item.value)
        }
        return out
    }

    /// Keeps `/` and characters already legal in a path; encodes the rest (spaces, quotes, `?`, `#`).
    static func encodePath(_ path: String) -> String {
        Escaping.encode(path, keeping: pathBytes)
    }

    private static let pathBytes: [Bool] = (0..<256).map { byte in
        Escaping.isUnreserved(UInt8(byte)) || "/:@!$&'()*+,;=%".utf8.contains(UInt8(byte))
    }
}
