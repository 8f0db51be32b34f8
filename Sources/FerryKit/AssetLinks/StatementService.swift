/// Answers Digital Asset Links `List` and `Check` queries the way Google's API does: fetch the
/// source's statement list, follow includes (https sources may include only https files, with a
/// fetch budget so include loops end), skip malformed statements, then match.
///
/// Fetching is injected, so the service is pure and the same code checks a file on disk, a
/// server's own output, or the compatibility suite's fixtures.
///
/// ```swift
/// let service = StatementService(fetch: { url in url == "https://go.acme.com/.well-known/assetlinks.json" ? .body(json) : .failure("404 Not Found") })
/// let answer = service.check(source: .web(try WebSite(site: "https://go.acme.com")),
///                            relation: AssetRelation.handleAllURLs,
///                            target: .androidApp(.init(packageName: "com.acme", fingerprints: [fp])))
/// answer.linked   // true
/// ```
public struct StatementService: Sendable {
    public enum FetchResult: Sendable {
        case body(String)
        case failure(String)
    }

    /// A statement as the API lists it.
    public struct Statement: Sendable, Hashable {
        public var source: Asset
        public var relation: String
        public var target: Asset
    }

    public struct ListAnswer: Sendable {
        public var statements: [Statement]
        public var errors: [AssetLinksError]
        /// Notes that are not errors ("No statements were found").
        public var notes: [String]
    }

    public struct CheckAnswer: Sendable {
        public var linked: Bool
        public var errors: [AssetLinksError]
    }

    /// How many files one query may fetch, includes counted.
    public static let fetchBudget = 10

    let fetch: @Sendable (String) -> FetchResult
    let appStatements: @Sendable (AndroidAppAsset) -> String?

    /// - Parameters:
    ///   - fetch: the body at a URL, or why there is none.
    ///   - appStatements: the asset statements an installed app declares, for app sources.
    public init(fetch: @escaping @Sendable (String) -> FetchResult, appStatements: @escaping @Sendable (AndroidAppAsset) -> String? = { _ in nil }) {
        self.fetch = fetch
        self.appStatements = appStatements
    }

    public func list(source: Asset, relation: String? = nil) -> ListAnswer {
        var collector = Collector(service: self)
        let found: [StatementList.Statement]
        switch source {
        case .web(let site):
            found = collector.resolve(url: site.statementListURL, secure: site.isSecure, topLevel: true)
        case .androidApp(let app):
            found = appStatements(app).map { collector.resolve(body: $0, secure: true, topLevel: true) } ?? []
        }
        var seen = Set<Statement>()
        var statements: [Statement] = []
        for statement in found {
            for item in statement.relations where relation == nil || item == relation {
                let listed = Statement(source: source, relation: item, target: statement.target)
                if seen.insert(listed).inserted { statements.append(listed) }
            }
        }
        let notes = found.isEmpty && collector.errors.isEmpty ? ["No statements were found"] : []
        return ListAnswer(statements: statements, errors: collector.errors, notes: notes)
    }

    public func check(source: Asset, relation: String, target: Asset) -> CheckAnswer {
        let answer = list(source: source, relation: relation)
        return CheckAnswer(linked: answer.statements.contains { $0.target.covers(target) }, errors: answer.errors)
    }

    private struct Collector {
        let service: StatementService
        var budget = StatementService.fetchBudget
        var errors: [AssetLinksError] = []

        mutating func resolve(url: String, secure: Bool, topLevel: Bool) -> [StatementList.Statement] {
            guard budget > 0 else {
                if !errors.contains(where: { $0.kind == .fetchBudgetExhausted }) {
                    errors.append(AssetLinksError(.fetchBudgetExhausted, "Fetch budget exhausted after \(StatementService.fetchBudget) files (an include loop?)"))
                }
                return []
            }
            budget -= 1
            switch service.fetch(url) {
            case .failure(let reason):
                errors.append(AssetLinksError(.fetch, "Error fetching \(url): \(reason)"))
                return []
            case .body(let body):
                return resolve(body: body, secure: secure, topLevel: topLevel)
            }
        }

        mutating func resolve(body: String, secure: Bool, topLevel: Bool) -> [StatementList.Statement] {
            let list = StatementList(parsing: body)
            errors += list.errors
            var statements = list.statements
            for include in list.includes {
                let site: WebSite
                do {
                    // An include names a file, so parse it as a site plus path.
                    site = try WebSite(site: Self.origin(of: include))
                } catch {
                    errors.append(.malformed("include '\(include)': \(error.message)"))
                    continue
                }
                if secure, !site.isSecure {
                    errors.append(AssetLinksError(.secureIncludesInsecure, topLevel
                        ? "Insecure URL in fetch stack of secure asset: \(include)"
                        : "Insecure include file included by secure include file: \(include)"))
                    continue
                }
                statements += resolve(url: include, secure: site.isSecure, topLevel: false)
            }
            return statements
        }

        /// `https://host:port/a/b.json` → `https://host:port`.
        static func origin(of url: String) -> String {
            guard let schemeEnd = url.range(of: "://") else { return url }
            let rest = url[schemeEnd.upperBound...]
            let end = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
            return String(url[..<end])
        }
    }
}

/// Builds the assets a query names, with the API's checks on each field.
public enum AssetQuery {
    public static func web(site: String) throws(AssetLinksError) -> Asset {
        guard !site.isEmpty else { throw .query("No site field in the web asset query") }
        do {
            return .web(try WebSite(site: site))
        } catch {
            throw .query("Invalid site '\(site)': \(error.message)")
        }
    }

    public static func androidApp(packageName: String?, fingerprint: String?) throws(AssetLinksError) -> Asset {
        guard let packageName, AndroidAppAsset.isValid(packageName: packageName) else {
            throw .query("Invalid package_name field '\(packageName ?? "")'")
        }
        guard let fingerprint, AndroidAppAsset.isWellFormed(fingerprint: fingerprint) else {
            throw .query("Invalid sha256_fingerprint field '\(fingerprint ?? "")': expected 32 uppercase hex bytes separated by colons")
        }
        return .androidApp(AndroidAppAsset(packageName: packageName, fingerprints: [fingerprint]))
    }

    /// `nil` or empty means "any relation" in a List query; a Check needs one.
    public static func relation(_ relation: String?, required: Bool) throws(AssetLinksError) -> String? {
        guard let relation, !relation.isEmpty else {
            if required { throw .query("Request must contain a relation string") }
            return nil
        }
        do {
            try AssetRelation.validate(relation)
        } catch {
            throw .query(error.message)
        }
        return relation
    }
}
