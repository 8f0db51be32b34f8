import Atomics
import FerryKit

/// Counters the server exposes at `/metrics` (Prometheus text format). Every click bumps two
/// of them from either event loop, so they are atomics rather than values behind a lock.
public final class ServerMetrics: Sendable {
    /// Link requests by decision, in `DecisionKind.allCases` order.
    private let decisions = DecisionKind.allCases.map { _ in ManagedAtomic(0) }
    /// Responses by status class (index 1 = 1xx … 5 = 5xx).
    private let responses = (0...5).map { _ in ManagedAtomic(0) }
    /// Link requests answered on the event loop from cached data (``LinkFastPath``).
    private let fromMemory = ManagedAtomic(0)

    public init() {}

    func answered(status: Int, fromMemory: Bool = false) {
        responses[min(max(status / 100, 0), 5)].wrappingIncrement(ordering: .relaxed)
        if fromMemory { self.fromMemory.wrappingIncrement(ordering: .relaxed) }
    }

    func decided(_ kind: DecisionKind) {
        decisions[Self.kinds.firstIndex(of: kind)!].wrappingIncrement(ordering: .relaxed)
    }

    /// `allCases` builds a new array on every access; this one is built once.
    private static let kinds = DecisionKind.allCases

    /// Link requests answered by ``LinkFastPath``.
    public var fastPathCount: Int { fromMemory.load(ordering: .relaxed) }

    public var decisionCounts: [DecisionKind: Int] {
        Dictionary(uniqueKeysWithValues: DecisionKind.allCases.enumerated().map { ($1, decisions[$0].load(ordering: .relaxed)) })
    }

    /// The exposition text, with the visit recorder's counts.
    func exposition(visits: (queued: Int, written: Int, dropped: Int, pending: Int)) -> String {
        var text = "# HELP ferry_http_requests_total HTTP requests answered, by status class.\n# TYPE ferry_http_requests_total counter\n"
        for group in 1...5 {
            text += "ferry_http_requests_total{status=\"\(group)xx\"} \(responses[group].load(ordering: .relaxed))\n"
        }
        text += "# HELP ferry_decisions_total Link requests answered, by decision.\n# TYPE ferry_decisions_total counter\n"
        let counts = decisionCounts
        for kind in DecisionKind.allCases {
            text += "ferry_decisions_total{decision=\"\(kind.rawValue)\"} \(counts[kind] ?? 0)\n"
        }
        text += "# HELP ferry_fast_path_total Link requests answered on the event loop from cached links, without a task switch.\n# TYPE ferry_fast_path_total counter\n"
        text += "ferry_fast_path_total \(fastPathCount)\n"
        text += "# HELP ferry_visits_queued_total Visits accepted into the recording queue.\n# TYPE ferry_visits_queued_total counter\n"
        text += "ferry_visits_queued_total \(visits.queued)\n"
        text += "# HELP ferry_visits_written_total Visits written to the store.\n# TYPE ferry_visits_written_total counter\n"
        text += "ferry_visits_written_total \(visits.written)\n"
        text += "# HELP ferry_visits_dropped_total Visits dropped because the queue was full.\n# TYPE ferry_visits_dropped_total counter\n"
        text += "ferry_visits_dropped_total \(visits.dropped)\n"
        text += "# HELP ferry_visits_pending Visits queued and not yet written.\n# TYPE ferry_visits_pending gauge\n"
        text += "ferry_visits_pending \(visits.pending)\n"
        return text
    }
}
