import FerryKit
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import Testing
@testable import FerryServer

/// Webhooks end to end: registered through the API, fed by SDK installs and opens, delivered
/// by the dispatcher over real HTTP to a receiver on 127.0.0.1 that checks the signature.
@Suite struct WebhookTests {
    typealias F = ServerFixtures

    /// What the receiver got, and how many of the first requests it refuses with a 500.
    final class Receiver: Sendable {
        struct Request: Sendable {
            let headers: HTTPFields
            let body: String
        }
        let failFirst: Int
        let received = NIOLockedValueBox<[Request]>([])

        init(failFirst: Int) {
            self.failFirst = failFirst
        }

        var application: some ApplicationProtocol {
            let router = Router()
            router.post("hook") { request, _ -> HTTPResponse.Status in
                let body = String(buffer: try await request.body.collect(upTo: 1 << 20))
                let count = self.received.withLockedValue { list in
                    list.append(Request(headers: request.headers, body: body))
                    return list.count
                }
                return count <= self.failFirst ? .internalServerError : .noContent
            }
            return Application(router: router)
        }
    }

    func api(_ client: any TestClientProtocol, _ method: HTTPRequest.Method, _ path: String, json: String? = nil,
             services: FerryServices<MemoryStore>) async throws -> TestResponse {
        let (_, key) = try await APIKeys.create(name: "t", in: services.store)
        return try await client.execute(uri: path, method: method, headers: [.authorization: "Bearer \(key)", .contentType: "application/json"],
                                        body: json.map { ByteBuffer(string: $0) })
    }

    func object(_ response: TestResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
    }

    /// Waits up to 5 s for the delivery log to show `state`.
    func waitFor(_ state: WebhookDelivery.State, hook: String, in store: MemoryStore) async throws -> WebhookDelivery? {
        for _ in 0..<250 {
            if let delivery = await store.deliveries(webhookID: hook, limit: 10).first, delivery.state == state { return delivery }
            try await Task.sleep(for: .milliseconds(20))
        }
        return await store.deliveries(webhookID: hook, limit: 10).first
    }

