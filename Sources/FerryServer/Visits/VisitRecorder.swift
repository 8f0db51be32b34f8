import FerryKit
import FerryStore
import Foundation
import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle

/// Records visits off the request path: a bounded queue that requests append to without
/// waiting, written in batches by one task. When the queue is full a visit is dropped and
/// counted; on graceful shutdown everything queued is written before the service ends.
public final class VisitRecorder<Store: LinkStore>: Service, Sendable {
    public struct Counts: Sendable, Hashable {
        public var queued: Int
        public var written: Int
        public var dropped: Int
        /// Visits accepted and not yet written.
        public var pending: Int
    }

    private struct State: Sendable {
        var buffer: [Visit] = []
        var counts = Counts(queued: 0, written: 0, dropped: 0, pending: 0)
        var doorbell: CheckedContinuation<Void, Never>?
    }

    private let store: Store
    private let capacity: Int
    private let batchSize: Int
    private let interval: Duration
    private let logger: Logger
    private let state = NIOLockedValueBox(State())

    public init(store: Store, capacity: Int = 100_000, batchSize: Int = 1000, interval: Duration = .milliseconds(200),
                logger: Logger = Logger(label: "ferry.visits")) {
        self.store = store
        self.capacity = capacity
        self.batchSize = batchSize
        self.interval = interval
        self.logger = logger
    }

    /// Queues a visit without waiting. `false` when the queue was full and the visit dropped.
    @discardableResult
    public func record(_ visit: Visit) -> Bool {
        let (accepted, doorbell) = state.withLockedValue { state -> (Bool, CheckedContinuation<Void, Never>?) in
            guard state.buffer.count < capacity else {
                state.counts.dropped += 1
                return (false, nil)
            }
            state.buffer.append(visit)
            state.counts.queued += 1
            state.counts.pending += 1
            if state.buffer.count >= batchSize, let doorbell = state.doorbell {
                state.doorbell = nil
                return (true, doorbell)
            }
            return (true, nil)
        }
        doorbell?.resume()
        return accepted
    }

    public var counts: Counts { state.withLockedValue { $0.counts } }

    public func run() async throws {
        await withGracefulShutdownHandler {
            while !Task.isShuttingDownGracefully, !Task.isCancelled {
                await waitForWork()
                await writePending(all: false)
            }
        } onGracefulShutdown: {
            self.ring()
        }
        // The server stops before this service does (it is started first), so nothing new
        // arrives now: write everything that is left.
        await writePending(all: true)
    }

    /// Writes everything queued so far; for tests and for callers that need the rows now.
    public func flush() async {
        await writePending(all: true)
    }

    private func ring() {
        state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
            defer { state.doorbell = nil }
            return state.doorbell
        }?.resume()
    }

    private func waitForWork() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    let resumeNow = self.state.withLockedValue { state -> Bool in
                        if state.buffer.count >= self.batchSize { return true }
                        state.doorbell = continuation
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            }
            group.addTask { try? await Task.sleep(for: self.interval) }
            await group.next()
            self.ring()
            group.cancelAll()
        }
    }

    private func writePending(all: Bool) async {
        repeat {
            let batch = state.withLockedValue { state -> [Visit] in
                let batch = Array(state.buffer.prefix(batchSize))
                state.buffer.removeFirst(batch.count)
                return batch
            }
            guard !batch.isEmpty else { return }
            var attempt = 0
            while true {
                do {
                    try await store.record(batch)
                    state.withLockedValue {
                        $0.counts.written += batch.count
                        $0.counts.pending -= batch.count
                    }
                    break
                } catch {
                    attempt += 1
                    logger.warning("writing \(batch.count) visits failed (attempt \(attempt)): \(error)")
                    if attempt >= 3 && !all {
                        // Put the batch back and try again on the next round; the queue bound still holds.
                        state.withLockedValue { $0.buffer.insert(contentsOf: batch, at: 0) }
                        return
                    }
                    try? await Task.sleep(for: .milliseconds(100 * attempt))
                    if attempt >= 50 {
                        state.withLockedValue {
                            $0.counts.dropped += batch.count
                            $0.counts.pending -= batch.count
                        }
                        logger.error("dropped \(batch.count) visits after \(attempt) failed writes")
                        break
                    }
                }
            }
        } while all || state.withLockedValue({ $0.buffer.count >= batchSize })
    }
}
