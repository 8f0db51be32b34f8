import Foundation

/// Reads real-world `apple-app-site-association` files the way iOS does, and says what is
/// wrong with broken ones: wrong types, malformed App IDs, unknown keys, mixed formats,
/// a file over Apple's 128 KB limit.
///
/// ```swift
/// let result = try AASAReader.parse(data)
/// for finding in result.diagnostics { print(finding) }   // "error: applinks.details[0].appIDs[0]: 'com.acme' is not an App ID…"
/// ```
public enum AASAReader {
    public struct Result: Sendable {
        public var file: AppleAppSiteAssociation
        public var diagnostics: [Diagnostic]

        public var errors: [Diagnostic] { diagnostics.filter { $0.severity == .error } }
        public var warnings: [Diagnostic] { diagnostics.filter { $0.severity == .warning } }
    }

    /// Apple's limit on the file's size.
    public static let maximumSize = 128 * 1024

    /// Parses bytes. Throws only when they are not a JSON object; everything else becomes a
    /// diagnostic next to the parts that could be read.
    public static func parse(_ data: Data) throws(AASAReadError) -> Result {
        let value: JSONValue
        let hasByteOrderMark = data.starts(with: [0xEF, 0xBB, 0xBF])
        do {
            value = try JSONValue.parse(hasByteOrderMark ? data.dropFirst(3) : data)
        } catch {
            throw AASAReadError(message: "the file is not valid JSON (\(Self.explain(error)))")
        }
        var result = read(value)
        if let fatal = result.diagnostics.first(where: \.isFatal) {
            throw AASAReadError(message: fatal.message)
        }
        if hasByteOrderMark {
            result.diagnostics.insert(Diagnostic(.warning, "", "the file starts with a UTF-8 byte order mark; serve plain JSON without it"), at: 0)
        }
        if data.count > maximumSize {
            result.diagnostics.insert(Diagnostic(.error, "", "the file is \(data.count) bytes; Apple reads at most \(maximumSize) (128 KB)"), at: 0)
        }
        return result
    }

    public static func read(_ value: JSONValue) -> Result {
        var reader = Reader()
        let file = reader.file(value)
        return Result(file: file, diagnostics: reader.diagnostics)
    }

    static func explain(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            let underlying = (context.underlyingError as? NSError)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return underlying ?? context.debugDescription
        }
        return "\(error)"
    }
}

public struct AASAReadError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

private struct Reader {
    var diagnostics: [Diagnostic] = []
    private var sawPaths = false
    private var sawComponents = false

    mutating func error(_ path: String, _ message: String, fatal: Bool = false) {
        diagnostics.append(Diagnostic(.error, path, message, fatal: fatal))
    }

    mutating func warning(_ path: String, _ message: String) {
        diagnostics.append(Diagnostic(.warning, path, message))
    }

    mutating func object(_ value: JSONValue, _ path: String, known: Set<String>) -> [String: JSONValue]? {
        guard case .object(let object) = value else {
            error(path, "expected an object, found \(value.typeName)")
            return nil
        }
        for key in object.keys.sorted() where !known.contains(key) {
            let suggestion = known.sorted().first { editDistance($0.lowercased(), key.lowercased()) <= 2 }.map { " (did you mean '\($0)'?)" } ?? ""
            warning(join(path, key), "unknown key '\(key)' is ignored\(suggestion)")
        }
        return object
    }

    mutating func string(_ value: JSONValue?, _ path: String) -> String? {
        guard let value else { return nil }
        guard case .string(let text) = value else {
            error(path, "expected a string, found \(value.typeName)")
            return nil
        }
        return text
    }

    mutating func bool(_ value: JSONValue?, _ path: String) -> Bool? {
        guard let value else { return nil }
        guard case .bool(let flag) = value else {
            error(path, "expected true or false, found \(value.typeName)")
            return nil
        }
        return flag
    }

