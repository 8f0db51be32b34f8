import Foundation
import FerryKit
import SQLiteNIO

// MARK: Webhooks

extension SQLiteStore {
    public func save(_ webhook: Webhook) async throws(StoreError) {
        let document = try Documents.encode(webhook)
        try await run {
            guard try await self.connection.query("SELECT 1 FROM apps WHERE id = ?", [.text(webhook.appID)]).first != nil else {
                throw StoreError.notFound("no app '\(webhook.appID)'")
            }
            _ = try await self.connection.query("""
                INSERT INTO webhooks (id, app_id, document, created_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET document = excluded.document
                """, [.text(webhook.id), .text(webhook.appID), .text(document), .float(webhook.createdAt.timeIntervalSince1970)])
        }
    }

    public func webhooks(appID: String) async throws(StoreError) -> [Webhook] {
        try await run {
            try await self.connection.query("SELECT document FROM webhooks WHERE app_id = ? ORDER BY created_at, id", [.text(appID)])
                .map { try Documents.decode(Webhook.self, $0) }
        }
    }

    public func deleteWebhook(id: String, appID: String) async throws(StoreError) {
        try await run {
            let rows = try await self.connection.query("DELETE FROM webhooks WHERE id = ? AND app_id = ? RETURNING id", [.text(id), .text(appID)])
            if rows.isEmpty { throw StoreError.notFound("no webhook '\(id)'") }
        }
    }

    public func enqueue(_ deliveries: [WebhookDelivery]) async throws(StoreError) {
        guard !deliveries.isEmpty else { return }
        let documents = try deliveries.map { delivery throws(StoreError) in (delivery, try Documents.encode(delivery)) }
        try await run {
            try await self.transaction {
                for (delivery, document) in documents {
                    _ = try await self.connection.query("""
                        INSERT INTO webhook_deliveries (id, webhook_id, state, next_attempt_at, created_at, document) VALUES (?, ?, ?, ?, ?, ?)
                        ON CONFLICT (id) DO NOTHING
                        """, [.text(delivery.id), .text(delivery.webhookID), .text(delivery.state.rawValue),
                              delivery.nextAttemptAt.map { .float($0.timeIntervalSince1970) } ?? .null,
                              .float(delivery.createdAt.timeIntervalSince1970), .text(document)])
                }
            }
        }
    }

    public func claimDeliveries(at date: Date, limit: Int, lease: TimeInterval) async throws(StoreError) -> [WebhookDelivery] {
        try await run {
            try await self.connection.query("""
                UPDATE webhook_deliveries SET next_attempt_at = ?2, document = json_set(document, '$.nextAttemptAt', ?2)
                WHERE id IN (SELECT id FROM webhook_deliveries WHERE state = 'pending' AND next_attempt_at <= ?1
                             ORDER BY next_attempt_at, id LIMIT ?3)
                RETURNING document
                """, [.float(date.timeIntervalSince1970), .float(date.timeIntervalSince1970 + lease), .integer(limit)])
                .map { try Documents.decode(WebhookDelivery.self, $0) }
                .sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        }
    }

    public func update(_ delivery: WebhookDelivery) async throws(StoreError) {
        let document = try Documents.encode(delivery)
        try await run {
            _ = try await self.connection.query("UPDATE webhook_deliveries SET state = ?, next_attempt_at = ?, document = ? WHERE id = ?",
                                                [.text(delivery.state.rawValue), delivery.nextAttemptAt.map { .float($0.timeIntervalSince1970) } ?? .null,
                                                 .text(document), .text(delivery.id)])
        }
    }

    public func deliveries(webhookID: String, limit: Int) async throws(StoreError) -> [WebhookDelivery] {
        try await run {
            try await self.connection.query("SELECT document FROM webhook_deliveries WHERE webhook_id = ? ORDER BY created_at DESC, id DESC LIMIT ?",
                                            [.text(webhookID), .integer(limit)]).map { try Documents.decode(WebhookDelivery.self, $0) }
        }
    }
}
