import Foundation

/// A QR code (ISO/IEC 18004) for a link: byte mode (marked UTF-8 when it is not ASCII), error correction level M (15% of the
/// symbol may be damaged), the smallest version that fits (1–40), the mask with the lowest
/// penalty. Drawn as SVG or PNG without any library.
///
/// ```swift
/// let code = try QRCode("https://go.acme.com/spring")
/// let svg = code.svg()            // crisp at any size
/// let png = code.png(scale: 8)    // 8 pixels per module
/// ```
public struct QRCode: Sendable {
    public let version: Int
    /// Modules per side.
    public let size: Int
    public let mask: Int
    /// `modules[y][x]`, `true` for dark.
    public let modules: [[Bool]]

    public enum Failure: Error, Sendable {
        /// More than a version 40 code holds at level M (2,331 bytes).
        case tooLong
    }

    public init(_ text: String) throws(Failure) {
        let data = Array(text.utf8)
        let eci = data.contains { $0 >= 0x80 } ? 12 : 0
        guard let version = (1...40).first(where: { Self.dataCodewords($0) * 8 >= eci + 4 + ($0 < 10 ? 8 : 16) + data.count * 8 }) else {
            throw .tooLong
        }
        var matrix = Matrix(version: version)
        matrix.drawFunctionPatterns()
        matrix.drawCodewords(Self.interleaved(Self.padded(data, version: version), version: version))
        // Every mask, the lowest penalty wins (format bits drawn first: they count too).
        var best: (penalty: Int, mask: Int, modules: [[Bool]])?
        for mask in 0..<8 {
            var candidate = matrix
            candidate.apply(mask: mask)
            candidate.drawFormatBits(mask: mask)
            let penalty = candidate.penalty()
            if best == nil || penalty < best!.penalty { best = (penalty, mask, candidate.modules) }
        }
        self.version = version
        size = matrix.size
        mask = best!.mask
        modules = best!.modules
    }

    // MARK: Drawing

    /// An SVG with a 4-module quiet zone, one path for the dark modules.
    public func svg(label: String = "QR code") -> String {
        let side = size + 8
        var path = ""
        for y in 0..<size {
            for x in 0..<size where modules[y][x] { path += "M\(x + 4),\(y + 4)h1v1h-1z" }
        }
        return #"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \#(side) \#(side)" shape-rendering="crispEdges" role="img" aria-label="\#(Escaping.html(label))">"#
            + ##"<rect width="\##(side)" height="\##(side)" fill="#ffffff"/><path d="\##(path)" fill="#000000"/></svg>"##
    }

    /// A black-and-white PNG (1 bit per pixel) with a 4-module quiet zone.
    public func png(scale: Int = 8) -> Data {
        let scale = max(1, min(scale, 32))
        let side = (size + 8) * scale
        let rowBytes = (side + 7) / 8
        var raw = [UInt8]()
        raw.reserveCapacity((rowBytes + 1) * side)
        for py in 0..<side {
            raw.append(0)  // filter: none
            var row = [UInt8](repeating: 0xFF, count: rowBytes)  // 1 = white
            let y = py / scale - 4
            if (0..<size).contains(y) {
                for px in 0..<side {
                    let x = px / scale - 4
                    if (0..<size).contains(x), modules[y][x] { row[px / 8] &= ~(0x80 >> UInt8(px % 8)) }
                }
            }
            raw += row
        }
        return PNG.encode(width: side, height: side, bitDepth: 1, colorType: 0, raw: raw)
    }

    // MARK: Codewords

    /// Codewords for data at level M in a version.
    static func dataCodewords(_ version: Int) -> Int {
        rawDataModules(version) / 8 - eccPerBlock[version - 1] * blockCount[version - 1]
    }

    /// Error correction codewords per block, level M, versions 1–40.
    static let eccPerBlock = [10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26,
                              26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28]
    /// Blocks, level M, versions 1–40.
    static let blockCount = [1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16,
                             17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49]

