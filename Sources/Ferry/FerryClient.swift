import FerryKit
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What an app tells Ferry about itself.
///
/// ```swift
/// let ferry = FerryClient(configuration: .init(
///     serverURL: URL(string: "https://go.acme.com")!,
///     sdkKey: "fy_sdk_…",                          // ferry app show acme
///     linkDomains: ["go.acme.com", "open.acme.com"],
///     customSchemes: ["acme"],
///     routes: [Route(pattern: "/u/{userId}", minimumVersion: .init(ios: Version(3, 2)))],
///     appVersion: Version(3, 4)))
/// ```
public struct FerryConfiguration: Sendable {
    /// Where the Ferry server answers `/sdk/v1` (any of its link domains, or its API address).
    public var serverURL: URL
    /// The app's public SDK key (`ferry app show`).
    public var sdkKey: String
    /// The app's link domains and alternate domains.
    public var linkDomains: [String]
    /// The app's own URL schemes (`acme://u/42` is routed as `/u/42`).
    public var customSchemes: [String]
    /// The app's route table: the same `Route` values the server's app has.
    public var routes: [Route]
    public var appVersion: Version
    public var platform: Platform
    /// How long one call to the server may take.
    public var timeout: TimeInterval

    public init(serverURL: URL, sdkKey: String, linkDomains: [String], customSchemes: [String] = [], routes: [Route] = [],
                appVersion: Version, platform: Platform = .current, timeout: TimeInterval = 10) {
        self.serverURL = serverURL
        self.sdkKey = sdkKey
        self.linkDomains = linkDomains.map { $0.lowercased() }
        self.customSchemes = customSchemes.map { $0.lowercased() }
        self.routes = routes
        self.appVersion = appVersion
        self.platform = platform
        self.timeout = timeout
    }
}

extension Platform {
    /// The platform this code runs on.
    public static var current: Platform {
        #if os(iOS)
        return .iOS
        #elseif os(Android)
        return .android
        #elseif os(macOS)
        return .macOS
        #elseif os(Linux)
        return .linux
        #else
        return .other
        #endif
    }
}

/// A Ferry link as the app gets it: the screen it points at, with its parameters.
public struct FerryLink: Sendable, Hashable {
    public let resolved: ResolvedLink

    public init(_ resolved: ResolvedLink) {
        self.resolved = resolved
    }

    /// The path inside the app (`/u/42`).
    public var path: String { resolved.path }
    /// The pattern of the route it matched (`/u/{userId}`).
    public var route: String? { resolved.route }
    /// Route placeholders, the link's own parameters and the query's non-tag items.
    public var parameters: [String: String] { resolved.parameters }
    public var tags: LinkTags { resolved.tags }
    /// The link as shared.
    public var url: URL? { URL(string: resolved.url) }

    /// A parameter converted to the type the screen wants: `link["userId", as: Int.self]`.
    public subscript<T: LosslessStringConvertible>(_ name: String, as type: T.Type) -> T? {
        parameters[name].flatMap(T.init)
    }
}

/// What ``FerryClient/handle(_:)`` did with a URL.
public enum DeepLinkOutcome: Sendable, Hashable {
    /// A link of this app, handed to the handler registered for its route (if any).
    case opened(FerryLink)
    /// This version of the app is older than the route needs: open this URL in the browser.
    /// It is on Ferry's web-fallback path, which the association file excludes, so iOS does not
    /// send it back into the app.
    case openInBrowser(URL)
    /// Not a URL of this app's Ferry domains or schemes: handle it elsewhere.
    case notFerryLink
    /// A Ferry short link that could not be resolved (the server is unreachable or refused).
    case failed(FerryError)
}

/// The answer to the first launch.
public struct DeferredOutcome: Sendable, Hashable {
    public let matchType: MatchType
    /// 1 for a token match; below 1 for a probabilistic one, which is a guess: never sign
    /// someone in on it.
    public let confidence: Double
    public let link: FerryLink
}

/// What went wrong talking to Ferry.
public enum FerryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server could not be reached (no network, DNS, timeout).
    case unreachable(String)
    /// The server answered with an error: its status, code and message.
    case server(status: Int, code: String, message: String)
    /// The server's answer could not be read.
    case invalidResponse(String)

    public var description: String {
        switch self {
        case .unreachable(let reason): "Ferry server unreachable: \(reason)"
        case .server(let status, let code, let message): "Ferry server answered \(status) \(code): \(message)"
        case .invalidResponse(let reason): "unreadable answer from the Ferry server: \(reason)"
        }
    }
}

