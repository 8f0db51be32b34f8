import Crypto
import Foundation

/// `Ferry-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" under the secret>`.
/// A receiver recomputes it with its copy of the secret, compares in constant time, and
/// refuses old timestamps (replays).
public enum WebhookSignature {
    public static let header = "Ferry-Signature"

    public static func sign(body: String, secret: String, at date: Date) -> String {
        let time = Int(date.timeIntervalSince1970)
        return "t=\(time),v1=\(mac(body: body, secret: secret, time: time))"
    }

    /// Whether `header` signs `body` with `secret`, made within `tolerance` of `now`.
    public static func verify(_ header: String, body: String, secret: String, now: Date = Date(), tolerance: TimeInterval = 300) -> Bool {
        var time: Int?
        var signatures: [String] = []
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            if pair[0] == "t" { time = Int(pair[1]) } else if pair[0] == "v1" { signatures.append(pair[1]) }
        }
        guard let time, abs(now.timeIntervalSince1970 - Double(time)) <= tolerance else { return false }
        let expected = mac(body: body, secret: secret, time: time)
        return signatures.contains { ConstantTime.equal($0.utf8, expected.utf8) }
    }

    private static func mac(body: String, secret: String, time: Int) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Data("\(time).\(body)".utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return Hex.encode(code)
    }
}