    /// Modules left for codewords once the function patterns are drawn.
    static func rawDataModules(_ version: Int) -> Int {
        var result = (16 * version + 128) * version + 64
        if version >= 2 {
            let alignments = version / 7 + 2
            result -= (25 * alignments - 10) * alignments - 55
            if version >= 7 { result -= 36 }
        }
        return result
    }

    /// Mode, count, bytes, terminator and padding, as codewords.
    static func padded(_ data: [UInt8], version: Int) -> [UInt8] {
        var bits = BitBuffer()
        if data.contains(where: { $0 >= 0x80 }) {
            // ECI 26: the bytes are UTF-8 (readers otherwise guess ISO 8859-1).
            bits.append(0b0111, count: 4)
            bits.append(26, count: 8)
        }
        bits.append(0b0100, count: 4)
        bits.append(data.count, count: version < 10 ? 8 : 16)
        for byte in data { bits.append(Int(byte), count: 8) }
        let capacity = dataCodewords(version) * 8
        bits.append(0, count: min(4, capacity - bits.count))
        bits.append(0, count: (8 - bits.count % 8) % 8)
        var codewords = bits.bytes
        var pad: UInt8 = 0xEC
        while codewords.count < capacity / 8 {
            codewords.append(pad)
            pad ^= 0xEC ^ 0x11
        }
        return codewords
    }

    /// Data split into blocks, each with its error correction, interleaved.
    static func interleaved(_ data: [UInt8], version: Int) -> [UInt8] {
        let blocks = blockCount[version - 1], ecc = eccPerBlock[version - 1]
        let total = rawDataModules(version) / 8
        let shortBlocks = blocks - total % blocks
        let shortLength = total / blocks
        let divisor = ReedSolomon.divisor(degree: ecc)
        var split: [[UInt8]] = []
        var offset = 0
        for index in 0..<blocks {
            let length = shortLength - ecc + (index < shortBlocks ? 0 : 1)
            var block = Array(data[offset..<offset + length])
            offset += length
            let correction = ReedSolomon.remainder(block, divisor: divisor)
            if index < shortBlocks { block.append(0) }  // a placeholder, skipped below
            split.append(block + correction)
        }
        var result: [UInt8] = []
        for column in 0..<split[0].count {
            for (index, block) in split.enumerated() where column != shortLength - ecc || index >= shortBlocks {
                result.append(block[column])
            }
        }
        return result
    }
}

// MARK: - The symbol being drawn

private struct Matrix {
    let version: Int
    let size: Int
    var modules: [[Bool]]
    var isFunction: [[Bool]]

    init(version: Int) {
        self.version = version
        size = version * 4 + 17
        modules = Array(repeating: Array(repeating: false, count: size), count: size)
        isFunction = modules
    }

    mutating func set(_ x: Int, _ y: Int, _ dark: Bool) {
        modules[y][x] = dark
        isFunction[y][x] = true
    }

    mutating func drawFunctionPatterns() {
        for i in 0..<size {
            set(6, i, i % 2 == 0)
            set(i, 6, i % 2 == 0)
        }
        for (x, y) in [(3, 3), (size - 4, 3), (3, size - 4)] {
            for dy in -4...4 {
                for dx in -4...4 where (0..<size).contains(x + dx) && (0..<size).contains(y + dy) {
                    let distance = max(abs(dx), abs(dy))
                    set(x + dx, y + dy, distance != 2 && distance != 4)
                }
            }
        }
        let positions = alignmentPositions
        for (i, a) in positions.enumerated() {
            for (j, b) in positions.enumerated() {
                let corner = (i == 0 && j == 0) || (i == 0 && j == positions.count - 1) || (i == positions.count - 1 && j == 0)
                guard !corner else { continue }
                for dy in -2...2 {
                    for dx in -2...2 { set(a + dx, b + dy, max(abs(dx), abs(dy)) != 1) }
                }
            }
        }
        drawFormatBits(mask: 0)  // reserves the area; redrawn with the chosen mask
        if version >= 7 {
            var remainder = version
            for _ in 0..<12 { remainder = (remainder << 1) ^ ((remainder >> 11) * 0x1F25) }
            let bits = version << 12 | remainder
            for i in 0..<18 {
                let dark = (bits >> i) & 1 == 1
                let a = size - 11 + i % 3, b = i / 3
                set(a, b, dark)
                set(b, a, dark)
            }
        }
    }

