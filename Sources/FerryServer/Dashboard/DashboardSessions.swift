import Crypto
import Foundation

/// Dashboard sign-ins as signed cookies: `keyID.expiry.nonce.mac`, the MAC keyed by the
/// installation's secret, so every node accepts a session any node made and nothing is stored.
/// A session lasts 12 hours and ends early when its API key is revoked (checked on every
/// request). Forms carry a CSRF token derived from the session's nonce.
struct DashboardSessions: Sendable {
    static let cookieName = "ferry_session"
    static let lifetime: TimeInterval = 12 * 3600

    struct Session: Sendable, Hashable {
        let keyID: String
        let expires: Date
        let nonce: String
        /// The token every form of this session carries.
        let csrf: String
    }

    private let keyBytes: [UInt8]

    init(secret: String) {
        keyBytes = Array(SHA256.hash(data: Data("ferry-dashboard|\(secret)".utf8)))
    }

    /// A new session for an API key, and the cookie value that carries it.
    func issue(keyID: String, now: Date = Date()) -> (value: String, session: Session) {
        let nonce = Tokens.random(bytes: 16)
        let expiry = Int(now.timeIntervalSince1970 + Self.lifetime)
        let body = "\(keyID).\(expiry).\(nonce)"
        return (body + "." + mac(body), Session(keyID: keyID, expires: Date(timeIntervalSince1970: Double(expiry)), nonce: nonce, csrf: csrf(nonce)))
    }

    /// The session a cookie value carries, if it is genuine and not expired.
    func read(_ value: String, now: Date = Date()) -> Session? {
        let parts = value.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 4, let expiry = Int(parts[1]), Double(expiry) > now.timeIntervalSince1970 else { return nil }
        let body = parts[0...2].joined(separator: ".")
        guard Self.same(mac(body), parts[3]) else { return nil }
        return Session(keyID: parts[0], expires: Date(timeIntervalSince1970: Double(expiry)), nonce: parts[2], csrf: csrf(parts[2]))
    }

    private func csrf(_ nonce: String) -> String {
        String(mac("csrf|" + nonce).prefix(32))
    }

    /// The token of the sign-in form, bound to a nonce in a cookie of its own (there is no
    /// session yet to bind it to).
    static let signInCookieName = "ferry_signin"

    func signInToken(_ nonce: String) -> String {
        String(mac("signin|" + nonce).prefix(32))
    }

    private func mac(_ text: String) -> String {
        Hex.encode(HMAC<SHA256>.authenticationCode(for: Data(text.utf8), using: SymmetricKey(data: keyBytes)))
    }

    /// Constant-time comparison.
    static func same(_ a: String, _ b: String) -> Bool {
        ConstantTime.equal(a.utf8, b.utf8)
    }
}