    mutating func strings(_ value: JSONValue?, _ path: String) -> [String]? {
        guard let value else { return nil }
        guard case .array(let items) = value else {
            error(path, "expected an array of strings, found \(value.typeName)")
            return nil
        }
        return items.enumerated().compactMap { string($1, "\(path)[\($0)]") }
    }

    mutating func appIDs(_ ids: [String], _ path: String) {
        for (index, id) in ids.enumerated() {
            if let problem = AppleAppID.problem(with: id) { error("\(path)[\(index)]", problem) }
        }
    }

    mutating func file(_ value: JSONValue) -> AppleAppSiteAssociation {
        guard let root = object(value, "", known: ["applinks", "webcredentials", "appclips", "activitycontinuation"]) else {
            diagnostics[diagnostics.count - 1].isFatal = true
            return AppleAppSiteAssociation()
        }
        var file = AppleAppSiteAssociation()
        if let applinks = root["applinks"] { file.applinks = appLinks(applinks) }
        for key in ["webcredentials", "appclips", "activitycontinuation"] {
            guard let section = root[key], let object = object(section, key, known: ["apps"]) else { continue }
            let apps = strings(object["apps"], "\(key).apps") ?? []
            if object["apps"] == nil { error(key, "'\(key)' needs an 'apps' array") }
            appIDs(apps, "\(key).apps")
            let list = AppleAppSiteAssociation.AppList(apps: apps)
            switch key {
            case "webcredentials": file.webcredentials = list
            case "appclips": file.appclips = list
            default: file.activitycontinuation = list
            }
        }
        if root.isEmpty { warning("", "the file is empty: no app is associated with this domain") }
        if sawPaths, sawComponents {
            warning("applinks.details", "the file mixes legacy 'paths' and 'components'; iOS 13+ reads only 'components' where both are given, so keep to one format")
        }
        return file
    }

    mutating func appLinks(_ value: JSONValue) -> AppleAppSiteAssociation.AppLinks? {
        guard let object = object(value, "applinks", known: ["apps", "details", "defaults", "substitutionVariables"]) else { return nil }
        var links = AppleAppSiteAssociation.AppLinks(details: [])
        links.apps = strings(object["apps"], "applinks.apps")
        if let apps = links.apps, !apps.isEmpty {
            warning("applinks.apps", "'apps' should be an empty array; App IDs belong in 'details'")
        }
        if let defaults = object["defaults"] { links.defaults = componentDefaults(defaults, "applinks.defaults") }
        if let variables = object["substitutionVariables"] {
            links.substitutionVariables = substitutionVariables(variables)
        }
        switch object["details"] {
        case .array(let details)?:
            for (index, detail) in details.enumerated() {
                if let read = self.detail(detail, "applinks.details[\(index)]") { links.details.append(read) }
            }
        case .object(let byAppID)?:
            // The earliest iOS 9 form: {"details": {"TEAM.bundle": {"paths": […]}}}.
            warning("applinks.details", "'details' as an object keyed by App ID is the pre-release iOS 9 form; use an array")
            for appID in byAppID.keys.sorted() {
                let path = "applinks.details.\(appID)"
                if let problem = AppleAppID.problem(with: appID) { error(path, problem) }
                if var read = detail(byAppID[appID]!, path) {
                    read.appID = appID
                    links.details.append(read)
                }
            }
        case let other?:
            error("applinks.details", "expected an array, found \(other.typeName)")
        case nil:
            error("applinks", "'applinks' has no 'details': no path opens the app")
        }
        return links
    }

