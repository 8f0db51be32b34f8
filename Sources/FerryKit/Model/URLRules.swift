import Foundation

/// What Ferry accepts as a destination, a host or a scheme. Everything a link can send a
/// visitor to passes through here when it is saved.
public enum URLRules {
    /// Schemes that run code or read local data when a browser navigates to them.
    static let dangerousSchemes: Set<String> = ["javascript", "vbscript", "data", "file", "blob", "about", "filesystem"]

    /// Parses and checks an absolute `http(s)` URL a visitor may be sent to.
    public static func webURL(_ text: String, field: String) throws(ValidationError) -> URL {
        guard let url = URL(string: text.trimmingCharacters(in: .whitespaces)), url.scheme != nil else {
            throw .invalid(field, "'\(text.prefix(200))' is not an absolute URL")
        }
        try checkWebURL(url, field: field)
        return url
    }

    public static func checkWebURL(_ url: URL, field: String) throws(ValidationError) {
        let scheme = url.scheme?.lowercased() ?? ""
        if dangerousSchemes.contains(scheme) {
            throw .unsafe(field, "\(scheme): URLs are not allowed as destinations")
        }
        guard scheme == "https" || scheme == "http" else {
            throw .invalid(field, "'\(url.absoluteString.prefix(200))' must be an http or https URL")
        }
        guard let host = url.host, !host.isEmpty else {
            throw .invalid(field, "'\(url.absoluteString.prefix(200))' has no host")
        }
        guard url.user == nil, url.password == nil else {
            throw .unsafe(field, "URLs with a user name or password ('user@host') are not allowed: they hide the real host")
        }
        guard url.absoluteString.utf8.count <= 2048 else {
            throw .invalid(field, "the URL is longer than 2,048 characters")
        }
        if let problem = problem(withHost: host, allowPort: true) { throw .invalid(field, problem) }
    }

    /// A scheme for the app (`acme`, `com.acme.app`) per RFC 3986, and not one a browser
    /// treats specially.
    public static func checkCustomScheme(_ scheme: String, field: String) throws(ValidationError) {
        let lower = scheme.lowercased()
        guard let first = lower.utf8.first, isLetter(first), lower.utf8.count <= 64,
              lower.utf8.allSatisfy({ isAlphanumeric($0) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E }) else {
            throw .invalid(field, "'\(scheme)' is not a URL scheme: use letters, digits, '+', '-' and '.', starting with a letter (no '://')")
        }
        if dangerousSchemes.contains(lower) { throw .unsafe(field, "'\(scheme)' cannot be an app's scheme") }
        if lower == "http" || lower == "https" || lower == "intent" {
            throw .invalid(field, "'\(scheme)' is not a custom scheme")
        }
    }

    /// What is wrong with a host name, or `nil`.
    public static func problem(withHost host: String, allowPort: Bool = false) -> String? {
        guard !host.isEmpty, host.utf8.count <= 253 else { return "a host name must have 1–253 characters" }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        for label in labels {
            guard !label.isEmpty, label.utf8.count <= 63,
                  label.utf8.allSatisfy({ isAlphanumeric($0) || $0 == 0x2D || $0 == 0x5F }),
                  label.first != "-", label.last != "-" else {
                if allowPort, host.hasPrefix("[") { return nil }  // IPv6 literal
                return "'\(host)' is not a valid host name"
            }
        }
        return nil
    }

    static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }

    static func isAlphanumeric(_ byte: UInt8) -> Bool {
        isLetter(byte) || (byte >= 0x30 && byte <= 0x39)
    }
}

extension URLRules {
    /// The app path a custom-scheme URL stands for: `acme://u/42?x=1` → `/u/42` (host and path
    /// joined, percent-encoding kept), as the app's route table reads it.
    public static func appPath(ofCustomScheme components: URLComponents) -> String {
        "/" + [components.host, String(components.percentEncodedPath.drop { $0 == "/" })]
            .compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: "/")
    }
}
