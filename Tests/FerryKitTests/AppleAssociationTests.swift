import Foundation
import Testing
@testable import FerryKit

@Suite struct AppleAssociationTests {
    // MARK: st-tech vectors, checked against Apple's own swcutil

    struct Vector: Sendable, CustomTestStringConvertible {
        var name: String
        var file: Data
        var path: String
        /// `nil` means the file must be refused as invalid JSON.
        var expected: [String: AASAMatcher.Outcome]?
        var testDescription: String { name }
    }

    static let vectors: [Vector] = {
        guard let list = try? Fixtures.json("aasa-vectors/st-tech-vectors.json") as? [[String: Any]] else { return [] }
        return list.compactMap { entry in
            guard let name = entry["name"] as? String, let path = entry["path"] as? String else { return nil }
            let file: Data
            if let text = entry["aasa"] as? String {
                file = Data(text.utf8)
            } else if let object = entry["aasa"], let data = try? JSONSerialization.data(withJSONObject: object) {
                file = data
            } else {
                return nil
            }
            var expected: [String: AASAMatcher.Outcome]?
            if let map = entry["expected"] as? [String: String] {
                expected = map.mapValues { $0 == "block" ? .blocked : .match }
            }
            return Vector(name: name, file: file, path: path, expected: expected)
        }
    }()

    @Test func allSixteenVectorsAreThere() {
        #expect(Self.vectors.count == 16)
    }

    @Test(arguments: vectors)
    func stTechVector(_ vector: Vector) throws {
        guard let expected = vector.expected else {
            #expect(throws: AASAReadError.self) { try AASAReader.parse(vector.file) }
            return
        }
        let file = try AASAReader.parse(vector.file).file
        let matcher = AASAMatcher(file)
        var answers: [String: AASAMatcher.Outcome] = [:]
        for (appID, result) in matcher.matchAll(vector.path) where result.outcome != .none {
            answers[appID] = result.outcome
        }
        #expect(answers == expected)
    }

    // MARK: Apple's matching rules, one case each (REFERENCE.md)

    struct Rule: Sendable, CustomTestStringConvertible {
        var rule: String
        var file: String
        var url: String
        var expected: AASAMatcher.Outcome
        var testDescription: String { "\(rule): \(url) → \(expected)" }
    }

    static let appID = "ABCDE12345.com.example.app"

    static func components(_ components: String, defaults: String = "", variables: String = "") -> String {
        #"{"applinks":{\#(defaults)\#(variables)"details":[{"appIDs":["ABCDE12345.com.example.app"],"components":[\#(components)]}]}}"#
    }

