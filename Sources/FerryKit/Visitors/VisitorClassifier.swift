/// Classifies visitors from request headers.
///
/// Building the classifier compiles the token table into one automaton; classifying is a
/// single pass over the user agent plus a few look-ups, with no regular expressions. Use
/// ``shared`` unless you need a classifier of your own.
///
/// ```swift
/// let visitor = VisitorClassifier.shared.classify(userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) …")
/// visitor.platform      // .iOS
/// visitor.osVersion     // 17.4
/// ```
public struct VisitorClassifier: Sendable {
    public static let shared = VisitorClassifier()

    private let scanner: TokenScanner
    private let signals: [Signal]
    private let placements: [TokenPlacement]

    public init() {
        precondition(Signal.allCases.count <= 128, "Found keeps signals in 128 bits")
        let table = UserAgentTokens.table
        scanner = TokenScanner(tokens: table.map(\.0))
        signals = table.map(\.1)
        placements = table.map(\.2)
    }

    public func classify(userAgent: String) -> Visitor {
        classify(RequestHeaders(userAgent: userAgent))
    }

    public func classify(_ headers: RequestHeaders) -> Visitor {
        var userAgent = headers.userAgent
        // Longer strings are not user agents any browser sends; don't let them cost more.
        if userAgent.utf8.count > 1024 { userAgent = String(decoding: userAgent.utf8.prefix(1024), as: UTF8.self) }
        var visitor = userAgent.withUTF8 { bytes in
            var found = Found()
            scanner.scan(bytes) { hit in
                guard accepts(hit, in: bytes) else { return }
                found.record(signals[hit.token], start: hit.start, end: hit.end)
            }
            return found.visitor(in: bytes)
        }
        apply(hints: headers, to: &visitor)
        visitor.acceptLanguage = headers.acceptLanguage.map { String($0.prefix(256)) }
        return visitor
    }

    private func accepts(_ hit: TokenScanner.Hit, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        switch placements[hit.token] {
        case .anywhere:
            if signals[hit.token] == .botWord { return Self.isBotWord(at: hit, in: bytes) }
            return true
        case .wordStart:
            return hit.start == 0 || !isAlphanumeric(bytes[hit.start - 1])
        case .atStart:
            return hit.start == 0
        case .beforeDigit:
            return hit.end < bytes.count && bytes[hit.end] >= 0x30 && bytes[hit.end] <= 0x39
        }
    }

    /// `bot` as a word or a word's ending (`Googlebot/`, `Quora-Bot`, `(dbot)`), not in the
    /// middle of one (`Abbott`, `Botswana`).
    private static func isBotWord(at hit: TokenScanner.Hit, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        hit.end == bytes.count || !isLetter(bytes[hit.end])
    }

    private func apply(hints headers: RequestHeaders, to visitor: inout Visitor) {
        if let hint = headers.platformHint.map(Self.unquoted) {
            switch hint.lowercased() {
            case "android": visitor.platform = .android
            case "ios": visitor.platform = visitor.platform == .iPadOS ? .iPadOS : .iOS
            case "macos": visitor.platform = .macOS
            case "windows": visitor.platform = .windows
            case "chrome os", "chromeos": visitor.platform = .chromeOS
            case "linux": if visitor.platform != .android { visitor.platform = .linux }
            default: break
            }
            if let versionHint = headers.platformVersionHint.map(Self.unquoted),
               let version = Version(versionHint), version.major > 0 || visitor.platform == .windows {
                visitor.osVersion = version
            }
        }
        if visitor.platform.isDesktop {
            visitor.deviceClass = .desktop
        }
        if let mobile = headers.mobileHint, visitor.platform == .android {
            visitor.deviceClass = mobile.contains("1") ? .phone : .tablet
        }
        if let model = headers.modelHint.map(Self.unquoted), !model.isEmpty {
            visitor.model = String(model.prefix(64))
            if visitor.vendor == .unknown || visitor.vendor == .other {
                visitor.vendor = Self.vendor(ofModel: model)
            }
        }
    }

    private static func unquoted(_ value: String) -> String {
        var text = Substring(value).trimmingSpaces()
        if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 {
            text = String(text.dropFirst().dropLast())
        }
        return text
    }

    static func vendor(ofModel model: String) -> DeviceVendor {
        let lower = model.lowercased()
        if lower.hasPrefix("sm-") || lower.hasPrefix("galaxy") || lower.hasPrefix("samsung") { return .samsung }
        if lower.hasPrefix("pixel") { return .google }
        if lower.hasPrefix("huawei") { return .huawei }
        if lower.hasPrefix("honor") { return .honor }
        if lower.hasPrefix("redmi") || lower.hasPrefix("xiaomi") || lower.hasPrefix("poco") || lower.hasPrefix("mi ") { return .xiaomi }
        if lower.hasPrefix("kf") { return .amazon }
        return .other
    }
}

