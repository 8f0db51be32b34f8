import FerryKit
import FerryStore
import Foundation

/// A demo app, domain and links, so a newcomer can click (or curl) right away.
public enum Demo {
    public static let host = "go.demo.ferry.test"
    public static let alternateHost = "open.demo.ferry.test"

    public static let app = App(
        id: "demo", name: "Ferry Demo",
        ios: IOSApp(teamID: "ABCDE12345", bundleID: "com.example.ferrydemo", appStoreID: "1234567890", customScheme: "ferrydemo"),
        android: AndroidApp(packageName: "com.example.ferrydemo", sha256CertFingerprints: [String(repeating: "14:", count: 31) + "14"]),
        web: WebSettings(fallbackURL: URL(string: "https://ferry.example")!),
        routes: [
            Route(pattern: "/u/{userId}", webURL: "https://ferry.example/users/{userId}", customScheme: "ferrydemo://user/{userId}", name: "profile"),
            Route(pattern: "/p/{sku}", webURL: "https://ferry.example/products/{sku}", name: "product"),
        ])

    public static let links = [
        Link(code: "hello", domain: host, path: "/u/42",
             preview: PreviewMetadata(title: "Ada on Ferry Demo", description: "See Ada's profile in the app."),
             tags: LinkTags(campaign: "demo", channel: "readme")),
        Link(code: "sale", domain: host, path: "/p/sku-123", previewPage: .never,
             preview: PreviewMetadata(title: "Spring sale", description: "20% off this week."), tags: LinkTags(utmSource: "demo", utmCampaign: "spring")),
        Link(code: "web", domain: host, path: "/u/7", ios: PlatformBehaviour(whenAppMissing: .web), android: PlatformBehaviour(whenAppMissing: .web)),
    ]

    /// Seeds the demo; running it again changes nothing (the app keeps its SDK key).
    public static func seed(_ store: some LinkStore) async throws(StoreError) {
        var app = app
        app.sdkKey = try await store.app(id: app.id)?.sdkKey ?? SDKKeys.generate()
        try await store.save(app)
        try await store.save(Domain(host: host, appID: app.id, alternateHost: alternateHost))
        for link in links where try await store.link(domain: host, code: link.code!) == nil {
            try await store.insert(link)
        }
    }
}
