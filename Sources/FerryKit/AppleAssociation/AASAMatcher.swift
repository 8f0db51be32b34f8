import Foundation

/// Answers "would iOS open this URL in this app?" for an AASA file, with Apple's semantics:
/// details and components in order, the first component whose every given key matches decides,
/// `exclude` blocks, a missing key matches anything, a missing query or fragment is the empty
/// string, `caseSensitive` and `percentEncoded` default to true (component, then detail, then
/// file defaults), and legacy `paths` with `NOT` compare the path alone.
///
/// ```swift
/// let matcher = AASAMatcher(file)
/// let result = matcher.match("https://go.acme.com/u/42?ref=mail", appID: "ABCDE12345.com.acme.app")
/// result.outcome   // .match
/// result.rule      // "applinks.details[0].components[1] {\"/\": \"/u/?*\"}"
/// ```
public struct AASAMatcher: Sendable {
    public enum Outcome: String, Sendable, Hashable, Codable {
        case match
        case blocked
        case none
    }

    public struct Result: Sendable, Hashable {
        public var outcome: Outcome
        /// Where the deciding rule stands and what it says; `nil` when nothing matched.
        public var rule: String?
    }

    public let file: AppleAppSiteAssociation

    public init(_ file: AppleAppSiteAssociation) {
        self.file = file
    }

    /// Every App ID the file associates with the domain, in order of appearance.
    public var appIDs: [String] {
        var seen = Set<String>()
        return (file.applinks?.details ?? []).flatMap(\.effectiveAppIDs).filter { seen.insert($0).inserted }
    }

    public func match(_ url: String, appID: String) -> Result {
        match(URLParts(url), appID: appID)
    }

    /// The answer for every App ID in the file.
    public func matchAll(_ url: String) -> [(appID: String, result: Result)] {
        let parts = URLParts(url)
        return appIDs.map { ($0, match(parts, appID: $0)) }
    }

    func match(_ url: URLParts, appID: String) -> Result {
        guard let applinks = file.applinks else { return Result(outcome: .none) }
        let variables = applinks.substitutionVariables ?? [:]
        for (detailIndex, detail) in applinks.details.enumerated() where detail.effectiveAppIDs.contains(appID) {
            let detailPath = "applinks.details[\(detailIndex)]"
            if let components = detail.components {
                for (index, component) in components.enumerated() {
                    let caseSensitive = component.caseSensitive ?? detail.defaults?.caseSensitive ?? applinks.defaults?.caseSensitive ?? true
                    let percentEncoded = component.percentEncoded ?? detail.defaults?.percentEncoded ?? applinks.defaults?.percentEncoded ?? true
                    guard Self.matches(component, url, variables: variables, caseSensitive: caseSensitive, percentEncoded: percentEncoded) else { continue }
                    let rule = "\(detailPath).components[\(index)] \(Self.describe(component))"
                    return Result(outcome: component.exclude == true ? .blocked : .match, rule: rule)
                }
            } else if let paths = detail.paths {
                for (index, raw) in paths.enumerated() {
                    let excluded = raw.hasPrefix("NOT ")
                    let pattern = excluded ? String(raw.dropFirst(4)) : raw
                    guard Self.pathMatches(pattern, url.path, variables: variables, caseSensitive: true) else { continue }
                    return Result(outcome: excluded ? .blocked : .match, rule: "\(detailPath).paths[\(index)] \"\(raw)\"")
                }
            }
        }
        return Result(outcome: .none)
    }

    static func matches(_ component: AppleAppSiteAssociation.Component, _ url: URLParts, variables: [String: [String]],
                        caseSensitive: Bool, percentEncoded: Bool) -> Bool {
        let decode: (String) -> String = { percentEncoded ? $0 : Escaping.percentDecode($0) }
        if let path = component.path, !pathMatches(path, decode(url.path), variables: variables, caseSensitive: caseSensitive) {
            return false
        }
        switch component.query {
        case .string(let pattern)?:
            guard AASAPattern(pattern, variables: variables, caseSensitive: caseSensitive).matches(decode(url.query ?? "")) else { return false }
        case .items(let patterns)?:
            let items = url.queryItems.map { (name: decode($0.name), value: decode($0.value)) }
            for (name, pattern) in patterns {
                let compiled = AASAPattern(pattern, variables: variables, caseSensitive: caseSensitive)
                let values = items.filter { caseSensitive ? $0.name == name : $0.name.lowercased() == name.lowercased() }.map(\.value)
                // An absent item counts as empty; a repeated one must match every time.
                guard values.isEmpty ? compiled.matches("") : values.allSatisfy(compiled.matches) else { return false }
            }
        case nil:
            break
        }
        if let fragment = component.fragment,
           !AASAPattern(fragment, variables: variables, caseSensitive: caseSensitive).matches(decode(url.fragment ?? "")) {
            return false
        }
        return true
    }

    /// A path pattern matches the whole path; its leading `/` is optional, and `/buy/*` also
    /// matches `/buy`.
    static func pathMatches(_ pattern: String, _ path: String, variables: [String: [String]], caseSensitive: Bool) -> Bool {
        var pattern = pattern
        if let first = pattern.first, first != "/", first != "*", first != "?" { pattern = "/" + pattern }
        if AASAPattern(pattern, variables: variables, caseSensitive: caseSensitive).matches(path) { return true }
        if pattern.hasSuffix("/*") {
            return AASAPattern(String(pattern.dropLast(2)), variables: variables, caseSensitive: caseSensitive).matches(path)
        }
        return false
    }

    static func describe(_ component: AppleAppSiteAssociation.Component) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(component)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}

/// A URL split the way the matcher compares it: path, query and fragment as written.
struct URLParts {
    var path: String
    var query: String?
    var fragment: String?

    /// Accepts a full URL (`https://host/path?q#f`) or just its path and what follows.
    init(_ text: String) {
        var rest = Substring(text)
        if let schemeEnd = rest.range(of: "://") {
            rest = rest[schemeEnd.upperBound...]
            rest = rest[(rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex)...]
        }
        if let hash = rest.firstIndex(of: "#") {
            fragment = String(rest[rest.index(after: hash)...])
            rest = rest[..<hash]
        }
        if let question = rest.firstIndex(of: "?") {
            query = String(rest[rest.index(after: question)...])
            rest = rest[..<question]
        }
        path = rest.isEmpty ? "/" : String(rest)
    }

    var queryItems: [(name: String, value: String)] {
        guard let query, !query.isEmpty else { return [] }
        return query.split(separator: "&", omittingEmptySubsequences: true).map { item in
            if let equals = item.firstIndex(of: "=") {
                return (String(item[..<equals]), String(item[item.index(after: equals)...]))
            }
            return (String(item), "")
        }
    }
}
