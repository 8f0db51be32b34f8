import FerryKit
import FerryStore
import Foundation
import Hummingbird

/// `/api/v1/apps/{id}/webhooks`: an app's webhooks and their delivery logs.
struct WebhookRoutes<Store: LinkStore>: Sendable {
    let services: FerryServices<Store>
    var store: Store { services.store }

    /// A webhook as lists show it: without its secret, which only its creation answers.
    struct Listed: Encodable {
        let id: String, appID: String, url: URL, events: [AppEvent.Kind], disabled: Bool, createdAt: Date
        init(_ hook: Webhook) {
            (id, appID, url, events, disabled, createdAt) = (hook.id, hook.appID, hook.url, hook.events, hook.disabled, hook.createdAt)
        }
    }

    struct NewWebhook: Decodable {
        let url: String
        let events: [AppEvent.Kind]?
    }

    func addRoutes(to api: RouterGroup<FerryRequestContext>) {
        api.get("apps/:id/webhooks") { _, context in
            let app = try await requireApp(context)
            return try APICoding.response(try await call { try await store.webhooks(appID: app) }.map(Listed.init))
        }
        api.post("apps/:id/webhooks") { request, context in
            let app = try await requireApp(context)
            let body = try await APICoding.decode(NewWebhook.self, from: request, context: context, limit: 16 << 10)
            guard let url = URL(string: body.url) else { throw APIError(.badRequest, "invalid", "not a URL", field: "url") }
            let hook = Webhook(id: "wh_" + Tokens.random(bytes: 12), appID: app, url: url, events: body.events ?? AppEvent.Kind.allCases,
                               secret: "whsec_" + Tokens.random(bytes: 32), createdAt: Date())
            do throws(ValidationError) { try hook.validate(allowHTTP: services.settings.webhooksAllowHTTP) } catch { throw APIError.invalid(error) }
            try await call { try await store.save(hook) }
            return try APICoding.response(hook, status: .created)
        }
        api.delete("apps/:id/webhooks/:webhook") { _, context in
            let app = try await requireApp(context)
            let id = try context.parameters.require("webhook")
            try await onResource { try await store.deleteWebhook(id: id, appID: app) }
            return Response(status: .noContent)
        }
        api.get("apps/:id/webhooks/:webhook/deliveries") { request, context in
            let app = try await requireApp(context)
            let id = try context.parameters.require("webhook")
            guard try await call({ try await store.webhooks(appID: app) }).contains(where: { $0.id == id }) else {
                throw APIError.notFound("no webhook '\(id)'")
            }
            let text = request.uri.queryParameters.get("limit")
            guard let limit = text.map({ Int($0) }) ?? 50, (1...500).contains(limit) else {
                throw APIError(.badRequest, "invalid", "'limit' must be a whole number from 1 to 500", field: "limit")
            }
            return try APICoding.response(try await call { try await store.deliveries(webhookID: id, limit: limit) })
        }
    }

    private func requireApp(_ context: FerryRequestContext) async throws -> String {
        let id = try context.parameters.require("id")
        guard try await call({ try await store.app(id: id) }) != nil else { throw APIError.notFound("no app '\(id)'") }
        return id
    }
}
