/// The request headers that classification reads. Everything else about a request is
/// irrelevant to who the visitor is.
public struct RequestHeaders: Sendable, Hashable {
    public var userAgent: String
    public var acceptLanguage: String?
    /// `Sec-CH-UA-Platform`, e.g. `"Android"` (quotes included, as sent).
    public var platformHint: String?
    /// `Sec-CH-UA-Platform-Version`, e.g. `"14.0.0"`.
    public var platformVersionHint: String?
    /// `Sec-CH-UA-Mobile`: `?1` or `?0`.
    public var mobileHint: String?
    /// `Sec-CH-UA-Model`, e.g. `"Pixel 8"`.
    public var modelHint: String?

    public init(
        userAgent: String, acceptLanguage: String? = nil, platformHint: String? = nil,
        platformVersionHint: String? = nil, mobileHint: String? = nil, modelHint: String? = nil
    ) {
        self.userAgent = userAgent
        self.acceptLanguage = acceptLanguage
        self.platformHint = platformHint
        self.platformVersionHint = platformVersionHint
        self.mobileHint = mobileHint
        self.modelHint = modelHint
    }

    /// Reads the headers Ferry cares about from any name → value lookup (names are
    /// case-insensitive in HTTP; pass a lookup that honours that).
    public init(_ header: (String) -> String?) {
        self.init(
            userAgent: header("user-agent") ?? "",
            acceptLanguage: header("accept-language"),
            platformHint: header("sec-ch-ua-platform"),
            platformVersionHint: header("sec-ch-ua-platform-version"),
            mobileHint: header("sec-ch-ua-mobile"),
            modelHint: header("sec-ch-ua-model"))
    }
}

extension RequestHeaders {
    /// Language tags of `Accept-Language`, ordered by quality, at most `limit`.
    ///
    /// `"de-CH, fr;q=0.9, en;q=0.8, *;q=0.1"` → `["de-CH", "fr", "en"]`.
    static func languages(from header: String?, limit: Int = 5) -> [String] {
        guard let header, !header.isEmpty else { return [] }
        var weighted: [(tag: String, quality: Double, order: Int)] = []
        for (order, part) in header.split(separator: ",").enumerated() where order < 32 {
            let pieces = part.split(separator: ";")
            guard let first = pieces.first else { continue }
            let tag = first.trimmingSpaces()
            guard !tag.isEmpty, tag != "*", tag.utf8.count <= 35,
                  tag.utf8.allSatisfy({ isTagByte($0) }) else { continue }
            var quality = 1.0
            for parameter in pieces.dropFirst() {
                let trimmed = parameter.trimmingSpaces()
                if trimmed.hasPrefix("q="), let value = Double(trimmed.dropFirst(2)) {
                    quality = value
                }
            }
            if quality > 0 { weighted.append((tag, quality, order)) }
        }
        weighted.sort { $0.quality != $1.quality ? $0.quality > $1.quality : $0.order < $1.order }
        return weighted.prefix(limit).map(\.tag)
    }

    private static func isTagByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D || byte == 0x5F
    }
}

extension Substring {
    func trimmingSpaces() -> String {
        var start = startIndex
        var end = endIndex
        while start < end, self[start] == " " || self[start] == "\t" { start = index(after: start) }
        while end > start, self[index(before: end)] == " " || self[index(before: end)] == "\t" { end = index(before: end) }
        return String(self[start..<end])
    }
}