    static let rules: [Rule] = [
        Rule(rule: "first matching component decides (exclude first)", file: components(#"{"/":"/buy/*","exclude":true},{"/":"/*"}"#), url: "/buy/1", expected: .blocked),
        Rule(rule: "first matching component decides (match first)", file: components(#"{"/":"/*"},{"/":"/buy/*","exclude":true}"#), url: "/buy/1", expected: .match),
        Rule(rule: "a pattern matches the whole path, not a prefix", file: components(#"{"/":"/buy"}"#), url: "/buy/1", expected: .none),
        Rule(rule: "* matches zero characters", file: components(#"{"/":"/buy*"}"#), url: "/buy", expected: .match),
        Rule(rule: "? matches exactly one character", file: components(#"{"/":"/p/?"}"#), url: "/p/12", expected: .none),
        Rule(rule: "? matches one character", file: components(#"{"/":"/p/?"}"#), url: "/p/1", expected: .match),
        Rule(rule: "?* needs at least one character", file: components(#"{"/":"/p/?*"}"#), url: "/p/", expected: .none),
        Rule(rule: "?* matches one or more", file: components(#"{"/":"/p/?*"}"#), url: "/p/abc", expected: .match),
        Rule(rule: "leading / of a path pattern is optional", file: components(#"{"/":"search/*"}"#), url: "/search/x", expected: .match),
        Rule(rule: "/buy/* also matches /buy", file: components(#"{"/":"/buy/*"}"#), url: "/buy", expected: .match),
        Rule(rule: "/buy/* does not match /buyer", file: components(#"{"/":"/buy/*"}"#), url: "/buyer", expected: .none),
        Rule(rule: "missing / means any path", file: components(##"{"#":"promo"}"##), url: "/anything/at/all#promo", expected: .match),
        Rule(rule: "missing fragment is the empty string, so #:* matches it", file: components(##"{"/":"/a","#":"*"}"##), url: "/a", expected: .match),
        Rule(rule: "missing fragment does not match #:?*", file: components(##"{"/":"/a","#":"?*"}"##), url: "/a", expected: .none),
        Rule(rule: "missing query is the empty string", file: components(#"{"/":"/a","?":"?*"}"#), url: "/a", expected: .none),
        Rule(rule: "query string pattern matches the raw query whole", file: components(#"{"?":"a=1&b=*"}"#), url: "/?a=1&b=2", expected: .match),
        Rule(rule: "query dictionary constrains only the names it lists", file: components(#"{"?":{"a":"1"}}"#), url: "/?z=9&a=1", expected: .match),
        Rule(rule: "absent query item counts as empty (* matches)", file: components(#"{"?":{"b":"*"}}"#), url: "/?a=1", expected: .match),
        Rule(rule: "absent query item counts as empty (?* does not)", file: components(#"{"?":{"b":"?*"}}"#), url: "/?a=1", expected: .none),
        Rule(rule: "a repeated query item must match every time", file: components(#"{"?":{"a":"1"}}"#), url: "/?a=1&a=2", expected: .none),
        Rule(rule: "a repeated query item matching every time", file: components(#"{"?":{"a":"?"}}"#), url: "/?a=1&a=2", expected: .match),
        Rule(rule: "case-sensitive by default", file: components(#"{"/":"/Promo"}"#), url: "/promo", expected: .none),
        Rule(rule: "caseSensitive false on the component", file: components(#"{"/":"/Promo","caseSensitive":false}"#), url: "/PROMO", expected: .match),
        Rule(rule: "caseSensitive false from the applinks defaults", file: components(#"{"/":"/Promo"}"#, defaults: #""defaults":{"caseSensitive":false},"#), url: "/pROMO", expected: .match),
        Rule(rule: "component setting beats the defaults", file: components(#"{"/":"/Promo","caseSensitive":true}"#, defaults: #""defaults":{"caseSensitive":false},"#), url: "/promo", expected: .none),
        Rule(rule: "percentEncoded true compares the URL as written (%2F is not /)", file: components(#"{"/":"/a/b"}"#), url: "/a%2Fb", expected: .none),
        Rule(rule: "percentEncoded false decodes first", file: components(#"{"/":"/a/b","percentEncoded":false}"#), url: "/a%2Fb", expected: .match),
        Rule(rule: "percentEncoded false decodes query items", file: components(#"{"?":{"q":"a b"},"percentEncoded":false}"#), url: "/?q=a%20b", expected: .match),
        Rule(rule: "substitution variable matches one of its values", file: components(#"{"/":"/$(shop)/*"}"#, variables: #""substitutionVariables":{"shop":["store","boutique"]},"#), url: "/boutique/x", expected: .match),
        Rule(rule: "substitution variable rejects other values", file: components(#"{"/":"/$(shop)/*"}"#, variables: #""substitutionVariables":{"shop":["store","boutique"]},"#), url: "/shop/x", expected: .none),
        Rule(rule: "variable values may hold wildcards", file: components(#"{"/":"/$(p)"}"#, variables: #""substitutionVariables":{"p":["item-*"]},"#), url: "/item-42", expected: .match),
        Rule(rule: "$(digit) is one digit", file: components(#"{"/":"/v$(digit)"}"#), url: "/v7", expected: .match),
        Rule(rule: "$(digit) is exactly one character", file: components(#"{"/":"/v$(digit)"}"#), url: "/v17", expected: .none),
        Rule(rule: "$(upper) is case-sensitive by default", file: components(#"{"/":"/$(upper)"}"#), url: "/a", expected: .none),
        Rule(rule: "caseSensitive false applies to built-in variables", file: components(#"{"/":"/$(upper)","caseSensitive":false}"#), url: "/a", expected: .match),
        Rule(rule: "$(region) holds ISO codes", file: components(#"{"/":"/$(region)/*"}"#), url: "/GB/x", expected: .match),
        Rule(rule: "$(region) has no UK", file: components(#"{"/":"/$(region)/*"}"#), url: "/UK/x", expected: .none),
        Rule(rule: "$(lang)_$(region) locale paths", file: components(#"{"/":"/$(lang)_$(region)/*"}"#), url: "/fr_CA/x", expected: .match),
        Rule(rule: "an undefined variable matches nothing", file: components(#"{"/":"/$(nope)"}"#), url: "/x", expected: .none),
        Rule(rule: "legacy paths: first hit decides, NOT excludes",
             file: #"{"applinks":{"apps":[],"details":[{"appID":"ABCDE12345.com.example.app","paths":["NOT /admin/*","/*"]}]}}"#, url: "/admin/x", expected: .blocked),
        Rule(rule: "legacy paths: the query is ignored",
             file: #"{"applinks":{"apps":[],"details":[{"appID":"ABCDE12345.com.example.app","paths":["/p/*"]}]}}"#, url: "/p/1?x=2#f", expected: .match),
        Rule(rule: "legacy paths are case-sensitive",
             file: #"{"applinks":{"apps":[],"details":[{"appID":"ABCDE12345.com.example.app","paths":["/P/*"]}]}}"#, url: "/p/1", expected: .none),
        Rule(rule: "old details-as-dictionary form",
             file: #"{"applinks":{"apps":[],"details":{"ABCDE12345.com.example.app":{"paths":["*"]}}}}"#, url: "/x", expected: .match),
        Rule(rule: "components win over paths in one detail",
             file: #"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.app"],"paths":["*"],"components":[{"/":"/only"}]}]}}"#, url: "/x", expected: .none),
    ]

    @Test(arguments: rules)
    func matchingRule(_ rule: Rule) throws {
        let file = try AASAReader.parse(Data(rule.file.utf8)).file
        let result = AASAMatcher(file).match("https://go.example.com" + rule.url, appID: Self.appID)
        #expect(result.outcome == rule.expected)
        #expect((result.rule != nil) == (rule.expected != .none), "a decision names its rule")
    }

    @Test func theDecidingRuleIsNamed() throws {
        let file = try AASAReader.parse(Data(Self.components(#"{"/":"/a"},{"/":"/b/*","exclude":true}"#).utf8)).file
        let result = AASAMatcher(file).match("/b/1", appID: Self.appID)
        #expect(result.rule == #"applinks.details[0].components[1] {"/":"/b/*","exclude":true}"#)
    }

    // MARK: The generator

    static let app = App(
        id: "acme", name: "Acme",
        ios: IOSApp(teamID: "ABCDE12345", bundleID: "com.acme.app", appStoreID: "123456789", appClipBundleID: "com.acme.app.Clip", webCredentials: true),
        android: AndroidApp(packageName: "com.acme.app", sha256CertFingerprints: [String(repeating: "AB:", count: 31) + "AB"]),
        web: WebSettings(fallbackURL: URL(string: "https://acme.example")!),
        routes: [
            Route(pattern: "/u/{userId}", webURL: "https://acme.example/users/{userId}", name: "profile"),
            Route(pattern: "/p/{sku}/reviews", webURL: "https://acme.example/p/{sku}#reviews"),
        ])

    @Test func generatedFileOpensRoutesAndShortLinksButNotTheWebFallback() throws {
        let data = AASAGenerator.data(for: Self.app)
        let read = try AASAReader.parse(data)
        #expect(read.diagnostics.isEmpty, "Ferry's own file lints clean: \(read.diagnostics)")
        let matcher = AASAMatcher(read.file)
        let id = "ABCDE12345.com.acme.app"
        #expect(matcher.match("https://go.acme.example/u/42", appID: id).outcome == .match)
        #expect(matcher.match("https://go.acme.example/p/sku-1/reviews", appID: id).outcome == .match)
        #expect(matcher.match("https://go.acme.example/x7Kp2", appID: id).outcome == .match)
        #expect(matcher.match("https://go.acme.example/_ferry/web?path=/u/42", appID: id).outcome == .blocked)
        #expect(matcher.match("https://go.acme.example/u/42", appID: "ZZZZZ99999.other").outcome == .none)
        #expect(read.file.webcredentials?.apps == [id])
        #expect(read.file.appclips?.apps == ["ABCDE12345.com.acme.app.Clip"])
        #expect(data.count < AASAReader.maximumSize)
    }

    @Test func generatedFileIsStableBytes() {
        // The server serves these bytes with an ETag; they must not depend on dictionary order.
        #expect(AASAGenerator.data(for: Self.app) == AASAGenerator.data(for: Self.app))
        let text = String(decoding: AASAGenerator.data(for: Self.app), as: UTF8.self)
        #expect(text.hasPrefix(#"{"appclips":{"apps":["ABCDE12345.com.acme.app.Clip"]},"applinks":{"details":[{"appIDs":["ABCDE12345.com.acme.app"],"components":[{"/":"/_ferry/*","#))
        #expect(!text.contains("\\/"))
    }

    // MARK: The parser's explanations

    @Test func lintExplainsBrokenFiles() throws {
        let broken = #"""
        {"applinks":{"apps":["x"],"details":[
          {"appIDs":["com.example.app"],"components":[{"/":"/a","exclud":true}]},
          {"appID":"ABCDE12345.com.example.app","paths":["/b"]},
          {"appIDs":"ABCDE12345.com.example.app"}
        ]},"webcredential":{"apps":[]}}
        """#
        let read = try AASAReader.parse(Data(broken.utf8))
        let text = read.diagnostics.map(\.description)
        #expect(text.contains { $0.contains("applinks.details[0].appIDs[0]") && $0.contains("not an App ID") })
        #expect(text.contains { $0.contains("unknown key 'exclud'") && $0.contains("did you mean 'exclude'") })
        #expect(text.contains { $0.contains("unknown key 'webcredential'") })
        #expect(text.contains { $0.contains("mixes legacy 'paths' and 'components'") })
        #expect(text.contains { $0.contains("applinks.details[2].appIDs") && $0.contains("expected an array of strings") })
        #expect(text.contains { $0.contains("'apps' should be an empty array") })
        #expect(!read.errors.isEmpty)
    }

    @Test func oversizedFilesAreAnError() throws {
        let paths = (0..<9000).map { "\"/path/number/\($0)/*\"" }.joined(separator: ",")
        let big = #"{"applinks":{"apps":[],"details":[{"appID":"ABCDE12345.com.example.app","paths":[\#(paths)]}]}}"#
        let read = try AASAReader.parse(Data(big.utf8))
        #expect(read.errors.contains { $0.message.contains("Apple reads at most") })
    }

    @Test func aByteOrderMarkIsReadWithAWarning() throws {
        let read = try AASAReader.parse(Data([0xEF, 0xBB, 0xBF]) + Data(Self.components(#"{"/":"/a"}"#).utf8))
        #expect(read.warnings.contains { $0.message.contains("byte order mark") })
        #expect(AASAMatcher(read.file).match("/a", appID: Self.appID).outcome == .match)
    }

    @Test func notJSONIsRefusedWithTheReason() {
        #expect(throws: AASAReadError.self) { try AASAReader.parse(Data("{\"applinks\": [".utf8)) }
        #expect(throws: AASAReadError.self) { try AASAReader.parse(Data("[]".utf8)) }
        #expect(throws: AASAReadError.self) { try AASAReader.parse(Data(#"{"applinks":{"details":[],},}"#.utf8)) }
    }

    @Test func codableRoundTrip() throws {
        let file = AASAGenerator.file(for: Self.app)
        let decoded = try JSONDecoder().decode(AppleAppSiteAssociation.self, from: file.encoded())
        #expect(decoded == file)
    }
}
