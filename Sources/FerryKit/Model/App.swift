import Foundation

/// One product: its iOS app, its Android app, its web site, and the route table that ties the
/// three together.
///
/// ```swift
/// let app = App(id: "acme", name: "Acme",
///               ios: IOSApp(appID: "ABCDE12345.com.acme.app", appStoreID: "1234567890"),
///               android: AndroidApp(packageName: "com.acme.app", sha256CertFingerprints: ["14:6D:…"]),
///               web: WebSettings(fallbackURL: URL(string: "https://acme.com")!),
///               routes: [Route(pattern: "/u/{id}", webURL: "https://acme.com/users/{id}")])
/// try app.validate()
/// ```
public struct App: Sendable, Hashable, Codable {
    /// A short slug (`acme`), unique per Ferry installation.
    public var id: String
    public var name: String
    public var iconURL: URL?
    public var ios: IOSApp?
    public var android: AndroidApp?
    public var web: WebSettings
    /// Tried in order; the first pattern that matches a path wins.
    public var routes: [Route]
    /// How clicks are matched to first launches after an install (DESIGN.md §3).
    public var deferred: DeferredSettings
    /// The key the app's SDK sends to `/sdk/v1` (`fy_sdk_…`). Public: it ships inside the app,
    /// and it only lets an app ask about its own links. The server makes one for a new app.
    public var sdkKey: String?

    public init(
        id: String, name: String, iconURL: URL? = nil, ios: IOSApp? = nil, android: AndroidApp? = nil,
        web: WebSettings, routes: [Route] = [], deferred: DeferredSettings = DeferredSettings(), sdkKey: String? = nil
    ) {
        self.id = id
        self.name = name
        self.iconURL = iconURL
        self.ios = ios
        self.android = android
        self.web = web
        self.routes = routes
        self.deferred = deferred
        self.sdkKey = sdkKey
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(String.self, forKey: .id),
            name: try container.decode(String.self, forKey: .name),
            iconURL: try container.decodeIfPresent(URL.self, forKey: .iconURL),
            ios: try container.decodeIfPresent(IOSApp.self, forKey: .ios),
            android: try container.decodeIfPresent(AndroidApp.self, forKey: .android),
            web: try container.decode(WebSettings.self, forKey: .web),
            routes: try container.decodeIfPresent([Route].self, forKey: .routes) ?? [],
            deferred: try container.decodeIfPresent(DeferredSettings.self, forKey: .deferred) ?? DeferredSettings(),
            sdkKey: try container.decodeIfPresent(String.self, forKey: .sdkKey))
    }

    /// The first route whose pattern matches `path`, with the values of its placeholders.
    public func route(matching path: String) -> (route: Route, parameters: [String: String])? {
        for route in routes {
            if let parameters = route.pattern.match(path) { return (route, parameters) }
        }
        return nil
    }

    public func validate() throws(ValidationError) {
        guard Self.isSlug(id) else {
            throw .invalid("id", "'\(id)' is not a valid app id: use 1–64 lowercase letters, digits and dashes")
        }
        guard !name.trimmingCharacters(in: .whitespaces).isEmpty else { throw .missing("name", "an app needs a name") }
        guard name.count <= 100 else { throw .invalid("name", "the name is longer than 100 characters") }
        if let iconURL { try URLRules.checkWebURL(iconURL, field: "iconURL") }
        do { try ios?.validate() } catch { throw error.nested(under: "ios") }
        do { try android?.validate() } catch { throw error.nested(under: "android") }
        do { try web.validate() } catch { throw error.nested(under: "web") }
        do { try deferred.validate() } catch { throw error.nested(under: "deferred") }
        if let sdkKey, !Self.isSDKKey(sdkKey) {
            throw .invalid("sdkKey", "an SDK key is 'fy_sdk_' followed by 16 to 64 letters, digits, '-' or '_'")
        }
        var seen = Set<String>()
        for (index, route) in routes.enumerated() {
            do { try route.validate() } catch { throw error.nested(under: "routes[\(index)]") }
            guard seen.insert(route.pattern.description).inserted else {
                throw .invalid("routes[\(index)].pattern", "the pattern \(route.pattern) appears twice")
            }
        }
    }

    public static let sdkKeyPrefix = "fy_sdk_"

    static func isSDKKey(_ text: String) -> Bool {
        text.hasPrefix(sdkKeyPrefix) && DeferredToken.valid(String(text.dropFirst(sdkKeyPrefix.count))) != nil
    }

    /// Whether a click without a token may be matched by its signals, on this platform.
    public func allowsProbabilisticMatching(on platform: Platform) -> Bool {
        switch platform.family {
        case .iOS: deferred.probabilisticIOS
        case .android: deferred.probabilisticAndroid
        default: false
        }
    }

    static func isSlug(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 64 && text.utf8.allSatisfy {
            ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D
        }
    }
}

