import FerryKit
import FerryStore
import Foundation
import Testing
@testable import FerryServer

@Suite struct VisitRecorderTests {
    static let visit = Visit(
        at: Date(timeIntervalSince1970: 1_800_000_000), domain: "go.acme.example", code: "spring", path: "/spring",
        visitor: VisitorClassifier.shared.classify(userAgent: ServerFixtures.iPhone), decision: .appStore,
        referrerHost: nil, tags: LinkTags(campaign: "spring"), ipHash: "h")

    /// One thread fills one shard: a quarter of the capacity here. What does not fit is refused
    /// and counted, and a flush writes everything that was accepted.
    @Test func aFullQueueRefusesAndCountsAndAFlushWritesTheRest() async throws {
        let store = MemoryStore()
        let recorder = VisitRecorder(store: store, capacity: 100, batchSize: 30, shards: 4)
        let accepted = (0..<150).filter { _ in recorder.record(Self.visit) }.count
        #expect(accepted == 25)
        #expect(recorder.counts == .init(queued: 25, written: 0, dropped: 125, pending: 25))
        await recorder.flush()
        #expect(recorder.counts == .init(queued: 25, written: 25, dropped: 125, pending: 0))
        #expect(try await store.visitCount() == 25)
        #expect(recorder.record(Self.visit), "room again after the flush")
    }

    /// Visits wait for their interval (bigger batches, fewer counter rows); an intent does not,
    /// since the install it waits for may come seconds after the click.
    @Test func intentsAreWrittenAtOnceAndVisitsInTheirInterval() async throws {
        let store = MemoryStore()
        let recorder = VisitRecorder(store: store, interval: .seconds(30))
        let service = Task { try await recorder.run() }
        defer { service.cancel() }
        let now = Date()
        recorder.record(Self.visit)
        recorder.record(Self.visit, intent: DeferredIntent(token: "tokenNOWNOWNOWNOWNOWNO", appID: "acme", domain: "go.acme.example",
                                                           code: "spring", path: "/spring", signals: DeviceSignals(ipHash: "h", platform: .android),
                                                           createdAt: now, expiresAt: now + 3600))
        var stored = false
        for _ in 0..<100 where !stored {
            stored = !(try await store.intentCandidates(appID: "acme", ipHash: "h", at: now).isEmpty)
            if !stored { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(stored, "the intent is in the store within a second")
        #expect(try await store.visitCount() == 0, "the visits wait for their interval")
        await recorder.flush()
        #expect(try await store.visitCount() == 2)
    }

    /// A write that never finishes (a connection that vanished mid-query, seen with PostgreSQL
    /// stopped under load) is given up on at the deadline and tried again: no visit is lost, and
    /// a graceful stop does not wait for ever.
    @Test(.timeLimit(.minutes(1))) func aWriteThatNeverFinishesIsGivenUpOnAndTriedAgain() async throws {
        let store = MemoryStore()
        await store.stallVisitWrites(1)
        let recorder = VisitRecorder(store: store, writeDeadline: .milliseconds(300))
        for _ in 0..<5 { recorder.record(Self.visit) }
        await recorder.flush()
        #expect(try await store.visitCount() == 5)
        #expect(recorder.counts == .init(queued: 5, written: 5, dropped: 0, pending: 0))
        await store.close()
    }
}

/// The doorbell of the recorder's and the dispatcher's loops: a wake-up is never lost, which
/// once left a stopping server waiting for ever (a graceful shutdown rang just before its loop
/// started waiting).
@Suite(.timeLimit(.minutes(1))) struct DoorbellTests {
    @Test func aRingBeforeTheWaitEndsTheNextWait() async {
        let bell = Doorbell()
        bell.ring()
        await bell.wait(until: .now + .seconds(3600))
    }

    @Test func aRingWakesAWaiter() async throws {
        let bell = Doorbell()
        let waiting = Task { await bell.wait(until: .now + .seconds(3600)) }
        try await Task.sleep(for: .milliseconds(50))
        bell.ring()
        await waiting.value
    }

    @Test func theDeadlineEndsAWaitNobodyRings() async {
        let bell = Doorbell()
        let started = ContinuousClock.now
        await bell.wait(until: started + .milliseconds(100))
        #expect(ContinuousClock.now - started >= .milliseconds(100))
        // Its own release was consumed: the next wait is not woken by it.
        let next = ContinuousClock.now
        await bell.wait(until: next + .milliseconds(100))
        #expect(ContinuousClock.now - next >= .milliseconds(100))
    }
}