/// The app's side of Ferry: hands each incoming URL to the screen it points at, reports
/// opens, and on the first launch after an install asks which link led there.
///
/// ```swift
/// ferry.register("/u/{userId}") { link in
///     router.show(.profile(id: link["userId", as: Int.self]!))
/// }
/// // universal link, App Link or custom scheme:
/// switch await ferry.handle(url) {
/// case .opened, .notFerryLink: break
/// case .openInBrowser(let web): UIApplication.shared.open(web)
/// case .failed(let error): log(error)
/// }
/// // first launch:
/// if let deferred = await ferry.checkDeferredDeepLink() { … deferred.link … }
/// ```
///
/// The platform parts — pasteboard, device facts, HTTP, what is remembered across launches —
/// come in through small protocols with working defaults, so the whole flow runs in tests.
public final class FerryClient: Sendable {
    public typealias Handler = @Sendable (FerryLink) -> Void

    public let configuration: FerryConfiguration
    private let transport: any HTTPTransport
    private let pasteboard: any Pasteboard
    private let device: any DeviceFacts
    private let memory: any LaunchMemory
    private let handlers = Locked<[(route: Route, handler: Handler)]>([])
    /// Tells the app's URLs from others (its link domains and schemes).
    private let urls: DeepLinkRouter

    public init(configuration: FerryConfiguration, transport: any HTTPTransport = URLSessionTransport(),
                pasteboard: any Pasteboard = SystemPasteboard(), device: any DeviceFacts = SystemDeviceFacts(),
                memory: any LaunchMemory = UserDefaultsLaunchMemory()) {
        self.configuration = configuration
        self.transport = transport
        self.pasteboard = pasteboard
        self.device = device
        self.memory = memory
        self.urls = DeepLinkRouter(linkDomains: configuration.linkDomains, customSchemes: configuration.customSchemes)
    }

    // MARK: Routing

    /// Runs `handler` for links to `pattern`. A pattern missing from the configuration's route
    /// table is added to it for this app (without a minimum version).
    public func register(_ pattern: RoutePattern, handler: @escaping Handler) {
        let route = configuration.routes.first { $0.pattern == pattern } ?? Route(pattern: pattern)
        handlers.withLock { $0.append((route, handler)) }
    }

    /// Hands a URL that opened the app to its screen and reports the open. Route URLs are
    /// matched locally, so they work with the server down; short codes are resolved by the
    /// server.
    @discardableResult
    public func handle(_ url: URL) async -> DeepLinkOutcome {
        guard let path = ferryPath(of: url) else { return .notFerryLink }
        if let local = localLink(url: url, path: path) {
            if local.requiresUpdate, let web = local.webURL.flatMap(URL.init(string:)) { return .openInBrowser(web) }
            // Reporting the open must not hold the screen up.
            Task { try? await self.report(url) }
            return dispatch(FerryLink(local))
        }
        do {
            let resolved = try await report(url)
            if resolved.requiresUpdate, let web = resolved.webURL.flatMap(URL.init(string:)) { return .openInBrowser(web) }
            return dispatch(FerryLink(resolved))
        } catch {
            return .failed(error)
        }
    }

