import Foundation

/// Generates a domain's `assetlinks.json` from its app: one `handle_all_urls` statement for the
/// Android app with every signing fingerprint, narrowed on Android 15+ by
/// `dynamic_app_link_components` built from the same route table as the AASA file (Ferry's own
/// paths excluded, then the routes, then short links).
public enum AssetLinksGenerator {
    struct Statement: Encodable {
        struct Target: Encodable {
            let namespace = "android_app"
            let package_name: String
            let sha256_cert_fingerprints: [String]
        }

        struct Extension: Encodable {
            let dynamic_app_link_components: [AppleAppSiteAssociation.Component]
        }

        let relation: [String]
        let target: Target
        let relation_extensions: [String: Extension]
    }

    /// The file's bytes, exactly as served (`[]` for an app without Android).
    public static func data(for app: App) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(statements(for: app))) ?? Data("[]".utf8)
    }

    static func statements(for app: App) -> [Statement] {
        guard let android = app.android else { return [] }
        // The AASA generator's components without their comments: Android reads `/`, `?`, `#`
        // and `exclude` only.
        let components = AASAGenerator.components(forRoutes: app.routes).map { component in
            AppleAppSiteAssociation.Component(path: component.path, query: component.query, fragment: component.fragment, exclude: component.exclude)
        }
        return [Statement(
            relation: [AssetRelation.handleAllURLs],
            target: .init(package_name: android.packageName, sha256_cert_fingerprints: android.sha256CertFingerprints),
            relation_extensions: [AssetRelation.handleAllURLs: .init(dynamic_app_link_components: components)])]
    }

    /// Whether an `assetlinks.json` body grants `package` signed with `fingerprint` the
    /// `handle_all_urls` relation, and what in the file is wrong.
    public static func grantsHandleAllURLs(_ body: String, package: String, fingerprint: String) -> (granted: Bool, errors: [AssetLinksError]) {
        let list = StatementList(parsing: body)
        let query = Asset.androidApp(AndroidAppAsset(packageName: package, fingerprints: [fingerprint]))
        let granted = list.statements.contains { $0.relations.contains(AssetRelation.handleAllURLs) && $0.target.covers(query) }
        var errors = list.errors
        if !list.includes.isEmpty {
            errors.append(.malformed("the file has include directives, which this offline check does not follow"))
        }
        return (granted, errors)
    }
}
