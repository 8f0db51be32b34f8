import Foundation

/// Real-world test data from `../shared/testdata/` beside the repository.
enum Fixtures {
    static let testdata: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }  // …/Tests/FerryKitTests/Fixtures.swift → repo root
        return url.deletingLastPathComponent().appendingPathComponent("shared/testdata")
    }()

    static func data(_ path: String) throws -> Data {
        try Data(contentsOf: testdata.appendingPathComponent(path))
    }

    static func json(_ path: String) throws -> Any {
        try JSONSerialization.jsonObject(with: data(path))
    }

    /// The `test_cases` of a uap-core YAML file: each case's `user_agent_string` and `family`.
    /// The files use one simple shape (`- key: 'value'` / `  key: 'value'`), which this reads
    /// without a YAML library.
    static func uapCases(_ file: String) throws -> [(userAgent: String, family: String)] {
        let text = String(decoding: try data("uap-core/\(file)"), as: UTF8.self)
        var cases: [(String, String)] = []
        var userAgent: String?
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let line = rawLine.drop { $0 == " " }
            if line.hasPrefix("- user_agent_string:") {
                userAgent = scalar(line.dropFirst("- user_agent_string:".count))
            } else if line.hasPrefix("family:"), let agent = userAgent {
                cases.append((agent, scalar(line.dropFirst("family:".count))))
                userAgent = nil
            }
        }
        return cases
    }

    private static func scalar(_ raw: Substring) -> String {
        let value = raw.trimmingCharacters(in: .whitespaces)
        if value.hasPrefix("'"), value.hasSuffix("'"), value.count >= 2 {
            return String(value.dropFirst().dropLast()).replacingOccurrences(of: "''", with: "'")
        }
        if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 {
            return String(value.dropFirst().dropLast()).replacingOccurrences(of: "\\\"", with: "\"")
        }
        return value
    }
}
