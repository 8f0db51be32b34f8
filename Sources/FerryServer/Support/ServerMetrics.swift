import FerryKit
import NIOConcurrencyHelpers

/// Counters the server exposes at `/metrics` (Prometheus text format).
public final class ServerMetrics: Sendable {
    private let decisions = NIOLockedValueBox([DecisionKind: Int]())
    /// Responses by status class (index 1 = 1xx … 5 = 5xx).
    private let responses = NIOLockedValueBox([Int](repeating: 0, count: 6))

    public init() {}

    func answered(status: Int) {
        let group = min(max(status / 100, 0), 5)
        responses.withLockedValue { $0[group] += 1 }
    }

    func decided(_ kind: DecisionKind) {
        decisions.withLockedValue { $0[kind, default: 0] += 1 }
    }

    public var decisionCounts: [DecisionKind: Int] { decisions.withLockedValue { $0 } }

    /// The exposition text, with the visit recorder's counts.
    func exposition(visits: (queued: Int, written: Int, dropped: Int, pending: Int)) -> String {
        var text = "# HELP ferry_http_requests_total HTTP requests answered, by status class.\n# TYPE ferry_http_requests_total counter\n"
        let byClass = responses.withLockedValue { $0 }
        for group in 1...5 {
            text += "ferry_http_requests_total{status=\"\(group)xx\"} \(byClass[group])\n"
        }
        text += "# HELP ferry_decisions_total Link requests answered, by decision.\n# TYPE ferry_decisions_total counter\n"
        let counts = decisionCounts
        for kind in DecisionKind.allCases {
            text += "ferry_decisions_total{decision=\"\(kind.rawValue)\"} \(counts[kind] ?? 0)\n"
        }
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