/// The iOS side of an app.
public struct IOSApp: Sendable, Hashable, Codable {
    /// The ten-character Apple Developer team ID, e.g. `ABCDE12345`.
    public var teamID: String
    public var bundleID: String
    /// The numeric App Store ID (`id1234567890` in store URLs, without `id`).
    public var appStoreID: String?
    /// The app's own URL scheme (`acme`), for `al:ios:url` and old-style deep links.
    public var customScheme: String?
    /// The App Clip's bundle ID, if the app has one; listed under `appclips` in the AASA.
    public var appClipBundleID: String?
    /// Also list the app under `webcredentials` (password autofill) in the AASA.
    public var webCredentials: Bool

    public init(
        teamID: String, bundleID: String, appStoreID: String? = nil, customScheme: String? = nil,
        appClipBundleID: String? = nil, webCredentials: Bool = false
    ) {
        self.teamID = teamID
        self.bundleID = bundleID
        self.appStoreID = appStoreID
        self.customScheme = customScheme
        self.appClipBundleID = appClipBundleID
        self.webCredentials = webCredentials
    }

    /// From an App ID such as `ABCDE12345.com.acme.app`.
    public init(appID: String, appStoreID: String? = nil, customScheme: String? = nil) throws(ValidationError) {
        guard let (team, bundle) = AppleAppID.split(appID) else {
            throw .invalid("appID", AppleAppID.problem(with: appID) ?? "not an App ID")
        }
        self.init(teamID: team, bundleID: bundle, appStoreID: appStoreID, customScheme: customScheme)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            teamID: try container.decode(String.self, forKey: .teamID),
            bundleID: try container.decode(String.self, forKey: .bundleID),
            appStoreID: try container.decodeIfPresent(String.self, forKey: .appStoreID),
            customScheme: try container.decodeIfPresent(String.self, forKey: .customScheme),
            appClipBundleID: try container.decodeIfPresent(String.self, forKey: .appClipBundleID),
            webCredentials: try container.decodeIfPresent(Bool.self, forKey: .webCredentials) ?? false)
    }

    /// `TEAMID.bundle`, the identifier the AASA file and entitlements use.
    public var appID: String { "\(teamID).\(bundleID)" }

    public var appClipID: String? { appClipBundleID.map { "\(teamID).\($0)" } }

    public func validate() throws(ValidationError) {
        if let problem = AppleAppID.problem(with: appID) { throw .invalid("appID", problem) }
        if let appClipID, let problem = AppleAppID.problem(with: appClipID) {
            throw .invalid("appClipBundleID", problem)
        }
        if let appStoreID, appStoreID.isEmpty || appStoreID.utf8.count > 12 || !appStoreID.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            throw .invalid("appStoreID", "'\(appStoreID)' is not an App Store ID: use the digits after 'id' in the store URL")
        }
        if let customScheme { try URLRules.checkCustomScheme(customScheme, field: "customScheme") }
    }
}

/// Rules for Apple App IDs (`TEAMID.bundle`).
public enum AppleAppID {
    /// Splits a valid App ID into team ID and bundle ID.
    public static func split(_ appID: String) -> (teamID: String, bundleID: String)? {
        guard problem(with: appID) == nil, let dot = appID.firstIndex(of: ".") else { return nil }
        return (String(appID[..<dot]), String(appID[appID.index(after: dot)...]))
    }

