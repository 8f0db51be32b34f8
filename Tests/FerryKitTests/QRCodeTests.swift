import Foundation
import Testing
@testable import FerryKit

/// QR codes are proven by a reader: every code is written as a PNG and decoded by zbarimg
/// (Debian's zbar-tools, installed by scripts/install-test-deps).
@Suite struct QRCodeTests {
    static let zbarimg = ["/usr/bin/zbarimg", "/usr/local/bin/zbarimg"].first { FileManager.default.isExecutableFile(atPath: $0) }

    func scanned(_ png: Data) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-qr-\(UUID().uuidString).png")
        try png.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let reader = try #require(Self.zbarimg, "zbarimg is missing: run scripts/install-test-deps")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: reader)
        process.arguments = ["--quiet", "--raw", "-Sdisable", "-Sqrcode.enable", file.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = Pipe()
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines)
    }

    @Test(arguments: [
        "https://go.acme.com/x7Kp2",                                                   // version 2
        "https://go.acme.example/spring?utm_source=newsletter&utm_medium=email&utm_campaign=launch-2027",  // version 5
        "https://links.example.com/" + String(repeating: "a", count: 150),            // version 8: version bits
        "https://links.example.com/" + String(repeating: "Zz9-", count: 100),        // version 15: many blocks
        "https://go.acme.com/ü?name=Ünïcödé",
    ])
    func codesScanBackToTheirText(_ text: String) throws {
        let code = try QRCode(text)
        #expect(code.size == code.version * 4 + 17)
        #expect(try scanned(code.png(scale: 4)) == text, "version \(code.version), mask \(code.mask)")
    }

    @Test func theSmallestVersionThatFitsIsChosen() throws {
        #expect(try QRCode("https://go.acme.com/x7Kp2").version == 2)
        #expect(try QRCode(String(repeating: "a", count: 14)).version == 1, "14 bytes fit version 1-M")
        #expect(try QRCode(String(repeating: "a", count: 15)).version == 2)
        #expect(throws: QRCode.Failure.self) { try QRCode(String(repeating: "a", count: 2400)) }
    }

    @Test func theSVGDrawsEveryDarkModuleOnce() throws {
        let code = try QRCode("https://go.acme.com/x7Kp2")
        let svg = code.svg(label: "QR code for <link>")
        let dark = code.modules.reduce(0) { $0 + $1.filter { $0 }.count }
        #expect(svg.components(separatedBy: "h1v1h-1z").count - 1 == dark)
        #expect(svg.hasPrefix(#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 33 33""#))
        #expect(svg.contains(#"aria-label="QR code for &lt;link&gt;""#))
    }

    @Test func pngChunksCarryTheirChecksums() throws {
        let png = try QRCode("x").png(scale: 1)
        #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        #expect(PNG.crc32(Data("IEND".utf8)) == 0xAE42_6082, "the known CRC of an empty IEND chunk")
    }
}
