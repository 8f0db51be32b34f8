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
}
