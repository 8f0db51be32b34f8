import Foundation
import Testing

/// Runs the built `ferry` executable as a user would.
@Suite struct FerryCommandTests {
    struct Run {
        var status: Int32
        var output: String
        var error: String
    }

    static let executable: URL = {
        #if os(macOS)
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("ferry")
        }
        #endif
        return Bundle.main.bundleURL.appendingPathComponent("ferry")
    }()

    func ferry(_ arguments: String..., input: String? = nil) throws -> Run {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments
        let stdout = Pipe(), stderr = Pipe(), stdin = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try stdin.fileHandleForWriting.close()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, output: String(decoding: out, as: UTF8.self), error: String(decoding: err, as: UTF8.self))
    }

    func temporaryFile(_ contents: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-test-\(UUID().uuidString)")
        try Data(contents.utf8).write(to: url)
        return url.path
    }

    static let iPhone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"
    static let aasa = #"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.acme.app","FGHIJ67890.com.acme.beta"],"components":[{"/":"/admin/*","exclude":true},{"/":"/u/?*"}]}]}}"#
    static let fingerprint = String(repeating: "AB:", count: 31) + "AB"

    @Test func uaClassifiesArguments() throws {
        let run = try ferry("ua", Self.iPhone, "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)")
        #expect(run.status == 0)
        let lines = run.output.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[0] == "platform=ios os=17.4 device=phone browser=safari in-app=- bot=none maybe-ipad=no")
        #expect(lines[1].contains("bot=link-preview"))
    }

    @Test func uaReadsStandardInputAsJSONLines() throws {
        let run = try ferry("ua", "--json", input: "\(Self.iPhone)\ncurl/8.5.0\n\n")
        #expect(run.status == 0)
        let objects = try run.output.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(objects.count == 3, "one line in, one line out, empty lines included")
        #expect(Set(objects[0].keys) == ["platform", "osVersion", "deviceClass", "browser", "inAppHost", "bot", "maybeIPad"])
        #expect(objects[0]["platform"] as? String == "ios")
        #expect(objects[0]["osVersion"] as? String == "17.4")
        #expect(objects[1]["bot"] as? String == "other")
    }

    @Test func aasaMatchAnswersPerAppID() throws {
        let file = try temporaryFile(Self.aasa)
        let match = try ferry("aasa", "match", "--file", file, "--url", "https://go.acme.example/u/42")
        #expect(match.status == 0)
        #expect(match.output.contains("ABCDE12345.com.acme.app  match  applinks.details[0].components[1]"))
        #expect(match.output.contains("FGHIJ67890.com.acme.beta  match"))
        let blocked = try ferry("aasa", "match", "--file", file, "--url", "/admin/x", "--app", "ABCDE12345.com.acme.app")
        #expect(blocked.status == 0)
        #expect(blocked.output.split(separator: "\n").count == 1)
        #expect(blocked.output.contains("blocked"))
        let none = try ferry("aasa", "match", "--file", file, "--url", "/other", "--json")
        #expect(none.status == 0)
        #expect(none.output.contains(#""outcome":"none""#))
    }

    @Test func aasaMatchRefusesUnreadableFiles() throws {
        let notJSON = try ferry("aasa", "match", "--file", try temporaryFile("{[]}"), "--url", "/")
        #expect(notJSON.status == 2)
        #expect(notJSON.error.contains("not valid JSON"))
        let missing = try ferry("aasa", "match", "--file", "/no/such/file", "--url", "/")
        #expect(missing.status == 2)
        #expect(missing.error.contains("no such file"))
    }

    @Test func aasaLint() throws {
        let clean = try ferry("aasa", "lint", "--file", try temporaryFile(Self.aasa))
        #expect(clean.status == 0)
        #expect(clean.output.contains("no problems found"))
        let broken = try ferry("aasa", "lint", "--file", try temporaryFile(#"{"applinks":{"details":[{"appIDs":["com.acme"],"paths":["/a"]},{"appIDs":["ABCDE12345.com.acme"],"components":[{"/":"/b","exclud":true}]}]}}"#))
        #expect(broken.status == 1)
        #expect(broken.output.contains("error: applinks.details[0].appIDs[0]"))
        #expect(broken.output.contains("mixes legacy 'paths' and 'components'"))
        #expect(broken.output.contains("did you mean 'exclude'"))
        let warningsOnly = try ferry("aasa", "lint", "--file", try temporaryFile(#"{"applinks":{"apps":["x"],"details":[{"appIDs":["ABCDE12345.com.acme"],"components":[]}]}}"#))
        #expect(warningsOnly.status == 0)
        #expect(warningsOnly.output.contains("0 error(s), 1 warning(s)"))
        #expect(try ferry("aasa", "lint", "--file", try temporaryFile("[1,2]")).status == 2)
    }

    @Test func assetlinksCheck() throws {
        let file = try temporaryFile(#"[{"relation":["delegate_permission/common.handle_all_urls"],"target":{"namespace":"android_app","package_name":"com.acme.app","sha256_cert_fingerprints":["\#(Self.fingerprint)"]}}]"#)
        let granted = try ferry("assetlinks", "check", "--file", file, "--package", "com.acme.app", "--fingerprint", Self.fingerprint.lowercased())
        #expect(granted.status == 0)
        #expect(granted.output.contains("granted: com.acme.app"))
        let other = try ferry("assetlinks", "check", "--file", file, "--package", "com.acme.other", "--fingerprint", Self.fingerprint)
        #expect(other.status == 1)
        #expect(other.output.contains("not granted"))
        let badFingerprint = try ferry("assetlinks", "check", "--file", file, "--package", "com.acme.app", "--fingerprint", "12:34")
        #expect(badFingerprint.status == 2)
        #expect(badFingerprint.error.contains("not a SHA-256 fingerprint"))
    }

    @Test(arguments: [["--help"], ["ua", "--help"], ["aasa", "match", "--help"], ["aasa", "lint", "--help"], ["assetlinks", "check", "--help"]])
    func everyCommandExplainsItselfWithAnExample(_ arguments: [String]) throws {
        let process = try ferryArray(arguments)
        #expect(process.status == 0)
        #expect(process.output.contains("ferry "), "the help shows how to call it")
        #expect(process.output.lowercased().contains("example"))
    }

    func ferryArray(_ arguments: [String]) throws -> Run {
        switch arguments.count {
        case 1: try ferry(arguments[0])
        case 2: try ferry(arguments[0], arguments[1])
        default: try ferry(arguments[0], arguments[1], arguments[2])
        }
    }

    @Test func unknownCommandsFailWithUsage() throws {
        let run = try ferry("frobnicate")
        #expect(run.status != 0)
        #expect(run.error.contains("Usage") || run.error.contains("USAGE") || run.error.contains("Error"))
    }
}
