/// Something a Digital Asset Links statement can be about: a web site or an Android app.
public enum Asset: Sendable, Hashable, CustomStringConvertible {
    case web(WebSite)
    case androidApp(AndroidAppAsset)

    public var description: String {
        switch self {
        case .web(let site): site.description
        case .androidApp(let app): "android_app:\(app.packageName)"
        }
    }

    /// Whether a statement about `self` covers the asset a query names: the same site
    /// (scheme, host and port), or the same package with the queried certificate among the
    /// statement's fingerprints.
    func covers(_ query: Asset) -> Bool {
        switch (self, query) {
        case (.web(let site), .web(let other)): site == other
        case (.androidApp(let app), .androidApp(let other)):
            app.packageName == other.packageName && other.fingerprints.allSatisfy(app.fingerprints.contains)
        default: false
        }
    }
}

/// A web site as Digital Asset Links sees it: scheme, host and port, nothing else.
public struct WebSite: Sendable, Hashable, CustomStringConvertible {
    public let scheme: String
    public let host: String
    public let port: Int

    public var isSecure: Bool { scheme == "https" }

    /// Parses `https://example.com`, `HTTP://Example.com.:8080`…; the message of the error
    /// says what is wrong in the words of Google's reference implementation.
    public init(site: String) throws(AssetLinksError) {
        guard let schemeEnd = site.range(of: "://") else {
            throw .malformed("Invalid site '\(site)': Url is not well formatted")
        }
        let scheme = site[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else {
            throw .malformed("Invalid site '\(site)': non-HTTP URL")
        }
        let rest = site[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard !authority.contains("@") else {
            throw .malformed("Invalid site '\(site)': a site cannot carry login information")
        }
        var host = Substring(authority)
        var port = scheme == "https" ? 443 : 80
        if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            let digits = authority[authority.index(after: colon)...]
            guard !digits.isEmpty, digits.count <= 5, let value = Int(digits), value > 0, value <= 65535 else {
                throw .malformed("Invalid site '\(site)': not a valid URL (bad port)")
            }
            port = value
        }
        if host.hasSuffix(".") { host = host.dropLast() }
        guard URLRules.problem(withHost: String(host)) == nil else {
            throw .malformed("Invalid site '\(site)': not a valid URL (bad host)")
        }
        switch rest[authorityEnd...].first {
        case "/"?: throw .malformed("Invalid site '\(site)': a site cannot contain a path")
        case "?"?: throw .malformed("Invalid site '\(site)': a site cannot have query parameters")
        case "#"?: throw .malformed("Invalid site '\(site)': a site cannot have fragment identifiers")
        default: break
        }
        self.scheme = scheme
        self.host = host.lowercased()
        self.port = port
    }

    /// `https://example.com.` with `:port` when it is not the scheme's default — the form
    /// Google's API answers with.
    public var description: String {
        let defaultPort = scheme == "https" ? 443 : 80
        return "\(scheme)://\(host)." + (port == defaultPort ? "" : ":\(port)")
    }

    /// Where the site's statement list lives.
    public var statementListURL: String {
        let defaultPort = scheme == "https" ? 443 : 80
        return "\(scheme)://\(host)" + (port == defaultPort ? "" : ":\(port)") + "/.well-known/assetlinks.json"
    }
}

/// An Android app as Digital Asset Links sees it: a package and signing certificates.
public struct AndroidAppAsset: Sendable, Hashable {
    public let packageName: String
    /// Uppercase, colon-separated SHA-256 fingerprints.
    public let fingerprints: [String]

    public init(packageName: String, fingerprints: [String]) {
        self.packageName = packageName
        self.fingerprints = fingerprints
    }

    /// Exactly 32 uppercase hex bytes separated by colons, as statements must write them.
    public static func isWellFormed(fingerprint: String) -> Bool {
        let bytes = Array(fingerprint.utf8)
        guard bytes.count == 95 else { return false }
        for (index, byte) in bytes.enumerated() {
            if index % 3 == 2 {
                guard byte == UInt8(ascii: ":") else { return false }
            } else {
                guard (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) else { return false }
            }
        }
        return true
    }

    /// Package names as Android accepts them: dot-separated parts of letters, digits and `_`,
    /// each starting with a letter.
    public static func isValid(packageName: String) -> Bool {
        guard !packageName.isEmpty, packageName.utf8.count <= 255 else { return false }
        return packageName.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { part in
            guard let first = part.utf8.first, URLRules.isLetter(first) else { return false }
            return part.utf8.allSatisfy { URLRules.isAlphanumeric($0) || $0 == 0x5F }
        }
    }
}

/// Relation strings: `kind/detail`, where kind is `delegate_permission` or `navigate` and the
/// detail holds lowercase letters, digits, `_` and `.`.
public enum AssetRelation {
    public static let handleAllURLs = "delegate_permission/common.handle_all_urls"
    public static let getLoginCredentials = "delegate_permission/common.get_login_creds"
    static let kinds: Set<Substring> = ["delegate_permission", "navigate"]

    public static func validate(_ relation: String) throws(AssetLinksError) {
        let parts = relation.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw .malformed("Invalid relation string '\(relation)': expected kind/detail") }
        guard kinds.contains(parts[0]) else {
            throw .malformed("Invalid 'kind' field in relation string '\(relation)': expected delegate_permission or navigate")
        }
        guard !parts[1].isEmpty, parts[1].utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F || $0 == 0x2E }) else {
            throw .malformed("Invalid 'detail' field in relation string '\(relation)': use lowercase letters, digits, '_' and '.'")
        }
    }
}

/// What went wrong while reading statements or answering a query.
public struct AssetLinksError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// The query itself is wrong (bad site, bad fingerprint, bad relation).
        case queryParsing = "QUERY_PARSING_ERROR"
        /// A statement list or one of its statements is malformed.
        case malformedContent = "ERROR_CODE_MALFORMED_CONTENT"
        /// A statement list could not be fetched.
        case fetch = "ERROR_CODE_FETCH_ERROR"
        /// A secure (https or app) source pulled in an http include.
        case secureIncludesInsecure = "ERROR_CODE_SECURE_ASSET_INCLUDES_INSECURE"
        /// Includes went on too long (a loop, say).
        case fetchBudgetExhausted = "ERROR_CODE_FETCH_BUDGET_EXHAUSTED"
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    static func malformed(_ message: String) -> AssetLinksError { AssetLinksError(.malformedContent, message) }
    static func query(_ message: String) -> AssetLinksError { AssetLinksError(.queryParsing, message) }

    public var description: String { message }
}