    @Test func anOpenIsDeliveredSignedAfterTheReceiverFailedTwice() async throws {
        let receiver = Receiver(failFirst: 2)
        let seeded = try await F.services()
        var app = F.app
        app.sdkKey = SDKAPITests.key
        try await seeded.store.save(app)
        var settings = seeded.settings
        settings.webhooksAllowHTTP = true
        let dispatcher = WebhookDispatcher(store: seeded.store, retries: [.milliseconds(50), .milliseconds(50)], poll: .milliseconds(20))
        let services = FerryServices(store: seeded.store, settings: settings, webhooks: dispatcher)
        try await receiver.application.test(.live) { receiverClient in
            let port = try #require(receiverClient.port)
            let sending = Task { try await dispatcher.run() }
            defer { sending.cancel() }
            try await Application(router: buildRouter(services)).test(.router) { client in
                let created = try await api(client, .post, "/api/v1/apps/acme/webhooks",
                                            json: #"{"url":"http://127.0.0.1:\#(port)/hook","events":["open"]}"#, services: services)
                #expect(created.status == .created)
                let hook = try object(created)
                let id = try #require(hook["id"] as? String)
                let secret = try #require(hook["secret"] as? String)
                #expect(secret.hasPrefix("whsec_"))
                let listed = String(buffer: try await api(client, .get, "/api/v1/apps/acme/webhooks", services: services).body)
                #expect(listed.contains(id) && !listed.contains(secret), "lists never show the secret")

                let open = try await client.execute(uri: "/sdk/v1/open", method: .post,
                                                    headers: [.ferrySDKKey: SDKAPITests.key, .contentType: "application/json"],
                                                    body: ByteBuffer(string: #"{"url":"https://go.acme.example/spring","platform":"ios","appVersion":"2.0"}"#))
                #expect(open.status == .ok)
                let delivery = try #require(try await waitFor(.delivered, hook: id, in: services.store))
                #expect(delivery.state == .delivered)
                #expect(delivery.attempts == 3, "two refusals, then 204")
                #expect(delivery.lastStatus == 204)

                let requests = receiver.received.withLockedValue { $0 }
                #expect(requests.count == 3)
                let last = try #require(requests.last)
                #expect(last.headers[HTTPField.Name("Ferry-Event")!] == "open")
                #expect(last.headers[HTTPField.Name("Ferry-Delivery")!] == delivery.id)
                let signature = try #require(last.headers[HTTPField.Name(WebhookSignature.header)!])
                #expect(WebhookSignature.verify(signature, body: last.body, secret: secret))
                #expect(!WebhookSignature.verify(signature, body: last.body + " ", secret: secret), "a changed body fails")
                #expect(!WebhookSignature.verify(signature, body: last.body, secret: "whsec_other"), "another secret fails")
                let payload = try #require(try JSONSerialization.jsonObject(with: Data(last.body.utf8)) as? [String: Any])
                #expect(payload["type"] as? String == "open" && payload["appID"] as? String == "acme")
                let link = try #require((payload["data"] as? [String: Any])?["link"] as? [String: Any])
                #expect(link["code"] as? String == "spring" && (link["tags"] as? [String: String])?["campaign"] == "spring")

                let log = try await api(client, .get, "/api/v1/apps/acme/webhooks/\(id)/deliveries", services: services)
                #expect(log.status == .ok && String(buffer: log.body).contains(#""state":"delivered""#))
                #expect(try await api(client, .delete, "/api/v1/apps/acme/webhooks/\(id)", services: services).status == .noContent)
                #expect(try await api(client, .get, "/api/v1/apps/acme/webhooks/\(id)/deliveries", services: services).status == .notFound)
            }
        }
    }

    @Test func aReceiverThatNeverAnswersWellEndsFailedAfterEveryRetry() async throws {
        let receiver = Receiver(failFirst: 100)
        let seeded = try await F.services()
        let dispatcher = WebhookDispatcher(store: seeded.store, retries: [.milliseconds(50), .milliseconds(50)], poll: .milliseconds(20))
        try await receiver.application.test(.live) { receiverClient in
            let port = try #require(receiverClient.port)
            let hook = Webhook(id: "wh_x", appID: "acme", url: URL(string: "http://127.0.0.1:\(port)/hook")!, events: [.install],
                               secret: "whsec_x", createdAt: Date())
            try await seeded.store.save(hook)
            let sending = Task { try await dispatcher.run() }
            defer { sending.cancel() }
            await dispatcher.enqueue(AppEvent(at: Date(), appID: "acme", kind: .install, platform: .android, appVersion: nil,
                                              matchType: MatchType.none, link: nil, ipHash: "h"))
            await dispatcher.enqueue(AppEvent(at: Date(), appID: "acme", kind: .open, platform: .android, appVersion: nil, link: nil, ipHash: "h"))
            let delivery = try #require(try await waitFor(.failed, hook: "wh_x", in: seeded.store))
            #expect(delivery.state == .failed && delivery.attempts == 3 && delivery.lastError == "the receiver answered HTTP 500")
            #expect(receiver.received.withLockedValue { $0.count } == 3)
            #expect(await seeded.store.deliveries(webhookID: "wh_x", limit: 10).count == 1, "the webhook did not ask for opens")
        }
    }

    @Test func registrationsAreChecked() async throws {
        try await SDKAPITests().withSDK { services, client in
            func status(_ json: String, app: String = "acme") async throws -> (Int, String?) {
                let response = try await api(client, .post, "/api/v1/apps/\(app)/webhooks", json: json, services: services)
                let error = (try? JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: [String: String]])?["error"]
                return (Int(response.status.code), error?["field"])
            }
            let insecure = try await status(#"{"url":"http://hooks.acme.example/x"}"#)
            #expect(insecure.0 == 400 && insecure.1 == "url", "http is refused unless the server allows it")
            let credentials = try await status(#"{"url":"https://user:pw@hooks.acme.example/x"}"#)
            #expect(credentials.0 == 400 && credentials.1 == "url")
            let noEvents = try await status(#"{"url":"https://hooks.acme.example/x","events":[]}"#)
            #expect(noEvents.0 == 400 && noEvents.1 == "events")
            let badEvent = try await status(#"{"url":"https://hooks.acme.example/x","events":["click"]}"#)
            #expect(badEvent.0 == 400)
            #expect(try await status(#"{"url":"https://hooks.acme.example/x"}"#, app: "nope").0 == 404)
            #expect(try await status(#"{"url":"https://hooks.acme.example/x"}"#).0 == 201)
            #expect(await services.store.webhooks(appID: "acme").count == 1, "only the good one was saved")
        }
    }
}