    /// Resolves a short code on the app's domains without recording an open.
    public func resolve(code: String) async throws(FerryError) -> FerryLink {
        var components = URLComponents(url: endpoint("links/" + code), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "platform", value: configuration.platform.rawValue),
                                 URLQueryItem(name: "appVersion", value: configuration.appVersion.description)]
        let resolved: ResolvedLink = try await call(URLRequest(url: components.url!))
        return FerryLink(resolved)
    }

    // MARK: Deferred deep linking

    /// The link that led to this install, on the first launch only (later launches get `nil`,
    /// remembered across launches). On iOS it first asks the pasteboard whether it probably
    /// holds a URL — which shows no prompt — and reads it only then, takes the token only from
    /// a URL on this app's link domains, and clears the pasteboard afterwards. An app that has
    /// the Play install referrer string, or a token from a `UIPasteControl` paste, passes it in.
    ///
    /// `nil` also when there is no match, or when the server cannot be reached (then the next
    /// launch asks again). ``deferredDeepLink(installReferrer:pastedToken:)`` says why.
    public func checkDeferredDeepLink(installReferrer: String? = nil, pastedToken: String? = nil) async -> DeferredOutcome? {
        try? await deferredDeepLink(installReferrer: installReferrer, pastedToken: pastedToken)
    }

    /// ``checkDeferredDeepLink(installReferrer:pastedToken:)``, with the error when the server
    /// could not answer.
    public func deferredDeepLink(installReferrer: String? = nil, pastedToken: String? = nil) async throws(FerryError) -> DeferredOutcome? {
        guard !memory.deferredLinkChecked else { return nil }
        var token = pastedToken.flatMap(DeferredToken.valid)
        var fromPasteboard = false
        if token == nil, installReferrer == nil, configuration.platform.isApple, await pasteboard.probablyHoldsURL(),
           let text = await pasteboard.string(), isLinkDomainURL(text), let found = DeferredToken.fromURL(text) {
            token = found
            fromPasteboard = true
        }
        let screen = await device.screen
        let report = InstallReport(
            platform: configuration.platform, appVersion: configuration.appVersion, osVersion: device.osVersion,
            deviceModel: device.model, screen: screen, languages: device.languages, timeZone: device.timeZone,
            token: token, installReferrer: installReferrer)
        var request = URLRequest(url: endpoint("install"))
        request.httpMethod = "POST"
        request.httpBody = try Self.encode(report)
        let answer: InstallAnswer = try await call(request)
        memory.deferredLinkChecked = true
        if fromPasteboard { await pasteboard.clear() }
        guard let resolved = answer.link, answer.matchType != .none else { return nil }
        let link = FerryLink(resolved)
        if !resolved.requiresUpdate { _ = dispatch(link) }
        return DeferredOutcome(matchType: answer.matchType, confidence: answer.confidence, link: link)
    }

    // MARK: Parts

    /// The path of a URL on the app's link domains or schemes; `nil` for any other URL.
    func ferryPath(of url: URL) -> String? {
        urls.path(of: url)
    }

    private func isLinkDomainURL(_ text: String) -> Bool {
        guard let url = URL(string: text.trimmingCharacters(in: .whitespacesAndNewlines)), url.scheme?.lowercased() == "https" else { return false }
        return ferryPath(of: url) != nil
    }

    /// A route URL resolved from the app's own route table, or `nil` when the path is not a
    /// route (a short code, which only the server knows).
    func localLink(url: URL, path: String) -> ResolvedLink? {
        let routes = configuration.routes + handlers.withLock { $0.map(\.route) }
        guard routes.contains(where: { $0.pattern.match(path) != nil }) else { return nil }
        let query = (URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map { ($0.name, $0.value ?? "") }
        let domain = url.host.map { $0.lowercased() }.flatMap { configuration.linkDomains.contains($0) ? $0 : nil }
            ?? configuration.linkDomains.first ?? ""
        var resolved = ResolvedLink(link: Link.routeLink(domain: domain, path: path, query: query), routes: routes,
                                    platform: configuration.platform, appVersion: configuration.appVersion)
        resolved.url = url.absoluteString
        return resolved
    }

    private func dispatch(_ link: FerryLink) -> DeepLinkOutcome {
        let handler = handlers.withLock { entries in entries.first { $0.route.pattern.match(link.path) != nil }?.handler }
        handler?(link)
        return .opened(link)
    }

    /// `POST /sdk/v1/open`: resolves the URL and records the open.
    @discardableResult
    private func report(_ url: URL) async throws(FerryError) -> ResolvedLink {
        var request = URLRequest(url: endpoint("open"))
        request.httpMethod = "POST"
        request.httpBody = try Self.encode(OpenReport(url: url.absoluteString, platform: configuration.platform, appVersion: configuration.appVersion))
        return try await call(request)
    }

    private func endpoint(_ path: String) -> URL {
        configuration.serverURL.appendingPathComponent("sdk/v1").appendingPathComponent(path)
    }

    private func call<T: Decodable>(_ request: URLRequest) async throws(FerryError) -> T {
        var request = request
        request.timeoutInterval = configuration.timeout
        request.setValue(configuration.sdkKey, forHTTPHeaderField: "X-Ferry-SDK-Key")
        if request.httpBody != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        let data: Data
        let response: HTTPURLResponse
        do {
            (data, response) = try await transport.send(request)
        } catch {
            throw .unreachable(String(describing: error))
        }
        guard (200..<300).contains(response.statusCode) else {
            let body = try? JSONDecoder().decode([String: [String: String]].self, from: data)
            throw .server(status: response.statusCode, code: body?["error"]?["code"] ?? "http_\(response.statusCode)",
                          message: body?["error"]?["message"] ?? HTTPURLResponse.localizedString(forStatusCode: response.statusCode))
        }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw .invalidResponse(String(describing: error))
        }
    }

    private static func encode(_ value: some Encodable) throws(FerryError) -> Data {
        do {
            return try JSONEncoder().encode(value)
        } catch {
            throw .invalidResponse("cannot encode the request: \(error)")
        }
    }
}

extension Platform {
    var isApple: Bool { self == .iOS || self == .iPadOS }
}

/// A value behind a lock, for the client's registered handlers.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) {
        self.value = value
    }

    func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
