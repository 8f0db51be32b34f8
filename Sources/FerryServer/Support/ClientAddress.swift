import Atomics
import Crypto
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import HTTPTypes
import NIOPosix

/// Where a request came from: the socket's peer, or — only when that peer is a trusted proxy —
/// the client named in `Forwarded` / `X-Forwarded-For`.
public struct ClientAddress: Sendable {
    /// Proxies whose forwarding headers are believed: exact addresses or IPv4 CIDR ranges
    /// (`10.0.0.0/8`, `127.0.0.1`).
    public let trustedProxies: [String]
    /// The header in which a trusted proxy names the client's country (`CF-IPCountry`).
    public let countryHeader: HTTPField.Name?

    public init(trustedProxies: [String], countryHeader: String? = nil) {
        self.trustedProxies = trustedProxies
        self.countryHeader = countryHeader.flatMap { $0.isEmpty ? nil : HTTPField.Name($0) }
    }

    /// The ISO 3166 code a trusted proxy gave, upper-cased; `nil` from anyone else, or for
    /// anything but two letters (Cloudflare's `XX` means unknown).
    public func country(peer: String?, headers: HTTPFields) -> String? {
        guard let countryHeader, let peer, let value = headers[countryHeader], value.utf8.count == 2, isTrusted(peer) else { return nil }
        let code = value.uppercased()
        guard code.utf8.allSatisfy({ (0x41...0x5A).contains($0) }), code != "XX" else { return nil }
        return code
    }

    public func clientIP(peer: String?, headers: HTTPFields) -> String {
        guard let peer else { return "unknown" }
        guard isTrusted(peer) else { return peer }
        // Walk the chain from the nearest hop back; the first address we don't trust is the client.
        var chain: [String] = []
        if let forwarded = headers[.forwarded] {
            for element in forwarded.split(separator: ",") {
                for pair in element.split(separator: ";") {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "for" {
                        chain.append(Self.cleaned(String(parts[1])))
                    }
                }
            }
        } else if let forwardedFor = headers[.xForwardedFor] {
            chain = forwardedFor.split(separator: ",").map { Self.cleaned(String($0)) }
        }
        for address in chain.reversed() where !address.isEmpty {
            if !isTrusted(address) { return address }
        }
        return chain.first ?? peer
    }

    /// `"[2001:db8::1]:443"` → `2001:db8::1`, `"203.0.113.9"` → itself.
    static func cleaned(_ raw: String) -> String {
        var text = raw.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            text = String(text[text.index(after: text.startIndex)..<close])
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            text = String(text[..<colon])
        }
        return text
    }

    func isTrusted(_ address: String) -> Bool {
        trustedProxies.contains { rule in
            if let slash = rule.firstIndex(of: "/"), let bits = Int(rule[rule.index(after: slash)...]),
               let network = Self.ipv4(String(rule[..<slash])), let value = Self.ipv4(address), (0...32).contains(bits) {
                let mask: UInt32 = bits == 0 ? 0 : ~UInt32(0) << (32 - UInt32(bits))
                return network & mask == value & mask
            }
            return rule == address
        }
    }

    static func ipv4(_ text: String) -> UInt32? {
        let parts = text.split(separator: ".")
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard let byte = UInt8(part) else { return nil }
            value = value << 8 | UInt32(byte)
        }
        return value
    }
}

/// Keyed hashes of IP addresses: the same IP always gives the same hash under one
/// installation's secret, and the hash says nothing about the IP without it.
public struct IPHasher: Sendable {
    /// HMAC keyed once; each hash starts from a copy of it. `HMAC` is not `Sendable`, and
    /// this box never changes its value.
    private final class Keyed: @unchecked Sendable {
        let mac: HMAC<SHA256>
        init(_ mac: HMAC<SHA256>) { self.mac = mac }
    }

    private let keyed: Keyed

    public init(secret: String) {
        let key = SymmetricKey(data: SHA256.hash(data: Data(("ferry-ip:" + secret).utf8)))
        keyed = Keyed(HMAC<SHA256>(key: key))
    }

    public func hash(_ ip: String) -> String {
        // Clicks on one keep-alive connection come from one address: each thread remembers
        // the last address it hashed.
        let scratch = ThreadScratch.current
        let hasher = ObjectIdentifier(keyed)
        if scratch.lastHasher == hasher, scratch.lastIP == ip { return scratch.lastIPHash }
        var mac = keyed.mac
        var bytes = ip
        bytes.withUTF8 { mac.update(data: UnsafeRawBufferPointer($0)) }
        let hash = Hex.encode(mac.finalize())
        (scratch.lastHasher, scratch.lastIP, scratch.lastIPHash) = (hasher, ip, hash)
        return hash
    }
}

/// Unguessable tokens for deferred intents and API keys.
public enum Tokens {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// `bytes` random bytes as URL-safe base64 without padding (6 bits per character).
    public static func random(bytes: Int = 16) -> String {
        let scratch = ThreadScratch.current
        var out = [UInt8]()
        out.reserveCapacity((bytes * 4 + 2) / 3)
        var buffer: UInt64 = 0
        var bits = 0
        for _ in 0..<bytes {
            buffer = buffer << 8 | UInt64(scratch.randomByte())
            bits += 8
            while bits >= 6 {
                bits -= 6
                out.append(alphabet[Int((buffer >> UInt64(bits)) & 63)])
            }
        }
        if bits > 0 { out.append(alphabet[Int((buffer << UInt64(6 - bits)) & 63)]) }
        return String(decoding: out, as: UTF8.self)
    }
}

/// What the hot path keeps per thread, so that a click needs no system call and no lock for
/// it: random bytes drawn from the system's generator a block at a time, and the last IP
/// address hashed.
/// Never shared: each instance is reached only through its own thread's slot.
final class ThreadScratch: @unchecked Sendable {
    private static let perThread = ThreadSpecificVariable<ThreadScratch>()

    private static let created = ManagedAtomic(0)

    static var current: ThreadScratch {
        if let scratch = perThread.currentValue { return scratch }
        let scratch = ThreadScratch(number: created.loadThenWrappingIncrement(ordering: .relaxed))
        perThread.currentValue = scratch
        return scratch
    }

    /// This thread's number, in the order threads first asked (picks its visit queue shard).
    let number: Int

    private init(number: Int) {
        self.number = number
    }

    private var random = [UInt8](repeating: 0, count: 4096)
    private var used = 4096
    var lastHasher: ObjectIdentifier?
    var lastIP = ""
    var lastIPHash = ""
    /// The last link domain this thread served (``Catalog``).
    var host: WarmHost?

    /// A byte from the system's cryptographic generator (`arc4random_buf`, which asks the
    /// kernel), fetched 4 KB at a time; each byte is handed out once.
    func randomByte() -> UInt8 {
        if used == random.count {
            random.withUnsafeMutableBytes { arc4random_buf($0.baseAddress!, $0.count) }
            used = 0
        }
        defer { used += 1 }
        return random[used]
    }
}

/// Equality of secrets in time that does not depend on where they differ.
enum ConstantTime {
    static func equal(_ a: some Sequence<UInt8>, _ b: some Sequence<UInt8>) -> Bool {
        let (x, y) = (Array(a), Array(b))
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// Lowercase hex, without `String(format:)` (which is slow on Linux).
enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var out = [UInt8]()
        out.reserveCapacity(64)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
