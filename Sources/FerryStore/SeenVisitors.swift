import Foundation
import FerryKit

/// Visitors (hashed IP, link, day) this process has written, for the two latest days: a
/// returning visitor is certainly stored already, so a batch skips the statement for it.
/// Only what a committed transaction wrote is remembered; past a million a day, nothing more is.
final class SeenVisitors: @unchecked Sendable {
    private let lock = NSLock()
    private var days: [Int64: Set<VisitorKey>] = [:]
    private let perDay: Int

    init(perDay: Int = 1_000_000) {
        self.perDay = perDay
    }

    /// The human visitors of `visits` not remembered yet, each once.
    func unseen(in visits: [Visit]) -> [VisitorKey] {
        var unseen = Set<VisitorKey>()
        lock.withLock {
            for visit in visits where !visit.isBot {
                let visitor = VisitorKey(visit)
                if days[visitor.day]?.contains(visitor) != true { unseen.insert(visitor) }
            }
        }
        return Array(unseen)
    }

    func remember(_ visitors: [VisitorKey]) {
        guard !visitors.isEmpty else { return }
        lock.withLock {
            for visitor in visitors where days[visitor.day, default: []].count < perDay {
                days[visitor.day, default: []].insert(visitor)
            }
            while days.count > 2, let oldest = days.keys.min() { days[oldest] = nil }
        }
    }
}