    /// What is wrong with an App ID, or `nil` when it is well-formed.
    public static func problem(with appID: String) -> String? {
        guard let dot = appID.firstIndex(of: ".") else {
            return "'\(appID)' is not an App ID: expected TEAMID.bundle.id, e.g. ABCDE12345.com.example.app"
        }
        let team = appID[..<dot]
        let bundle = appID[appID.index(after: dot)...]
        guard team.utf8.count == 10, team.utf8.allSatisfy({ ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x30 && $0 <= 0x39) }) else {
            return "'\(appID)' is not an App ID: the team ID '\(team)' must be 10 uppercase letters or digits"
        }
        guard !bundle.isEmpty, bundle.utf8.count <= 155,
              bundle.utf8.allSatisfy({ URLRules.isAlphanumeric($0) || $0 == 0x2E || $0 == 0x2D }),
              !bundle.hasPrefix("."), !bundle.hasSuffix("."), !bundle.contains("..") else {
            return "'\(appID)' is not an App ID: the bundle ID '\(bundle)' may hold only letters, digits, '.' and '-'"
        }
        return nil
    }
}

/// The Android side of an app.
public struct AndroidApp: Sendable, Hashable, Codable {
    public var packageName: String
    /// SHA-256 fingerprints of the signing certificates, uppercase and colon-separated
    /// (`14:6D:E9:…`). With Play App Signing, the one Play Console shows.
    public var sha256CertFingerprints: [String]
    public var customScheme: String?
    /// Where the app can be installed from, the usual store first.
    public var stores: [AndroidStoreListing]

    public init(
        packageName: String, sha256CertFingerprints: [String], customScheme: String? = nil,
        stores: [AndroidStoreListing] = [AndroidStoreListing(.googlePlay)]
    ) {
        self.packageName = packageName
        self.sha256CertFingerprints = sha256CertFingerprints.map { AndroidApp.normalizedFingerprint($0) ?? $0 }
        self.customScheme = customScheme
        self.stores = stores
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            packageName: try container.decode(String.self, forKey: .packageName),
            sha256CertFingerprints: try container.decode([String].self, forKey: .sha256CertFingerprints),
            customScheme: try container.decodeIfPresent(String.self, forKey: .customScheme),
            stores: try container.decodeIfPresent([AndroidStoreListing].self, forKey: .stores) ?? [AndroidStoreListing(.googlePlay)])
    }

    public func listing(for store: AndroidStore) -> AndroidStoreListing? {
        stores.first { $0.store == store }
    }

    public func validate() throws(ValidationError) {
        if let problem = Self.problem(withPackage: packageName) { throw .invalid("packageName", problem) }
        guard !sha256CertFingerprints.isEmpty else {
            throw .missing("sha256CertFingerprints", "App Links need the SHA-256 fingerprint of the signing certificate")
        }
        for (index, fingerprint) in sha256CertFingerprints.enumerated() where Self.normalizedFingerprint(fingerprint) != fingerprint {
            throw .invalid("sha256CertFingerprints[\(index)]", "'\(fingerprint)' is not a SHA-256 fingerprint: expected 32 hex bytes separated by colons")
        }
        if let customScheme { try URLRules.checkCustomScheme(customScheme, field: "customScheme") }
        guard !stores.isEmpty else { throw .missing("stores", "list at least one store the app can be installed from") }
        for (index, listing) in stores.enumerated() {
            if listing.store == .huaweiAppGallery, (listing.storeAppID ?? "").isEmpty {
                throw .missing("stores[\(index)].storeAppID", "Huawei AppGallery links need the app's AppGallery ID (C…)")
            }
            if let id = listing.storeAppID, id.isEmpty || id.utf8.count > 64 || !id.utf8.allSatisfy({ URLRules.isAlphanumeric($0) || $0 == 0x2E || $0 == 0x5F }) {
                throw .invalid("stores[\(index)].storeAppID", "'\(id)' is not a store app ID")
            }
        }
    }

    /// What is wrong with a package name, or `nil`.
    public static func problem(withPackage name: String) -> String? {
        let segments = name.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count >= 2, name.utf8.count <= 255 else {
            return "'\(name)' is not a package name: expected at least two dot-separated parts, e.g. com.example.app"
        }
        for segment in segments {
            guard let first = segment.utf8.first, URLRules.isLetter(first),
                  segment.utf8.allSatisfy({ URLRules.isAlphanumeric($0) || $0 == 0x5F }) else {
                return "'\(name)' is not a package name: each part must start with a letter and hold only letters, digits and '_'"
            }
        }
        return nil
    }

    /// `14:6d:e9…` or `146DE9…` → `14:6D:E9:…`; `nil` when it is not 32 bytes of hex.
    public static func normalizedFingerprint(_ text: String) -> String? {
        let hex = text.utf8.filter { $0 != 0x3A }
        guard hex.count == 64, hex.allSatisfy({ Escaping.hexValue($0) != nil }) else { return nil }
        if text.contains(":") {
            // With colons, every byte must be two digits: `1:2:…` is not a fingerprint.
            guard text.split(separator: ":", omittingEmptySubsequences: false).allSatisfy({ $0.utf8.count == 2 }) else { return nil }
        }
        var pairs: [String] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            pairs.append(String(decoding: hex[index..<index + 2], as: UTF8.self).uppercased())
            index += 2
        }
        return pairs.joined(separator: ":")
    }
}

