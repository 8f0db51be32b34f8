import Foundation

/// A parsed `assetlinks.json` (or an app's asset statements): its statements and include
/// directives, and an error for everything it had to skip. A malformed statement is skipped
/// without losing the others; a body that is not a JSON array yields nothing.
///
/// ```swift
/// let list = StatementList(parsing: body)
/// list.statements.contains { $0.relations.contains(AssetRelation.handleAllURLs) }
/// list.errors   // ["statement 2: no target specified", …]
/// ```
public struct StatementList: Sendable, Hashable {
    public struct Statement: Sendable, Hashable {
        public var relations: [String]
        public var target: Asset
        /// Android 15's `dynamic_app_link_components` for `handle_all_urls`, when given.
        public var dynamicAppLinkComponents: [AppleAppSiteAssociation.Component]?
    }

    public var statements: [Statement] = []
    /// Include directives, in order, as written (validated when they are fetched).
    public var includes: [String] = []
    public var errors: [AssetLinksError] = []

    public init(parsing body: String) {
        let value: JSONValue
        do {
            value = try JSONValue.parse(Data(body.utf8))
        } catch {
            errors.append(.malformed("Statement list is not valid JSON: \(AASAReader.explain(error))"))
            return
        }
        guard case .array(let elements) = value else {
            switch value {
            case .object: errors.append(.malformed("Could not parse statement list: expected a single array of statements, found an object"))
            case .number: errors.append(.malformed("Statement list is not valid JSON: a bare number, where a single array was expected"))
            default: errors.append(.malformed("Could not parse statement list: expected a single array, found \(value.typeName)"))
            }
            return
        }
        for (index, element) in elements.enumerated() {
            do {
                try read(element)
            } catch {
                errors.append(.malformed("statement \(index + 1): \(error.message)"))
            }
        }
    }

    private mutating func read(_ element: JSONValue) throws(AssetLinksError) {
        guard case .object(let object) = element else {
            throw .malformed("Could not parse statement list: the element is not an object")
        }
        if let include = object["include"] {
            for field in ["relation", "target"] where object[field] != nil {
                throw .malformed("an include directive cannot have the invalid field '\(field)'")
            }
            guard case .string(let url) = include else { throw .malformed("include is not a string") }
            includes.append(url)
            return
        }
        guard object["relation"] != nil || object["target"] != nil else {
            throw .malformed("Could not parse statement list: the element is neither a statement nor an include")
        }
        guard let relationValue = object["relation"] else { throw .malformed("the statement has no relation array specified") }
        guard case .array(let relationItems) = relationValue else { throw .malformed("relation is not an array") }
        var relations: [String] = []
        for item in relationItems {
            guard case .string(let relation) = item else { throw .malformed("the statement has an invalid relation (not a string)") }
            try AssetRelation.validate(relation)
            relations.append(relation)
        }
        guard let targetValue = object["target"] else { throw .malformed("the statement has no target specified") }
        let target = try Self.asset(targetValue)
        var components: [AppleAppSiteAssociation.Component]?
        if case .object(let extensions)? = object["relation_extensions"],
           case .object(let handleAll)? = extensions[AssetRelation.handleAllURLs],
           let dynamic = handleAll["dynamic_app_link_components"] {
            components = try Self.components(dynamic)
        }
        statements.append(Statement(relations: relations, target: target, dynamicAppLinkComponents: components))
    }

    static func asset(_ value: JSONValue) throws(AssetLinksError) -> Asset {
        guard case .object(let object) = value else { throw .malformed("target is not an object") }
        guard case .string(let namespace)? = object["namespace"] else { throw .malformed("target has no namespace") }
        switch namespace {
        case "web":
            guard case .string(let site)? = object["site"] else { throw .malformed("web target has no site field") }
            return .web(try WebSite(site: site))
        case "android_app":
            guard case .string(let package)? = object["package_name"] else { throw .malformed("android_app target has no package_name field") }
            guard AndroidAppAsset.isValid(packageName: package) else { throw .malformed("android_app target has an invalid package name '\(package)'") }
            guard let fingerprintsValue = object["sha256_cert_fingerprints"] else {
                throw .malformed("no sha256_cert_fingerprints field in android app asset descriptor")
            }
            guard case .array(let items) = fingerprintsValue else { throw .malformed("sha256_cert_fingerprints is not an array") }
            var fingerprints: [String] = []
            for item in items {
                guard case .string(let fingerprint) = item else { throw .malformed("sha256_cert_fingerprints must hold strings") }
                guard AndroidAppAsset.isWellFormed(fingerprint: fingerprint) else {
                    throw .malformed("malformed cert fingerprint '\(fingerprint)': expected 32 uppercase hex bytes separated by colons")
                }
                fingerprints.append(fingerprint)
            }
            guard !fingerprints.isEmpty else { throw .malformed("an android_app target must contain at least one certificate") }
            return .androidApp(AndroidAppAsset(packageName: package, fingerprints: fingerprints))
        default:
            throw .malformed("unrecognized namespace '\(namespace)' (expected web or android_app)")
        }
    }

    /// `dynamic_app_link_components` share the AASA component shape (`/`, `?`, `#`, `exclude`).
    static func components(_ value: JSONValue) throws(AssetLinksError) -> [AppleAppSiteAssociation.Component] {
        guard case .array = value else { throw .malformed("dynamic_app_link_components is not an array") }
        let wrapped = JSONValue.object(["applinks": .object(["details": .array([.object(["appIDs": .array([]), "components": value])])])])
        let read = AASAReader.read(wrapped)
        if let error = read.errors.first { throw .malformed("dynamic_app_link_components: \(error.message)") }
        return read.file.applinks?.details.first?.components ?? []
    }
}
