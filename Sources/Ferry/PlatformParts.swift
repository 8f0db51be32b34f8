import FerryKit
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(UIKit)
import UIKit
#endif

/// Sends one HTTP request. The default is `URLSession`; tests and apps with their own network
/// stack pass another.
public protocol HTTPTransport: Sendable {
    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse)
}

public struct URLSessionTransport: HTTPTransport {
    let session: URLSession

    public init(session: URLSession = .shared) {
        self.session = session
    }

    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        return (data, http)
    }
}

/// The system pasteboard, as far as deferred deep linking needs it.
public protocol Pasteboard: Sendable {
    /// Whether it probably holds a web URL — asked without reading it, so without a prompt.
    func probablyHoldsURL() async -> Bool
    /// Its text (on iOS 16 and later this may show the paste prompt).
    func string() async -> String?
    func clear() async
}

/// `UIPasteboard.general` on iOS (pattern detection first); elsewhere an empty pasteboard.
public struct SystemPasteboard: Pasteboard {
    public init() {}

    public func probablyHoldsURL() async -> Bool {
        #if canImport(UIKit) && !os(watchOS) && !os(tvOS)
        guard UIPasteboard.general.hasStrings || UIPasteboard.general.hasURLs else { return false }
        let patterns = try? await UIPasteboard.general.detectedPatterns(for: [\.probableWebURL])
        return patterns?.contains(\.probableWebURL) ?? false
        #else
        return false
        #endif
    }

    public func string() async -> String? {
        #if canImport(UIKit) && !os(watchOS) && !os(tvOS)
        return await MainActor.run { UIPasteboard.general.url?.absoluteString ?? UIPasteboard.general.string }
        #else
        return nil
        #endif
    }

    public func clear() async {
        #if canImport(UIKit) && !os(watchOS) && !os(tvOS)
        await MainActor.run { UIPasteboard.general.items = [] }
        #endif
    }
}

/// What the app can tell about the device, for a probabilistic match.
public protocol DeviceFacts: Sendable {
    var osVersion: Version? { get }
    /// The hardware model (`iPhone15,2`).
    var model: String? { get }
    /// The screen in points, portrait (async: on iOS it is read on the main actor).
    var screen: Screen? { get async }
    /// Preferred languages (`en-GB`), most preferred first.
    var languages: [String] { get }
    var timeZone: String? { get }
}

public struct SystemDeviceFacts: DeviceFacts {
    public init() {}

    public var osVersion: Version? {
        let version = ProcessInfo.processInfo.operatingSystemVersion
        return Version(version.majorVersion, version.minorVersion, version.patchVersion)
    }

    public var model: String? {
        var system = utsname()
        uname(&system)
        let machine = withUnsafeBytes(of: &system.machine) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        return machine.isEmpty ? nil : machine
    }

    public var screen: Screen? {
        get async {
            #if canImport(UIKit) && os(iOS)
            return await MainActor.run {
                let bounds = UIScreen.main.bounds
                return Screen(width: Int(bounds.width), height: Int(bounds.height))
            }
            #else
            return nil
            #endif
        }
    }

    public var languages: [String] { Locale.preferredLanguages }

    public var timeZone: String? { TimeZone.current.identifier }
}

/// What the SDK remembers across launches.
public protocol LaunchMemory: Sendable {
    /// Whether the first launch has asked for its deferred link.
    var deferredLinkChecked: Bool { get nonmutating set }
}

/// In `UserDefaults.standard`, under `ferry.deferredLinkChecked`.
public struct UserDefaultsLaunchMemory: LaunchMemory {
    let key: String

    public init(key: String = "ferry.deferredLinkChecked") {
        self.key = key
    }

    public var deferredLinkChecked: Bool {
        get { UserDefaults.standard.bool(forKey: key) }
        nonmutating set { UserDefaults.standard.set(newValue, forKey: key) }
    }
}

/// Remembers for the life of the process only: for tests and previews, or for an app that
/// keeps its own record of the first launch.
public final class InMemoryLaunchMemory: LaunchMemory, @unchecked Sendable {
    private let lock = NSLock()
    private var checked: Bool

    public init(deferredLinkChecked: Bool = false) {
        checked = deferredLinkChecked
    }

    public var deferredLinkChecked: Bool {
        get { lock.withLock { checked } }
        set { lock.withLock { checked = newValue } }
    }
}

/// Device facts given up front: for tests and previews.
public struct FixedDeviceFacts: DeviceFacts {
    public var osVersion: Version?
    public var model: String?
    public var screen: Screen?
    public var languages: [String]
    public var timeZone: String?

    public init(osVersion: Version? = nil, model: String? = nil, screen: Screen? = nil, languages: [String] = [], timeZone: String? = nil) {
        self.osVersion = osVersion
        self.model = model
        self.screen = screen
        self.languages = languages
        self.timeZone = timeZone
    }
}
