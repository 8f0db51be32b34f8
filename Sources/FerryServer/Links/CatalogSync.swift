import FerryStore
import Foundation
import Logging
import ServiceLifecycle

/// Keeps a node's catalog in step with the others when several nodes share one database: each
/// change any node announces (PostgreSQL `LISTEN/NOTIFY`) is forgotten here within moments.
/// When the connection drops, notifications may be lost, so everything cached is read again on
/// its next request (and still served while the database is away), and the node listens again; cached entries are also re-read after the catalog's lifetime, so a
/// missed notification cannot leave a node stale for long.
struct CatalogSync: Service {
    let store: any SharedStore
    let apply: @Sendable (StoreChange?) -> Void
    let logger: Logger

    /// - Parameter apply: a change to forget, or `nil` to re-read everything.
    init(store: any SharedStore, logger: Logger, apply: @escaping @Sendable (StoreChange?) -> Void) {
        self.store = store
        self.logger = logger
        self.apply = apply
    }

    func run() async throws {
        var delay = Duration.milliseconds(250)
        let clock = ContinuousClock()
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            let listening = clock.now
            do {
                try await cancelWhenGracefulShutdown {
                    for try await change in store.changes() {
                        apply(change)
                    }
                }
            } catch is CancellationError {
                return
            } catch {
                if Task.isShuttingDownGracefully || Task.isCancelled { return }
                logger.warning("listening for other nodes' changes failed: \(error); listening again in \(delay)")
            }
            // Whatever was announced while not listening is unknown here.
            apply(nil)
            // A connection that held for a while was a good one: the next drop starts afresh.
            if clock.now - listening > .seconds(10) { delay = .milliseconds(250) }
            let pause = delay
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: pause) }
            delay = min(delay * 2, .seconds(10))
        }
    }
}
