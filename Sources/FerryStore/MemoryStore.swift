import FerryKit

/// A store that keeps everything in memory: for tests, and for trying Ferry without a database.
public actor MemoryStore: LinkStore {
    private var apps: [String: App] = [:]
    private var domains: [String: Domain] = [:]
    private var links: [String: Link] = [:]

    public init() {}

    public func app(id: String) -> App? { apps[id] }

    public func domain(host: String) -> Domain? {
        let host = host.lowercased()
        return domains[host] ?? domains.values.first { $0.alternateHost == host }
    }

    public func link(domain: String, code: String) -> Link? {
        links[Self.key(domain, code)]
    }

    public func save(_ app: App) throws(StoreError) {
        do { try app.validate() } catch { throw .invalid(error.description) }
        apps[app.id] = app
    }

    public func save(_ domain: Domain) throws(StoreError) {
        do { try domain.validate() } catch { throw .invalid(error.description) }
        guard apps[domain.appID] != nil else { throw .notFound("no app '\(domain.appID)'") }
        for host in [domain.host, domain.alternateHost].compactMap({ $0 }) {
            if let owner = self.domain(host: host), owner.host != domain.host {
                throw .conflict("\(host) already belongs to the domain \(owner.host)")
            }
        }
        domains[domain.host] = domain
    }

    public func insert(_ link: Link) throws(StoreError) {
        guard let code = link.code else { throw .invalid("code: a stored link needs a code") }
        guard let domain = domains[link.domain] else { throw .notFound("no domain '\(link.domain)'") }
        do { try link.validate(for: apps[domain.appID]) } catch { throw .invalid(error.description) }
        let key = Self.key(link.domain, code)
        guard links[key] == nil else { throw .conflict("the code '\(code)' is already taken on \(link.domain)") }
        links[key] = link
    }

    private static func key(_ domain: String, _ code: String) -> String { "\(domain.lowercased())/\(code)" }
}
