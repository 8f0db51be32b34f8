import FerryKit
import FerryStore
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import ServiceLifecycle

/// Records visits off the request path: a bounded queue that requests append to without
/// waiting, written in batches by one task. When the queue is full a visit is dropped and
/// counted; on graceful shutdown everything queued is written before the service ends.
///
/// The queue is split into shards, one per thread that records (the event loops), so two
/// clicks on two cores never wait for each other; the writer empties them all.
public final class VisitRecorder<Store: LinkStore>: Service, Sendable {
    public struct Counts: Sendable, Hashable {
        public var queued: Int
        public var written: Int
        public var dropped: Int
        /// Visits accepted and not yet written.
        public var pending: Int
    }

    /// What a preview page reported about the device that received a token.
    public struct SignalsUpdate: Sendable, Hashable {
        public var token: String
        public var screen: Screen?
        public var timeZone: String?
        public var languages: [String]

        public init(token: String, screen: Screen?, timeZone: String?, languages: [String]) {
            self.token = token
            self.screen = screen
            self.timeZone = timeZone
            self.languages = languages
        }
    }

    private struct Shard: Sendable {
        var buffer: [Visit] = []
        /// Deferred intents of the visits in `buffer`, written right after them.
        var intents: [DeferredIntent] = []
        var updates: [SignalsUpdate] = []
        var queued = 0
        /// Refused because the shard was full.
        var dropped = 0
    }

    private struct Writer: Sendable {
        var written = 0
        /// Accepted, then given up on after the store failed too often.
        var dropped = 0
    }

    private let store: Store
    private let shardCapacity: Int
    private let batchSize: Int
    private let interval: Duration
    private let writeDeadline: Duration
    private let logger: Logger
    private let shards: [NIOLockedValueBox<Shard>]
    private let writer = NIOLockedValueBox(Writer())
    private let doorbell = Doorbell()

    /// - Parameters:
    ///   - capacity: visits the queue holds at most (split evenly over the shards, one per core by
    ///     default: the event loops, which record nearly every visit).
    ///   - batchSize: visits per write (and per transaction with their counters: the larger,
    ///     the fewer counter rows per visit); a shard reaching it wakes the writer early.
    ///   - interval: the longest a visit waits to be written. Deferred intents do not wait:
    ///     an install may follow its click within seconds, so queuing one wakes the writer.
    ///   - writeDeadline: a write not finished by then is given up and tried again. A database
    ///     call may never return (seen once with PostgreSQL stopped under load), which would
    ///     otherwise hold every queued visit, and a graceful stop, for ever. Keep
    ///     it well above the longest a store may take to commit (PostgreSQL's statement timeout
    ///     ends a slower write first), or a write given up on may still commit and be written twice.
    public init(store: Store, capacity: Int = 200_000, batchSize: Int = 10_000, interval: Duration = .seconds(1),
                writeDeadline: Duration = .seconds(30),
                shards: Int = max(2, System.coreCount), logger: Logger = Logger(label: "ferry.visits")) {
        self.store = store
        self.shardCapacity = max(1, capacity / max(1, shards))
        self.batchSize = batchSize
        self.interval = interval
        self.writeDeadline = writeDeadline
        self.logger = logger
        self.shards = (0..<max(1, shards)).map { _ in NIOLockedValueBox(Shard()) }
    }

    /// Queues a visit, and the deferred intent it left, without waiting. `false` when the queue
    /// was full and both were dropped.
    @discardableResult
    public func record(_ visit: consuming Visit, intent: consuming DeferredIntent? = nil) -> Bool {
        let shard = shards[ThreadScratch.current.number % shards.count]
        // Moved into the queue rather than copied (a copy retains every string of the visit).
        var visit = Optional(visit)
        let leftIntent = intent != nil
        let (accepted, full) = shard.withLockedValue { shard -> (Bool, Bool) in
            guard shard.buffer.count < shardCapacity else {
                shard.dropped += 1
                return (false, false)
            }
            shard.buffer.append(visit.take()!)
            if let intent = intent.take() { shard.intents.append(intent) }
            shard.queued += 1
            return (true, shard.buffer.count == batchSize || leftIntent)
        }
        if full { ring() }
        return accepted
    }

    /// Queues signals for an intent; written after the intents queued before it. Dropped
    /// silently when the queue is full (the token match does not need them).
    public func record(_ update: SignalsUpdate) {
        shards[ThreadScratch.current.number % shards.count].withLockedValue { shard in
            if shard.updates.count < shardCapacity { shard.updates.append(update) }
        }
        ring()
    }

    public var counts: Counts {
        let (queued, refused) = shards.reduce((0, 0)) { total, shard in
            shard.withLockedValue { (total.0 + $0.queued, total.1 + $0.dropped) }
        }
        let (written, givenUp) = writer.withLockedValue { ($0.written, $0.dropped) }
        return Counts(queued: queued, written: written, dropped: refused + givenUp, pending: queued - written - givenUp)
    }

