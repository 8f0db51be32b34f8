import FerryKit
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import FerryServer

/// A seeded store and the server around it.
enum ServerFixtures {
    static let fingerprint = String(repeating: "AB:", count: 31) + "AB"
    static let app = App(
        id: "acme", name: "Acme", iconURL: URL(string: "https://acme.example/icon.png"),
        ios: IOSApp(teamID: "ABCDE12345", bundleID: "com.acme.app", appStoreID: "123456789", customScheme: "acme"),
        android: AndroidApp(packageName: "com.acme.app", sha256CertFingerprints: [fingerprint]),
        web: WebSettings(fallbackURL: URL(string: "https://acme.example")!),
        routes: [Route(pattern: "/u/{userId}", webURL: "https://acme.example/users/{userId}", name: "profile")])

    static let iPhone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"
    static let android = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36"
    static let desktop = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36"
    static let macSafari = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15"
    static let slackbot = "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"
    static let weChat = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 MicroMessenger/8.0.47(0x18002f2c) NetType/WIFI Language/zh_CN"
    static let facebookIOS = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/21E236 [FBAN/FBIOS;FBAV/458.0.0.37.95;FBDV/iPhone15,2;FBMD/iPhone;FBSN/iOS;FBSV/17.4]"

    static func services() async throws -> FerryServices<MemoryStore> {
        let store = MemoryStore()
        try await store.save(app)
        try await store.save(Domain(host: "go.acme.example", appID: "acme", alternateHost: "open.acme.example"))
        try await store.insert(Link(code: "spring", domain: "go.acme.example", path: "/u/42",
                                    preview: PreviewMetadata(title: "Ada's profile", description: "Follow Ada on Acme"),
                                    tags: LinkTags(campaign: "spring")))
        try await store.insert(Link(code: "old", domain: "go.acme.example", path: "/u/1", expiresAt: Date(timeIntervalSince1970: 1_000_000)))
        try await store.insert(Link(code: "off", domain: "go.acme.example", path: "/u/2", disabled: true))
        try await store.insert(Link(code: "xss", domain: "go.acme.example", path: "/u/3",
                                    preview: PreviewMetadata(title: "<script>alert(1)</script>", description: "\"><img src=x onerror=alert(2)>")))
        return FerryServices(store: store, settings: ServerSettings(secret: "test-secret", trustedProxies: ["127.0.0.1"]))
    }

    static func headers(_ userAgent: String, _ extra: HTTPFields = [:]) -> HTTPFields {
        var fields: HTTPFields = [.userAgent: userAgent]
        fields.append(contentsOf: extra)
        return fields
    }
}