    var alignmentPositions: [Int] {
        guard version > 1 else { return [] }
        let count = version / 7 + 2
        let step = version == 32 ? 26 : (version * 4 + count * 2 + 1) / (count * 2 - 2) * 2
        return [6] + (0..<(count - 1)).map { size - 7 - $0 * step }.reversed()
    }

    /// Level M (format bits 00) and the mask, BCH-protected, in both copies.
    mutating func drawFormatBits(mask: Int) {
        let data = 0b00 << 3 | mask
        var remainder = data
        for _ in 0..<10 { remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537) }
        let bits = (data << 10 | remainder) ^ 0x5412
        func bit(_ i: Int) -> Bool { (bits >> i) & 1 == 1 }
        for i in 0...5 { set(8, i, bit(i)) }
        set(8, 7, bit(6))
        set(8, 8, bit(7))
        set(7, 8, bit(8))
        for i in 9..<15 { set(14 - i, 8, bit(i)) }
        for i in 0..<8 { set(size - 1 - i, 8, bit(i)) }
        for i in 8..<15 { set(8, size - 15 + i, bit(i)) }
        set(8, size - 8, true)
    }

    /// Codeword bits in the zigzag order, right to left in two-module columns.
    mutating func drawCodewords(_ data: [UInt8]) {
        var index = 0
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            for vertical in 0..<size {
                for j in 0..<2 {
                    let x = right - j
                    let upward = (right + 1) & 2 == 0
                    let y = upward ? size - 1 - vertical : vertical
                    if !isFunction[y][x], index < data.count * 8 {
                        modules[y][x] = (data[index >> 3] >> (7 - UInt8(index & 7))) & 1 == 1
                        index += 1
                    }
                }
            }
            right -= 2
        }
    }

    mutating func apply(mask: Int) {
        for y in 0..<size {
            for x in 0..<size where !isFunction[y][x] {
                let invert: Bool
                switch mask {
                case 0: invert = (x + y) % 2 == 0
                case 1: invert = y % 2 == 0
                case 2: invert = x % 3 == 0
                case 3: invert = (x + y) % 3 == 0
                case 4: invert = (x / 3 + y / 2) % 2 == 0
                case 5: invert = x * y % 2 + x * y % 3 == 0
                case 6: invert = (x * y % 2 + x * y % 3) % 2 == 0
                default: invert = ((x + y) % 2 + x * y % 3) % 2 == 0
                }
                if invert { modules[y][x].toggle() }
            }
        }
    }

    /// The standard's penalty: long runs, 2×2 blocks, finder-like patterns, dark balance.
    func penalty() -> Int {
        var total = 0
        let lines = modules + (0..<size).map { x in (0..<size).map { modules[$0][x] } }
        for line in lines {
            var run = 1
            for i in 1..<size {
                if line[i] == line[i - 1] {
                    run += 1
                    if i == size - 1, run >= 5 { total += run - 2 }
                } else {
                    if run >= 5 { total += run - 2 }
                    run = 1
                }
            }
            // 1:1:3:1:1 with four light modules on either side.
            let pattern: [Bool] = [true, false, true, true, true, false, true]
            for start in 0..<(size - 6) where Array(line[start..<start + 7]) == pattern {
                let before = start >= 4 && !line[(start - 4)..<start].contains(true)
                let after = start + 11 <= size && !line[(start + 7)..<(start + 11)].contains(true)
                if before || after { total += 40 }
            }
        }
        for y in 0..<(size - 1) {
            for x in 0..<(size - 1) {
                let color = modules[y][x]
                if color == modules[y][x + 1], color == modules[y + 1][x], color == modules[y + 1][x + 1] { total += 3 }
            }
        }
        let dark = modules.reduce(0) { $0 + $1.filter { $0 }.count }
        let cells = size * size
        total += ((abs(dark * 20 - cells * 10) + cells - 1) / cells - 1) * 10
        return total
    }
}

