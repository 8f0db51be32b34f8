import Foundation
import Testing
@testable import FerryKit

/// Google's Digital Asset Links compatibility suite (`../shared/testdata/digitalassetlinks/`),
/// run against ``StatementService`` with the suite's web and app content as the only network.
@Suite struct AssetLinksCompatibilityTests {
    /// One test of the suite, with everything it needs.
    struct Case: Sendable, CustomTestStringConvertible {
        var group: String
        var name: String
        var isCheck: Bool
        var request: JSONValue
        var outcome: String
        var response: [JSONValue]
        var messagePattern: String?
        var web: [String: String]
        var apps: [String: String]   // "package fingerprint" → statements

        var testDescription: String { "\(group) — \(name)" }
    }

    /// The suite's converted protobuf text keeps every field as a list; these read the first item.
    static func field(_ value: JSONValue?, _ key: String) -> JSONValue? {
        guard case .object(let object)? = value, case .array(let items)? = object[key] else { return nil }
        return items.first
    }

    static func string(_ value: JSONValue?, _ key: String) -> String? {
        guard case .string(let text)? = field(value, key) else { return nil }
        return text
    }

    static func list(_ value: JSONValue?, _ key: String) -> [JSONValue] {
        guard case .object(let object)? = value, case .array(let items)? = object[key] else { return [] }
        return items
    }

    static let cases: [Case] = {
        guard let data = try? Fixtures.data("digitalassetlinks/compatibility-tests.v1.parsed.json"),
              case .object(let suite)? = try? JSONValue.parse(data) else { return [] }
        var cases: [Case] = []
        for file in suite.keys.sorted() {
            for group in list(suite[file], "test_group") {
                var web: [String: String] = [:]
                for content in list(group, "web_content") {
                    if let url = string(content, "url"), let body = string(content, "body") { web[url] = body }
                }
                var apps: [String: String] = [:]
                for content in list(group, "android_content") {
                    if let package = string(content, "package_name"), let fingerprint = string(content, "cert_fingerprint") {
                        apps["\(package) \(fingerprint)"] = string(content, "assets_statements") ?? "[]"
                    }
                }
                let groupName = string(group, "name") ?? file
                for (key, isCheck) in [("list_statements_tests", false), ("check_statements_tests", true)] {
                    for test in list(group, key) {
                        cases.append(Case(
                            group: groupName, name: string(test, "name") ?? "", isCheck: isCheck,
                            request: field(test, "request") ?? .null, outcome: string(test, "outcome") ?? "",
                            response: list(test, "response"), messagePattern: string(test, "error_message_regex"),
                            web: web, apps: apps))
                    }
                }
            }
        }
        return cases
    }()

    /// The suite's asset query (`{"web": [{"site": [...]}]}` or `{"android_app": [...]}`).
    static func asset(_ query: JSONValue?, role: String = "source") throws(AssetLinksError) -> Asset {
        guard case .object? = query else {
            throw .query("Request must contain a \(role) asset query")
        }
        if let web = field(query, "web") {
            return try AssetQuery.web(site: string(web, "site") ?? "")
        }
        if let app = field(query, "android_app") {
            return try AssetQuery.androidApp(packageName: string(app, "package_name"), fingerprint: string(field(app, "certificate"), "sha256_fingerprint"))
        }
        throw .query("Must specify one of the asset types (web, android_app)")
    }

    /// The API's list response, re-read into Ferry's types.
    static func expectedStatements(_ response: [JSONValue]) throws -> Set<String> {
        Set(try response.map { statement in
            let source = try asset(field(statement, "source"))
            let target = try asset(field(statement, "target"))
            return "\(source) \(string(statement, "relation") ?? "") \(target)"
        })
    }

    struct Answer {
        var outcome: String
        var linked: Bool?
        var statements: Set<String>
        var messages: [String]
    }

    static func run(_ test: Case) -> Answer {
        let web = test.web
        let apps = test.apps
        let service = StatementService(
            fetch: { url in web[url].map { .body($0) } ?? .failure("404 Not Found") },
            appStatements: { app in apps["\(app.packageName) \(app.fingerprints.first ?? "")"] })
        do {
            let source = try asset(field(test.request, "source"))
            let relation = try AssetQuery.relation(string(test.request, "relation"), required: test.isCheck)
            if test.isCheck {
                let target = try asset(field(test.request, "target"), role: "target")
                let answer = service.check(source: source, relation: relation!, target: target)
                return Answer(outcome: answer.errors.isEmpty ? "SUCCESS" : "FETCH_ERROR", linked: answer.linked, statements: [],
                              messages: answer.errors.map(\.message))
            }
            let answer = service.list(source: source, relation: relation)
            return Answer(outcome: answer.errors.isEmpty ? "SUCCESS" : "FETCH_ERROR", linked: nil,
                          statements: Set(answer.statements.map { "\($0.source) \($0.relation) \($0.target)" }),
                          messages: answer.errors.map(\.message) + answer.notes)
        } catch {
            return Answer(outcome: "QUERY_PARSING_ERROR", linked: test.isCheck ? false : nil, statements: [], messages: [error.message])
        }
    }

    @Test func theSuiteIsThere() {
        #expect(Self.cases.count == 383)
    }

    @Test(arguments: cases)
    func compatibility(_ test: Case) throws {
        let answer = Self.run(test)
        if test.isCheck {
            // Every check returns the expected answer.
            #expect(answer.linked == (test.response.first == .bool(true)))
        } else {
            // Every accepted body parses to the statements the suite lists.
            #expect(answer.statements == (try Self.expectedStatements(test.response)))
        }
        // The suite contradicts itself once: comptest1101 "Missing relation query" and
        // comptest2002 send the same request for the same empty list `[]`, and expect SUCCESS
        // and FETCH_ERROR "No statements were found". Ferry reports that as a note, not an error.
        let noteOnly = test.outcome == "FETCH_ERROR" && test.messagePattern == "No statements were found"
        #expect(answer.outcome == (noteOnly ? "SUCCESS" : test.outcome))
        if let pattern = test.messagePattern, test.outcome != "SUCCESS" {
            let regex = try NSRegularExpression(pattern: pattern)
            #expect(answer.messages.contains { regex.firstMatch(in: $0, range: NSRange($0.startIndex..., in: $0)) != nil },
                    "expected a message matching /\(pattern)/, got \(answer.messages)")
        }
    }

    @Test func summary() {
        var agree = 0
        for test in Self.cases {
            let answer = Self.run(test)
            let sameAnswer = test.isCheck ? answer.linked == (test.response.first == .bool(true))
                : answer.statements == (try? Self.expectedStatements(test.response))
            if sameAnswer { agree += 1 }
        }
        print("digitalassetlinks compatibility suite: \(agree) of \(Self.cases.count) tests give the expected answer")
        #expect(agree == Self.cases.count)
    }
}
