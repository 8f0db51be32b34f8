import Foundation

/// How an install was matched to a click.
public enum MatchType: String, Sendable, Hashable, Codable, CaseIterable {
    /// By the token: this is the click.
    case deterministic
    /// By comparing signals: probably the click, with the confidence given.
    case probabilistic
    case none
}

/// Matches a first launch to a click without a token, by the signals both sides can see
/// (REFERENCE.md, "Deferred deep linking"). The same address is required; then every signal
/// both sides know either agrees (and adds to the confidence) or rules the click out. It
/// answers only when one click stands clearly above the others: two close candidates — a
/// family on one Wi-Fi tapping two links — give no answer rather than a wrong one.
///
/// ```swift
/// let matcher = DeferredMatcher()
/// if let (intent, confidence) = matcher.best(for: install, at: now, among: candidates) { … }
/// ```
public struct DeferredMatcher: Sendable {
    /// Below this confidence there is no match.
    public var minimumConfidence: Double
    /// The best candidate must beat the second by this much.
    public var margin: Double

    public init(minimumConfidence: Double = 0.6, margin: Double = 0.15) {
        self.minimumConfidence = minimumConfidence
        self.margin = margin
    }

    /// The clearly best live candidate and its confidence (0–1), or `nil`.
    public func best(for install: DeviceSignals, at now: Date, among candidates: [DeferredIntent]) -> (intent: DeferredIntent, confidence: Double)? {
        let scored = candidates.compactMap { intent -> (DeferredIntent, Double)? in
            guard intent.isLive(at: now), let score = Self.score(intent.signals, install, age: now.timeIntervalSince(intent.createdAt),
                                                                   window: intent.expiresAt.timeIntervalSince(intent.createdAt)) else { return nil }
            return (intent, score)
        }.sorted { $0.1 > $1.1 }
        guard let first = scored.first, first.1 >= minimumConfidence else { return nil }
        if scored.count > 1, first.1 - scored[1].1 < margin { return nil }
        return first
    }

    /// How well a click's signals fit an install's, 0–1; `nil` when they cannot be one device.
    public static func score(_ click: DeviceSignals, _ install: DeviceSignals, age: TimeInterval, window: TimeInterval) -> Double? {
        guard click.platform.family == install.platform.family else { return nil }
        guard let clickIP = click.ipHash, clickIP == install.ipHash else { return nil }
        var score = 0.4
        switch (click.osVersion, install.osVersion) {
        case let (web?, app?):
            // Browsers round (Safari reports 17.4 for 17.4.1; Chrome's reduced UA says 10), so
            // compare what both sides state.
            let common = min(web.components.count, app.components.count, 2)
            guard web.components.prefix(common) == app.components.prefix(common) else { return nil }
            score += common >= 2 ? 0.15 : 0.05
        default: break
        }
        if let web = click.deviceModel, let app = install.deviceModel {
            guard web.caseInsensitiveCompare(app) == .orderedSame else { return nil }
            score += 0.15
        }
        if let web = click.screen, let app = install.screen {
            guard web == app else { return nil }
            score += 0.15
        }
        if let web = click.timeZone, let app = install.timeZone {
            guard web == app else { return nil }
            score += 0.1
        }
        if let web = click.languages.first, let app = install.languages.first {
            if web == app { score += 0.1 } else if Self.language(web) == Self.language(app) { score += 0.05 } else { score -= 0.1 }
        }
        // A recent click is a likelier one.
        if window > 0 { score += 0.1 * max(0, 1 - age / window) }
        return min(1, max(0, score))
    }

    private static func language(_ tag: String) -> Substring {
        tag.split(separator: "-").first ?? Substring(tag)
    }
}

extension Platform {
    /// iPhone and iPad share an App Store account and apps.
    var family: Platform {
        self == .iPadOS ? .iOS : self
    }
}
