import Foundation

/// A change one node made that other nodes' caches must hear about. Stores shared by several
/// processes (PostgreSQL) carry these between them; a single-process store has no one to tell.
public enum StoreChange: Sendable, Hashable {
    case link(domain: String, code: String)
    /// Every link of a domain.
    case links(domain: String)
    case app(id: String)
    /// Which host belongs to which domain.
    case domains

    /// `link go.acme.com spring`, `app acme`, …: the payload of a notification.
    public var payload: String {
        switch self {
        case .link(let domain, let code): "link \(domain) \(code)"
        case .links(let domain): "links \(domain)"
        case .app(let id): "app \(id)"
        case .domains: "domains"
        }
    }

    public init?(payload: String) {
        let parts = payload.split(separator: " ").map(String.init)
        switch (parts.first, parts.count) {
        case ("link", 3): self = .link(domain: parts[1], code: parts[2])
        case ("links", 2): self = .links(domain: parts[1])
        case ("app", 2): self = .app(id: parts[1])
        case ("domains", 1): self = .domains
        default: return nil
        }
    }
}

/// What a store shared by several nodes adds: telling the others about changes.
public protocol SharedStore: LinkStore {
    /// Tells every node (this one too) about a change.
    func announce(_ change: StoreChange) async throws(StoreError)
    /// Changes announced by any node, as they come. The stream ends with an error when the
    /// connection drops: notifications may have been missed, so the caller forgets what it
    /// cached and listens again.
    func changes() -> AsyncThrowingStream<StoreChange, any Error>
}
