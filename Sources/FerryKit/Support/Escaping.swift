/// Escaping for the contexts where Ferry puts user-supplied text.
public enum Escaping {
    /// Text safe inside a double- or single-quoted HTML attribute, and in element content.
    ///
    /// ```swift
    /// Escaping.html(#"<b title="x">"#)   // "&lt;b title=&quot;x&quot;&gt;"
    /// ```
    public static func html(_ text: String) -> String {
        var needsWork = false
        for byte in text.utf8 where byte == 0x26 || byte == 0x3C || byte == 0x3E || byte == 0x22 || byte == 0x27 || byte < 0x20 {
            needsWork = true
            break
        }
        guard needsWork else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\n", "\t": out.unicodeScalars.append(scalar)
            case "\r": out += " "
            default:
                // Other control characters are not allowed in HTML text; drop them.
                if scalar.value < 0x20 || scalar.value == 0x7F { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A JavaScript string literal (with its double quotes) that is also safe inside an
    /// inline `<script>` element: `<`, `>`, `&`, U+2028 and U+2029 are written as escapes,
    /// so `</script>` can never close the element. Every escape it writes is valid JSON too.
    public static func javaScriptString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "<", ">", "&", "'", "\u{2028}", "\u{2029}":
                out += unicodeEscape(scalar.value)
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += unicodeEscape(scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    private static func unicodeEscape(_ value: UInt32) -> String {
        let hex = String(value, radix: 16)
        return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// Percent-encodes everything except RFC 3986 unreserved characters, so the result can
    /// be a query value, an `intent:` extra, or a path segment without any other meaning.
    public static func percentEncode(_ text: String) -> String {
        encode(text, keeping: unreservedBytes)
    }

    /// Encodes every byte `keep` does not allow, with uppercase hex (`%2F`); returns the text
    /// itself when nothing needs encoding.
    static func encode(_ text: String, keeping keep: [Bool]) -> String {
        var utf8 = text.utf8
        var needed = 0
        for byte in utf8 where !keep[Int(byte)] { needed += 1 }
        guard needed > 0 else { return text }
        var out = [UInt8]()
        out.reserveCapacity(utf8.count + needed * 2)
        utf8 = text.utf8
        for byte in utf8 {
            if keep[Int(byte)] {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// `A–Z a–z 0–9 - . _ ~`, as a table indexed by byte.
    static let unreservedBytes: [Bool] = (0..<256).map { isUnreserved(UInt8($0)) }

    /// Decodes `%XX` sequences (and, with `plusAsSpace`, `+`) into UTF-8 text; malformed
    /// escapes are kept as written rather than rejected.
    public static func percentDecode(_ text: some StringProtocol, plusAsSpace: Bool = false) -> String {
        let bytes = Array(text.utf8)
        guard bytes.contains(UInt8(ascii: "%")) || (plusAsSpace && bytes.contains(UInt8(ascii: "+"))) else {
            return String(text)
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count,
               let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) {
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(plusAsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - 48
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - 87
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - 55
        default: return nil
        }
    }
}