private func isLetter(_ byte: UInt8) -> Bool {
    (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
}

private func isAlphanumeric(_ byte: UInt8) -> Bool {
    isLetter(byte) || (byte >= 0x30 && byte <= 0x39)
}

/// The signals one user agent carries, with where each version-carrying one first ended.
/// Fixed-size storage: classifying allocates nothing.
private struct Found {
    private var low: UInt64 = 0
    private var high: UInt64 = 0
    private var versionOffset = SIMD16<Int32>(repeating: -1)

    mutating func record(_ signal: Signal, start: Int, end: Int) {
        let index = signal.rawValue
        if index < 64 { low |= 1 << UInt64(index) } else { high |= 1 << UInt64(index - 64) }
        if let slot = signal.versionSlot, versionOffset[slot] < 0 { versionOffset[slot] = Int32(end) }
    }

    func has(_ signal: Signal) -> Bool {
        let index = signal.rawValue
        return index < 64 ? low & (1 << UInt64(index)) != 0 : high & (1 << UInt64(index - 64)) != 0
    }

    /// The version written right after the first occurrence of `signal` (`Android 14` → 14).
    func version(after signal: Signal, in bytes: UnsafeBufferPointer<UInt8>) -> Version? {
        guard let slot = signal.versionSlot, versionOffset[slot] >= 0 else { return nil }
        var index = Int(versionOffset[slot])
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x2F { index += 1 }  // " " or "/"
        var end = index
        while end < bytes.count, end - index < 24 {
            let byte = bytes[end]
            guard (byte >= 0x30 && byte <= 0x39) || byte == 0x2E || byte == 0x5F else { break }
            end += 1
        }
        while end > index, bytes[end - 1] == 0x2E || bytes[end - 1] == 0x5F { end -= 1 }
        guard end > index else { return nil }
        return Version(String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<end]), as: UTF8.self))
    }

    func visitor(in bytes: UnsafeBufferPointer<UInt8>) -> Visitor {
        var visitor = Visitor()
        visitor.bot = botKind
        visitor.inAppHost = inAppHost
        classifyPlatform(&visitor, bytes)
        visitor.browser = browser(for: visitor)
        classifyVendor(&visitor)
        if visitor.inAppHost == nil, visitor.browser == .webView, visitor.isMobile {
            visitor.inAppHost = .genericWebView
        }
        // A Mac Safari user agent is what iPadOS 13+ sends by default.
        visitor.maybeIPad = visitor.platform == .macOS && visitor.browser == .safari && has(.safariVersion)
        return visitor
    }

    private var botKind: BotKind {
        if has(.previewCrawler) || has(.previewCrawlerAtStart) { return .linkPreview }
        if has(.searchCrawler) { return .searchCrawler }
        if has(.otherBot) { return .other }
        if (has(.botWord) && !has(.notABot)) || has(.automationMarker) {
            // An automated client we don't know by name: the overwhelmingly likely reason it
            // fetches a short link is to draw a preview, and the preview HTML is the safe answer.
            return .linkPreview
        }
        return .none
    }

    private var inAppHost: InAppHost? {
        // Order matters: Messenger carries Facebook's tokens, Threads and Instagram share code.
        if has(.messenger) { return .messenger }
        if has(.instagram) { return .instagram }
        if has(.threads) { return .threads }
        if has(.facebook) { return .facebook }
        if has(.weChat) { return .wechat }
        if has(.whatsAppBrowser) { return .whatsapp }
        if has(.line) { return .line }
        if has(.telegram) { return .telegram }
        if has(.twitter) { return .twitter }
        if has(.linkedIn) { return .linkedin }
        if has(.snapchat) { return .snapchat }
        if has(.tikTok) { return .tiktok }
        if has(.pinterest) { return .pinterest }
        if has(.kakaoTalk) { return .kakaoTalk }
        if has(.weibo) { return .weibo }
        if has(.naver) { return .naver }
        if has(.googleApp) { return .googleApp }
        return nil
    }

    private func classifyPlatform(_ visitor: inout Visitor, _ bytes: UnsafeBufferPointer<UInt8>) {
        if has(.windowsPhone) || has(.kaiOS) || has(.tizen) {
            visitor.platform = .other
            visitor.deviceClass = .phone
            return
        }
        let appleMobile = has(.iPhone) || has(.iPod) || has(.iPad) || has(.iPhoneOS) || has(.iPhOS)
            || has(.cpuOS) || has(.likeMacOSX) || has(.iOSWord)
        // Kindle Fire's Silk runs on Fire OS, an Android, even when it asks for desktop pages.
        if has(.android) || has(.androidShort) || has(.androidApp) || has(.silk) || has(.amazonDevice), !appleMobile {
            visitor.platform = .android
            visitor.osVersion = version(after: .android, in: bytes) ?? version(after: .androidShort, in: bytes)
            visitor.deviceClass = has(.mobile) || has(.androidApp) ? .phone : .tablet
            if has(.tablet) { visitor.deviceClass = .tablet }
            return
        }
        if appleMobile, !has(.macintosh) || has(.iPad) || has(.iPhone) {
            let isPad = has(.iPad)
            visitor.platform = isPad ? .iPadOS : .iOS
            visitor.deviceClass = isPad ? .tablet : .phone
            visitor.osVersion = version(after: .iPhoneOS, in: bytes) ?? version(after: .cpuOS, in: bytes)
                ?? version(after: .iPhOS, in: bytes) ?? version(after: .iOSWord, in: bytes)
                ?? darwinAsIOS(bytes)
            return
        }
        if has(.cfNetwork), has(.darwin), !has(.intelArchitecture), !has(.macintosh), !has(.macOSX) {
            // A native iOS app's own networking: `App/1.0 CFNetwork/1410 Darwin/22.6.0`.
            visitor.platform = .iOS
            visitor.deviceClass = .other
            visitor.osVersion = darwinAsIOS(bytes)
            return
        }
        if has(.x11), has(.windows) {
            // Windows has no X11; this is Citrix's Chrome app on a Chromebook.
            visitor.platform = .chromeOS
            visitor.deviceClass = .desktop
            return
        }
        if has(.windows) || has(.windowsNT) || has(.windowsLegacy) {
            visitor.platform = .windows
            visitor.deviceClass = .desktop
            visitor.osVersion = version(after: .windowsNT, in: bytes)
            return
        }
        if has(.macintosh) || has(.macOSX) || has(.macOSWord) || has(.osXWord) || has(.darwin) {
            // Chrome, Firefox and Edge for iOS on a "Macintosh" can only be an iPad asking for desktop pages.
            visitor.platform = has(.chromeIOS) || has(.firefoxIOS) || has(.edgeIOS) ? .iPadOS : .macOS
            visitor.deviceClass = visitor.platform == .iPadOS ? .tablet : .desktop
            visitor.osVersion = version(after: .macOSX, in: bytes)
            return
        }
        if has(.chromeOS) {
            visitor.platform = .chromeOS
            visitor.deviceClass = .desktop
            return
        }
        if has(.bsd) {
            visitor.platform = .other
            visitor.deviceClass = .desktop
            return
        }
        if has(.linux) || has(.x11) {
            visitor.platform = .linux
            visitor.deviceClass = .desktop
            return
        }
        visitor.deviceClass = has(.mobile) ? .phone : .other
    }

    /// Darwin 10–24 shipped with iOS 4–18; from 2025 iOS numbers follow the year (Darwin 25 = iOS 26).
    private func darwinAsIOS(_ bytes: UnsafeBufferPointer<UInt8>) -> Version? {
        guard let darwin = version(after: .darwin, in: bytes), darwin.major >= 10 else { return nil }
        let major = darwin.major >= 25 ? darwin.major + 1 : darwin.major - 6
        return Version([major, darwin.minor])
    }

    private func browser(for visitor: Visitor) -> BrowserFamily {
        if visitor.inAppHost != nil { return .webView }
        if has(.edge) || has(.edgeIOS) { return .edge }
        if has(.opera) { return .opera }
        if has(.samsungBrowser) { return .samsungInternet }
        if has(.yandex) { return .yandex }
        if has(.ucBrowser) { return .ucBrowser }
        if has(.huaweiBrowser) { return .huaweiBrowser }
        if has(.miuiBrowser) { return .miuiBrowser }
        if has(.qqBrowser) { return .qqBrowser }
        if has(.duckDuckGo) { return .duckDuckGo }
        if has(.silk) { return .silk }
        if has(.chromeIOS) { return .chrome }
        if has(.firefoxIOS) || has(.firefox) { return .firefox }
        if has(.androidWebView) { return .webView }
        if has(.chrome) { return .chrome }
        if has(.internetExplorer) { return .internetExplorer }
        if visitor.isApple || visitor.platform == .macOS {
            if has(.safari) { return .safari }
            // iOS WebKit without `Safari/` is an app's WKWebView.
            if visitor.isApple, has(.mobile) { return .webView }
        }
        return .other
    }

    private func classifyVendor(_ visitor: inout Visitor) {
        switch visitor.platform {
        case .iOS, .iPadOS, .macOS:
            visitor.vendor = .apple
        case .android:
            if has(.hmsCore) || has(.harmonyOS) {
                visitor.vendor = has(.honor) ? .honor : .huawei
                visitor.hasGoogleServices = false
            } else if has(.huawei) || has(.huaweiBrowser) {
                visitor.vendor = .huawei
            } else if has(.honor) {
                visitor.vendor = .honor
            } else if has(.samsung) || has(.samsungModel) || has(.samsungBrowser) {
                visitor.vendor = .samsung
            } else if has(.xiaomi) || has(.miuiBrowser) {
                visitor.vendor = .xiaomi
            } else if has(.amazonDevice) {
                visitor.vendor = .amazon
                // Fire tablets ship without Google Play.
                visitor.hasGoogleServices = false
            } else if has(.pixel) {
                visitor.vendor = .google
            } else {
                visitor.vendor = .unknown
            }
        default:
            visitor.vendor = visitor.platform.isDesktop ? .other : .unknown
        }
    }
}
