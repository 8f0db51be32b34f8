import Foundation

/// A URL of the app's backend that hears about installs and opens: each event is POSTed as
/// JSON, signed with the webhook's secret (`WebhookSignature`), and retried with growing pauses
/// until the receiver answers 2xx.
public struct Webhook: Sendable, Hashable, Codable {
    public var id: String
    public var appID: String
    public var url: URL
    /// Which events it receives (`install`, `open`).
    public var events: [AppEvent.Kind]
    /// Signs every delivery; shown once, when the webhook is made.
    public var secret: String
    public var disabled: Bool
    public var createdAt: Date

    public init(id: String, appID: String, url: URL, events: [AppEvent.Kind], secret: String, disabled: Bool = false, createdAt: Date) {
        self.id = id
        self.appID = appID
        self.url = url
        self.events = events
        self.secret = secret
        self.disabled = disabled
        self.createdAt = createdAt
    }

    /// An `https` URL without credentials (`http` only when `allowHTTP`, for receivers on a
    /// private network or in tests), at least one event.
    public func validate(allowHTTP: Bool) throws(ValidationError) {
        guard let scheme = url.scheme?.lowercased(), scheme == "https" || (allowHTTP && scheme == "http") else {
            throw .invalid("url", allowHTTP ? "an http or https URL" : "an https URL (http is refused unless the server allows it)")
        }
        guard let host = url.host, !host.isEmpty else { throw .invalid("url", "the URL has no host") }
        guard url.user == nil, url.password == nil else { throw .invalid("url", "no user or password in the URL; sign with the secret instead") }
        guard url.absoluteString.utf8.count <= 2048 else { throw .invalid("url", "at most 2,048 characters") }
        guard !events.isEmpty else { throw .missing("events", "name at least one event: install, open") }
    }
}

/// One event on its way to one webhook, with its delivery log.
public struct WebhookDelivery: Sendable, Hashable, Codable {
    public enum State: String, Sendable, Hashable, Codable {
        /// Waiting for its next attempt (`nextAttemptAt`).
        case pending
        case delivered
        /// Every attempt failed; no more are made.
        case failed
    }

    public var id: String
    public var webhookID: String
    public var appID: String
    public var event: AppEvent.Kind
    /// The JSON body, fixed when the event happened.
    public var payload: String
    public var createdAt: Date
    public var state: State
    public var attempts: Int
    public var nextAttemptAt: Date?
    /// The receiver's last HTTP status, if it answered.
    public var lastStatus: Int?
    public var lastError: String?
    public var deliveredAt: Date?

    public init(id: String, webhookID: String, appID: String, event: AppEvent.Kind, payload: String, createdAt: Date) {
        self.id = id
        self.webhookID = webhookID
        self.appID = appID
        self.event = event
        self.payload = payload
        self.createdAt = createdAt
        self.state = .pending
        self.attempts = 0
        self.nextAttemptAt = createdAt
    }

    /// Records an attempt: delivered on 2xx; otherwise the next attempt after the pause its
    /// number has in `retries`, or failed when there is none left.
    public mutating func attempted(at date: Date, status: Int?, error: String?, retries: [Duration]) {
        attempts += 1
        lastStatus = status
        lastError = error.map { String($0.prefix(500)) }
        if let status, (200..<300).contains(status) {
            state = .delivered
            deliveredAt = date
            nextAttemptAt = nil
        } else if attempts <= retries.count {
            let pause = retries[attempts - 1].components
            nextAttemptAt = date + Double(pause.seconds) + Double(pause.attoseconds) / 1e18
        } else {
            state = .failed
            nextAttemptAt = nil
        }
    }

    /// The body of an event: `{"id", "type", "createdAt", "appID", "data": {…}}`.
    public static func payload(id: String, event: AppEvent) -> String {
        struct Body: Encodable {
            struct Data: Encodable {
                let platform: Platform
                let appVersion: String?
                let matchType: MatchType?
                let confidence: Double?
                let link: Link?
            }
            struct Link: Encodable {
                let domain: String
                let code: String?
                let path: String?
                let tags: [String: String]
            }
            let id: String
            let type: AppEvent.Kind
            let createdAt: Date
            let appID: String
            let data: Data
        }
        let link = event.domain.map { domain in
            Body.Link(domain: domain, code: event.code, path: event.path,
                      tags: Dictionary(event.tags.queryItems.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first }))
        }
        let body = Body(id: id, type: event.kind, createdAt: event.at, appID: event.appID,
                        data: .init(platform: event.platform, appVersion: event.appVersion?.description, matchType: event.matchType,
                                    confidence: event.confidence, link: link))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: (try? encoder.encode(body)) ?? Data("{}".utf8), as: UTF8.self)
    }
}
