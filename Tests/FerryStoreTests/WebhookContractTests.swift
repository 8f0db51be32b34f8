import Foundation
import Testing
import FerryKit
@testable import FerryStore

/// Webhooks and their delivery queue, the same on every store.
extension StoreContractTests {
    static func delivery(_ id: String, at date: Date) -> WebhookDelivery {
        WebhookDelivery(id: id, webhookID: "wh_1", appID: "acme", event: .install, payload: #"{"id":"\#(id)"}"#, createdAt: date)
    }

    @Test(arguments: Kind.available)
    func webhookDeliveriesAreClaimedOnceAndLogged(_ kind: Kind) async throws {
        try await using(kind) { store in
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            let hook = Webhook(id: "wh_1", appID: "acme", url: URL(string: "https://hooks.acme.example/ferry")!, events: [.install, .open],
                               secret: "whsec_test", createdAt: now)
            try await store.save(hook)
            await expectError(\.isNotFound) {
                try await store.save(Webhook(id: "wh_2", appID: "nope", url: hook.url, events: [.open], secret: "s", createdAt: now))
            }
            #expect(try await store.webhooks(appID: "acme") == [hook])
            try await store.enqueue([Self.delivery("whd_a", at: now - 2), Self.delivery("whd_b", at: now - 1), Self.delivery("whd_later", at: now + 60)])

            let claimed = try await store.claimDeliveries(at: now, limit: 10, lease: 30)
            #expect(claimed.map(\.id) == ["whd_a", "whd_b"], "due ones, oldest first")
            #expect(try await store.claimDeliveries(at: now + 1, limit: 10, lease: 30).isEmpty, "claimed ones wait for their lease")

            var delivered = claimed[0]
            delivered.attempted(at: now + 1, status: 204, error: nil, retries: [.seconds(10)])
            var retried = claimed[1]
            retried.attempted(at: now + 1, status: 500, error: "HTTP 500", retries: [.seconds(10)])
            try await store.update(delivered)
            try await store.update(retried)
            #expect(try await store.claimDeliveries(at: now + 5, limit: 10, lease: 30).isEmpty)
            let again = try await store.claimDeliveries(at: now + 11, limit: 10, lease: 30)
            #expect(again.map(\.id) == ["whd_b"], "the failed one again after its pause; the delivered one never")
            #expect(again.first?.attempts == 1 && again.first?.lastStatus == 500)

            let log = try await store.deliveries(webhookID: "wh_1", limit: 10)
            #expect(log.map(\.id) == ["whd_later", "whd_b", "whd_a"], "newest first")
            #expect(log.last?.state == .delivered && log.last?.deliveredAt == now + 1)

            await expectError(\.isNotFound) { try await store.deleteWebhook(id: "wh_1", appID: "other") }
            try await store.deleteWebhook(id: "wh_1", appID: "acme")
            #expect(try await store.webhooks(appID: "acme").isEmpty)
            #expect(try await store.deliveries(webhookID: "wh_1", limit: 10).isEmpty, "its deliveries go with it")
        }
    }

    @Test(arguments: Kind.available)
    func nodesClaimingAtOnceTakeDifferentDeliveries(_ kind: Kind) async throws {
        try await using(kind) { store in
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            try await store.save(Webhook(id: "wh_1", appID: "acme", url: URL(string: "https://hooks.acme.example")!, events: [.install],
                                         secret: "s", createdAt: now))
            try await store.enqueue((0..<40).map { Self.delivery("whd_\($0)", at: now - 1) })
            let claims = try await withThrowingTaskGroup(of: [String].self) { group in
                for _ in 0..<4 { group.addTask { try await store.claimDeliveries(at: now, limit: 15, lease: 30).map(\.id) } }
                return try await group.reduce(into: [String]()) { $0 += $1 }
            }
            #expect(claims.count == 40 && Set(claims).count == 40, "every delivery claimed by exactly one")
        }
    }
}