    mutating func substitutionVariables(_ value: JSONValue) -> [String: [String]]? {
        guard case .object(let object) = value else {
            error("applinks.substitutionVariables", "expected an object of name → array of strings, found \(value.typeName)")
            return nil
        }
        var variables: [String: [String]] = [:]
        for name in object.keys.sorted() {
            let path = "applinks.substitutionVariables.\(name)"
            if name.contains("$") || name.contains("(") || name.contains(")") {
                error(path, "variable names can't contain '$', '(' or ')'")
            }
            if AASAPattern.builtInVariables.contains(name) {
                warning(path, "'\(name)' is also a built-in variable; this definition replaces it")
            }
            let values = strings(object[name], path) ?? []
            for (index, value) in values.enumerated() where value.contains("$(") {
                error("\(path)[\(index)]", "a variable's values can't use other variables")
            }
            variables[name] = values
        }
        return variables
    }

    mutating func componentDefaults(_ value: JSONValue, _ path: String) -> AppleAppSiteAssociation.ComponentDefaults? {
        guard let object = object(value, path, known: ["caseSensitive", "percentEncoded"]) else { return nil }
        return .init(caseSensitive: bool(object["caseSensitive"], "\(path).caseSensitive"),
                     percentEncoded: bool(object["percentEncoded"], "\(path).percentEncoded"))
    }

    mutating func detail(_ value: JSONValue, _ path: String) -> AppleAppSiteAssociation.Detail? {
        guard let object = object(value, path, known: ["appID", "appIDs", "paths", "components", "defaults"]) else { return nil }
        var detail = AppleAppSiteAssociation.Detail()
        detail.appID = string(object["appID"], "\(path).appID")
        detail.appIDs = strings(object["appIDs"], "\(path).appIDs")
        if let ids = detail.appIDs {
            appIDs(ids, "\(path).appIDs")
            if detail.appID != nil { warning("\(path).appID", "'appID' is ignored because 'appIDs' is present") }
            if ids.isEmpty { warning("\(path).appIDs", "'appIDs' is empty: this detail applies to no app") }
        } else if let id = detail.appID {
            if let problem = AppleAppID.problem(with: id) { error("\(path).appID", problem) }
        } else {
            error(path, "the detail names no app: add 'appIDs'")
        }
        detail.paths = strings(object["paths"], "\(path).paths")
        if detail.paths != nil { sawPaths = true }
        if let defaults = object["defaults"] { detail.defaults = componentDefaults(defaults, "\(path).defaults") }
        if let components = object["components"] {
            sawComponents = true
            if case .array(let items) = components {
                detail.components = items.enumerated().compactMap { component($1, "\(path).components[\($0)]") }
            } else {
                error("\(path).components", "expected an array, found \(components.typeName)")
            }
        }
        if detail.paths == nil, detail.components == nil {
            warning(path, "the detail has neither 'components' nor 'paths': no URL opens the app")
        }
        return detail
    }

    mutating func component(_ value: JSONValue, _ path: String) -> AppleAppSiteAssociation.Component? {
        guard let object = object(value, path, known: ["/", "?", "#", "exclude", "caseSensitive", "percentEncoded", "comment"]) else { return nil }
        var component = AppleAppSiteAssociation.Component()
        component.path = string(object["/"], "\(path)./")
        component.fragment = string(object["#"], "\(path).#")
        switch object["?"] {
        case .string(let text)?: component.query = .string(text)
        case .object(let items)?:
            var patterns: [String: String] = [:]
            for name in items.keys.sorted() {
                if let pattern = string(items[name], "\(path).?.\(name)") { patterns[name] = pattern }
            }
            component.query = .items(patterns)
        case let other?: error("\(path).?", "expected a string or an object of query item patterns, found \(other.typeName)")
        case nil: break
        }
        component.exclude = bool(object["exclude"], "\(path).exclude")
        component.caseSensitive = bool(object["caseSensitive"], "\(path).caseSensitive")
        component.percentEncoded = bool(object["percentEncoded"], "\(path).percentEncoded")
        component.comment = string(object["comment"], "\(path).comment")
        return component
    }

    /// Levenshtein distance, to suggest the key a typo meant.
    private func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }

    private func join(_ path: String, _ key: String) -> String {
        path.isEmpty ? key : "\(path).\(key)"
    }
}
