import Foundation
import FerryKit
import PostgresNIO

// MARK: Webhooks

extension PostgresStore {
    public func save(_ webhook: Webhook) async throws(StoreError) {
        let document = try Documents.encode(webhook)
        do {
            try await execute("""
                INSERT INTO webhooks (id, app_id, document, created_at) VALUES (\(webhook.id), \(webhook.appID), \(document)::jsonb, \(webhook.createdAt))
                ON CONFLICT (id) DO UPDATE SET document = excluded.document
                """)
        } catch let error where error.isNotFound {
            throw .notFound("no app '\(webhook.appID)'")
        }
    }

    public func webhooks(appID: String) async throws(StoreError) -> [Webhook] {
        try Self.documents(Webhook.self, try await rows("SELECT document::text FROM webhooks WHERE app_id = \(appID) ORDER BY created_at, id"))
    }

    public func deleteWebhook(id: String, appID: String) async throws(StoreError) {
        if try await rows("DELETE FROM webhooks WHERE id = \(id) AND app_id = \(appID) RETURNING id").isEmpty {
            throw .notFound("no webhook '\(id)'")
        }
    }

    public func enqueue(_ deliveries: [WebhookDelivery]) async throws(StoreError) {
        guard !deliveries.isEmpty else { return }
        struct Row: Encodable { let id: String, webhook_id: String, state: String, next_attempt_at: Double?, created_at: Double, document: String }
        var rows: [Row] = []
        for delivery in deliveries {
            rows.append(Row(id: delivery.id, webhook_id: delivery.webhookID, state: delivery.state.rawValue,
                            next_attempt_at: delivery.nextAttemptAt?.timeIntervalSince1970, created_at: delivery.createdAt.timeIntervalSince1970,
                            document: try Documents.encode(delivery)))
        }
        let json = try Self.json(rows)
        try await execute("""
            INSERT INTO webhook_deliveries (id, webhook_id, state, next_attempt_at, created_at, document)
            SELECT r.id, r.webhook_id, r.state, to_timestamp(r.next_attempt_at), to_timestamp(r.created_at), r.document::jsonb
            FROM jsonb_to_recordset(\(json)::jsonb) AS r(id text, webhook_id text, state text, next_attempt_at double precision,
                 created_at double precision, document text)
            ON CONFLICT (id) DO NOTHING
            """)
    }

    public func claimDeliveries(at date: Date, limit: Int, lease: TimeInterval) async throws(StoreError) -> [WebhookDelivery] {
        // SKIP LOCKED: nodes claiming at once take different deliveries.
        let until = date + lease
        return try Self.documents(WebhookDelivery.self, try await rows("""
            UPDATE webhook_deliveries
            SET next_attempt_at = \(until), document = jsonb_set(document, '{nextAttemptAt}', to_jsonb(\(until.timeIntervalSince1970)::float8))
            WHERE id IN (SELECT id FROM webhook_deliveries WHERE state = 'pending' AND next_attempt_at <= \(date)
                         ORDER BY next_attempt_at, id LIMIT \(limit) FOR UPDATE SKIP LOCKED)
            RETURNING document::text
            """)).sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    public func update(_ delivery: WebhookDelivery) async throws(StoreError) {
        let document = try Documents.encode(delivery)
        try await execute("""
            UPDATE webhook_deliveries SET state = \(delivery.state.rawValue), next_attempt_at = \(delivery.nextAttemptAt), document = \(document)::jsonb
            WHERE id = \(delivery.id)
            """)
    }

    public func deliveries(webhookID: String, limit: Int) async throws(StoreError) -> [WebhookDelivery] {
        try Self.documents(WebhookDelivery.self, try await rows("""
            SELECT document::text FROM webhook_deliveries WHERE webhook_id = \(webhookID) ORDER BY created_at DESC, id DESC LIMIT \(limit)
            """))
    }
}