private struct BitBuffer {
    var bits: [Bool] = []
    var count: Int { bits.count }

    mutating func append(_ value: Int, count: Int) {
        for i in stride(from: count - 1, through: 0, by: -1) { bits.append((value >> i) & 1 == 1) }
    }

    var bytes: [UInt8] {
        stride(from: 0, to: bits.count, by: 8).map { start in
            (0..<8).reduce(UInt8(0)) { byte, i in byte << 1 | (start + i < bits.count && bits[start + i] ? 1 : 0) }
        }
    }
}

/// Reed–Solomon error correction over GF(2⁸) with the QR code's polynomial (0x11D).
enum ReedSolomon {
    static func divisor(degree: Int) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: degree)
        result[degree - 1] = 1
        var root: UInt8 = 1
        for _ in 0..<degree {
            for j in 0..<degree {
                result[j] = multiply(result[j], root)
                if j + 1 < degree { result[j] ^= result[j + 1] }
            }
            root = multiply(root, 0x02)
        }
        return result
    }

    static func remainder(_ data: [UInt8], divisor: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: divisor.count)
        for byte in data {
            let factor = byte ^ result.removeFirst()
            result.append(0)
            for i in result.indices { result[i] ^= multiply(divisor[i], factor) }
        }
        return result
    }

    static func multiply(_ x: UInt8, _ y: UInt8) -> UInt8 {
        var z = 0
        for i in stride(from: 7, through: 0, by: -1) {
            z = (z << 1) ^ ((z >> 7) * 0x11D)
            z ^= Int((y >> UInt8(i)) & 1) * Int(x)
        }
        return UInt8(z & 0xFF)
    }
}

/// PNG files (uncompressed deflate blocks: QR images are small).
enum PNG {
    static func encode(width: Int, height: Int, bitDepth: UInt8, colorType: UInt8, raw: [UInt8]) -> Data {
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var header = Data()
        header.append(bigEndian: UInt32(width))
        header.append(bigEndian: UInt32(height))
        header.append(contentsOf: [bitDepth, colorType, 0, 0, 0])
        chunk("IHDR", header, into: &png)
        chunk("IDAT", zlibStored(raw), into: &png)
        chunk("IEND", Data(), into: &png)
        return png
    }

    private static func chunk(_ type: String, _ body: Data, into png: inout Data) {
        png.append(bigEndian: UInt32(body.count))
        let typed = Data(type.utf8) + body
        png.append(typed)
        png.append(bigEndian: crc32(typed))
    }

    /// A zlib stream of stored (uncompressed) deflate blocks.
    private static func zlibStored(_ bytes: [UInt8]) -> Data {
        var out = Data([0x78, 0x01])
        var offset = 0
        repeat {
            let length = min(65_535, bytes.count - offset)
            let final: UInt8 = offset + length == bytes.count ? 1 : 0
            out.append(final)
            out.append(contentsOf: [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)])
            out.append(contentsOf: bytes[offset..<offset + length])
            offset += length
        } while offset < bytes.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        out.append(bigEndian: b << 16 | a)
        return out
    }

    static func crc32(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}

private extension Data {
    mutating func append(bigEndian value: UInt32) {
        append(contentsOf: [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)])
    }
}