public enum AndroidStore: String, Sendable, Hashable, Codable, CaseIterable {
    case googlePlay = "google-play"
    case huaweiAppGallery = "huawei-appgallery"
    case samsungGalaxyStore = "samsung-galaxy-store"
    case ruStore = "rustore"
    case amazon = "amazon-appstore"
}

/// One store an Android app is published in.
public struct AndroidStoreListing: Sendable, Hashable, Codable {
    public var store: AndroidStore
    /// The store's own ID of the app where it differs from the package name (AppGallery's `C…`).
    public var storeAppID: String?

    public init(_ store: AndroidStore, storeAppID: String? = nil) {
        self.store = store
        self.storeAppID = storeAppID
    }
}

/// The web side of an app.
public struct WebSettings: Sendable, Hashable, Codable {
    /// Where a visitor goes when no route or link names a web page.
    public var fallbackURL: URL

    public init(fallbackURL: URL) {
        self.fallbackURL = fallbackURL
    }

    public func validate() throws(ValidationError) {
        try URLRules.checkWebURL(fallbackURL, field: "fallbackURL")
    }
}

/// Deferred deep linking settings of an app.
public struct DeferredSettings: Sendable, Hashable, Codable {
    /// How long after a click an install can still be matched to it.
    public var windowMinutes: Int
    /// Match iOS installs without a token by their signals. Off by default: Apple's rules
    /// forbid fingerprinting devices, so an app opts in knowingly.
    public var probabilisticIOS: Bool
    /// Match Android installs without a token (no install referrer, another store) by their signals.
    public var probabilisticAndroid: Bool

    public init(windowMinutes: Int = 60, probabilisticIOS: Bool = false, probabilisticAndroid: Bool = true) {
        self.windowMinutes = windowMinutes
        self.probabilisticIOS = probabilisticIOS
        self.probabilisticAndroid = probabilisticAndroid
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            windowMinutes: try container.decodeIfPresent(Int.self, forKey: .windowMinutes) ?? 60,
            probabilisticIOS: try container.decodeIfPresent(Bool.self, forKey: .probabilisticIOS) ?? false,
            probabilisticAndroid: try container.decodeIfPresent(Bool.self, forKey: .probabilisticAndroid) ?? true)
    }

    public var window: TimeInterval { TimeInterval(windowMinutes * 60) }

    public func validate() throws(ValidationError) {
        guard (1...10_080).contains(windowMinutes) else {
            throw .invalid("windowMinutes", "the matching window is 1 to 10,080 minutes (a week), not \(windowMinutes)")
        }
    }
}