    public func run() async throws {
        await withGracefulShutdownHandler {
            // Visits are written every `interval` (or when a shard holds a batch): the more in a
            // transaction, the fewer counter rows per visit. Intents go as soon as they come.
            var visitsDue = ContinuousClock.now + interval
            while !Task.isShuttingDownGracefully, !Task.isCancelled {
                await waitForWork(until: visitsDue)
                let visits = ContinuousClock.now >= visitsDue || hasFullBatch
                await writePending(all: false, visits: visits)
                if visits { visitsDue = ContinuousClock.now + interval }
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
        doorbell.ring()
    }

    private var hasFullBatch: Bool {
        shards.contains { $0.withLockedValue { $0.buffer.count >= batchSize } }
    }

    /// A shard that filled up, or got an intent, while the writer was busy rang already: the
    /// doorbell keeps that ring, so this returns at once.
    private func waitForWork(until deadline: ContinuousClock.Instant) async {
        await doorbell.wait(until: deadline)
    }

    /// Takes everything queued (a swap per shard, so requests wait on a lock only for that)
    /// and writes it in batches: visits, then the intents they left, then the signals pages
    /// reported for those intents.
    private func writePending(all: Bool, visits takeVisits: Bool = true) async {
        repeat {
            // Each shard's visits are written as they are taken (a batch is split only when
            // larger than `batchSize`): copying them into one array would retain every string.
            var batches: [[Visit]] = []
            var intents: [DeferredIntent] = []
            var updates: [SignalsUpdate] = []
            for shard in shards {
                let (visits, newIntents, newUpdates) = shard.withLockedValue { shard in
                    var emptied: [Visit] = []
                    if takeVisits || all {
                        emptied.reserveCapacity(min(batchSize, shardCapacity))
                        swap(&emptied, &shard.buffer)
                    }
                    defer { shard.intents = []; shard.updates = [] }
                    return (emptied, shard.intents, shard.updates)
                }
                if visits.count <= batchSize {
                    if !visits.isEmpty { batches.append(visits) }
                } else {
                    batches += stride(from: 0, to: visits.count, by: batchSize).map { Array(visits[$0..<min(visits.count, $0 + batchSize)]) }
                }
                intents += newIntents
                updates += newUpdates
            }
            await writeIntents(intents, updates: updates)
            guard !batches.isEmpty else { return }
            for (index, batch) in batches.enumerated() {
                guard await write(batch, giveUp: !all) else {
                    // Put the rest back in front and try again on the next round.
                    shards[0].withLockedValue { $0.buffer.insert(contentsOf: batches[index...].joined(), at: 0) }
                    return
                }
            }
        } while all || (takeVisits && hasFullBatch)
    }

    /// Intents go first: an install may ask for its token a moment after the click.
    private func writeIntents(_ intents: [DeferredIntent], updates: [SignalsUpdate]) async {
        for attempt in 1...3 {
            do {
                try await withTimeout(writeDeadline) { [store] in
                    try await store.insert(intents)
                    for update in updates {
                        try await store.updateSignals(token: update.token, screen: update.screen, timeZone: update.timeZone, languages: update.languages)
                    }
                }
                return
            } catch {
                logger.warning("writing \(intents.count) deferred intents failed (attempt \(attempt)): \(error)")
                try? await Task.sleep(for: .milliseconds(100 * attempt))
            }
        }
        logger.error("dropped \(intents.count) deferred intents and \(updates.count) signal reports after 3 failed writes")
    }

    /// Writes one batch, retrying. `false` when it gave up for now (three failures and
    /// `giveUp`); when it must not give up, a batch that fails 50 times is dropped and counted.
    private func write(_ batch: [Visit], giveUp: Bool) async -> Bool {
        var attempt = 0
        while true {
            do {
                try await withTimeout(writeDeadline) { [store] in try await store.record(batch) }
                writer.withLockedValue { $0.written += batch.count }
                return true
            } catch {
                attempt += 1
                logger.warning("writing \(batch.count) visits failed (attempt \(attempt)): \(error)")
                if attempt >= 3 && giveUp { return false }
                try? await Task.sleep(for: .milliseconds(100 * attempt))
                if attempt >= 50 {
                    writer.withLockedValue { $0.dropped += batch.count }
                    logger.error("dropped \(batch.count) visits after \(attempt) failed writes")
                    return true
                }
            }
        }
    }
}

/// Housekeeping every few minutes: deletes deferred intents once they expired, so the table
/// holds only clicks that can still be matched, and raw visits older than the retention
/// period (their counters stay, so no number changes).
public struct Janitor<Store: LinkStore>: Service {
    let store: Store
    /// Days raw visits are kept; 0 keeps them for ever.
    let retentionDays: Int
    let logger: Logger
    var every: Duration = .seconds(300)

    public func run() async throws {
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            await sweep(now: Date())
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: every) }
        }
    }

    func sweep(now: Date) async {
        do {
            let purged = try await store.purgeIntents(expiredBefore: now)
            if purged > 0 { logger.debug("purged \(purged) expired deferred intents") }
        } catch {
            logger.warning("purging expired deferred intents failed: \(error)")
        }
        guard retentionDays > 0 else { return }
        do {
            let pruned = try await store.pruneVisits(before: now - Double(retentionDays) * 86_400)
            if pruned > 0 { logger.info("pruned \(pruned) raw visits older than \(retentionDays) days (statistics keep them)") }
        } catch {
            logger.warning("pruning old visits failed: \(error)")
        }
    }
}
