import AsyncHTTPClient
import FerryKit
import FerryStore
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import ServiceLifecycle

/// Tells apps' backends about installs and opens: each event becomes a delivery per webhook
/// that wants it (queued in the store, so it survives restarts and any node may send it), then
/// is POSTed signed (`WebhookSignature`) and retried after growing pauses until the receiver
/// answers 2xx or the pauses run out. Every attempt is logged on the delivery.
public final class WebhookDispatcher<Store: LinkStore>: Service, Sendable {
    /// 10 s, 1 min, 5 min, 30 min, 2 h, 6 h, 12 h: eight attempts over about 21 hours.
    public static var standardRetries: [Duration] {
        [.seconds(10), .seconds(60), .seconds(300), .seconds(1800), .seconds(7200), .seconds(21_600), .seconds(43_200)]
    }

    private let store: Store
    private let retries: [Duration]
    private let poll: Duration
    private let timeout: Duration
    private let logger: Logger
    private let doorbell = Doorbell()

    /// - Parameters:
    ///   - retries: the pause before each attempt after the first.
    ///   - poll: how often the store is asked for due deliveries (other nodes' too).
    ///   - timeout: the longest one attempt may take.
    public init(store: Store, retries: [Duration] = standardRetries, poll: Duration = .seconds(1), timeout: Duration = .seconds(10),
                logger: Logger = Logger(label: "ferry.webhooks")) {
        self.store = store
        self.retries = retries
        self.poll = poll
        self.timeout = timeout
        self.logger = logger
    }

    /// No redirects: a receiver answers for itself, and cannot bounce Ferry to another host.
    static func makeClient() -> HTTPClient {
        HTTPClient(eventLoopGroupProvider: .singleton, configuration: HTTPClient.Configuration(redirectConfiguration: .disallow))
    }

    /// Queues the event for every webhook of its app that wants it, and wakes the sender.
    public func enqueue(_ event: AppEvent, now: Date = Date()) async {
        do {
            let hooks = try await store.webhooks(appID: event.appID).filter { !$0.disabled && $0.events.contains(event.kind) }
            guard !hooks.isEmpty else { return }
            try await store.enqueue(hooks.map { hook in
                let id = "whd_" + Tokens.random()
                return WebhookDelivery(id: id, webhookID: hook.id, appID: event.appID, event: event.kind,
                                       payload: WebhookDelivery.payload(id: id, event: event), createdAt: now)
            })
            ring()
        } catch {
            logger.warning("queuing webhook deliveries for \(event.appID) failed: \(error)")
        }
    }

    public func run() async throws {
        let client = Self.makeClient()
        await withGracefulShutdownHandler {
            while !Task.isShuttingDownGracefully, !Task.isCancelled {
                if await sendDue(using: client) == 0 { await waitForWork() }
            }
        } onGracefulShutdown: {
            self.ring()
        }
        try? await client.shutdown()
    }

    /// Claims what is due and attempts it, a few at once; how many were attempted.
    @discardableResult
    func sendDue(using client: HTTPClient, now: Date = Date()) async -> Int {
        let lease = Double(timeout.components.seconds) + 30
        let due: [WebhookDelivery]
        do {
            due = try await store.claimDeliveries(at: now, limit: 16, lease: lease)
        } catch {
            logger.warning("reading due webhook deliveries failed: \(error)")
            return 0
        }
        var hooks: [String: [String: Webhook]] = [:]
        for appID in Set(due.map(\.appID)) {
            hooks[appID] = Dictionary(((try? await store.webhooks(appID: appID)) ?? []).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        }
        await withTaskGroup(of: Void.self) { group in
            for delivery in due {
                let hook = hooks[delivery.appID]?[delivery.webhookID]
                group.addTask { await self.attempt(delivery, to: hook, using: client) }
            }
        }
        return due.count
    }

    private func attempt(_ delivery: WebhookDelivery, to hook: Webhook?, using client: HTTPClient) async {
        var delivery = delivery
        guard let hook, !hook.disabled else {
            delivery.attempted(at: Date(), status: nil, error: "the webhook was disabled", retries: [])
            try? await store.update(delivery)
            return
        }
        var request = HTTPClientRequest(url: hook.url.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "Ferry-Webhooks/1")
        request.headers.add(name: "Ferry-Event", value: delivery.event.rawValue)
        request.headers.add(name: "Ferry-Delivery", value: delivery.id)
        request.headers.add(name: WebhookSignature.header, value: WebhookSignature.sign(body: delivery.payload, secret: hook.secret, at: Date()))
        request.body = .bytes(ByteBuffer(string: delivery.payload))
        var status: Int?
        var failure: String?
        do {
            let response = try await client.execute(request, timeout: .seconds(Int64(timeout.components.seconds)))
            status = Int(response.status.code)
            _ = try? await response.body.collect(upTo: 4096)
            if let status, !(200..<300).contains(status) { failure = "the receiver answered HTTP \(status)" }
        } catch {
            failure = "\(error)"
        }
        delivery.attempted(at: Date(), status: status, error: failure, retries: retries)
        if let failure { logger.info("webhook delivery \(delivery.id) to \(hook.url.host ?? "?") failed (attempt \(delivery.attempts)): \(failure)") }
        do {
            try await store.update(delivery)
        } catch {
            // The claim's lease runs out and the delivery is attempted again: at least once.
            logger.warning("recording webhook delivery \(delivery.id) failed: \(error)")
        }
    }

    private func ring() {
        doorbell.ring()
    }

    private func waitForWork() async {
        await doorbell.wait(until: .now + poll)
    }
}
