import Foundation

extension StatsReport {
    /// The tables of a report, each exportable as CSV.
    public enum Table: String, Sendable, CaseIterable {
        case series, decisions, installs, platforms, devices, inAppHosts, referrerHosts, countries, bots, tags, campaigns, links
    }

    /// One table as CSV (RFC 4180, `\r\n` line ends, a header row). Values that a spreadsheet
    /// would run as a formula (starting with `=`, `+`, `-`, `@`) get a leading `'`.
    public func csv(_ table: Table) -> String {
        var lines: [[String]]
        switch table {
        case .series:
            let formatter = ISO8601DateFormatter()
            lines = [["start", "human_visits", "bot_visits", "unique_visitors", "installs", "opens"]]
            lines += series.map { point in
                [formatter.string(from: point.start), "\(point.humanVisits)", "\(point.botVisits)",
                 point.uniqueVisitors.map(String.init) ?? "", "\(point.installs)", "\(point.opens)"]
            }
        case .decisions:
            lines = [["decision", "human_visits"]] + totals.decisions.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { [$0.key, "\($0.value)"] }
        case .installs:
            lines = [["match_type", "installs"]] + totals.installs.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { [$0.key, "\($0.value)"] }
        default:
            lines = [["value", "human_visits", "bot_visits", "installs", "opens"]]
            lines += rows(of: table).map { row in
                [row.value, "\(row.humanVisits)", "\(row.botVisits)", row.installs.map(String.init) ?? "", row.opens.map(String.init) ?? ""]
            }
        }
        return lines.map { $0.map(Self.field).joined(separator: ",") }.joined(separator: "\r\n") + "\r\n"
    }

    /// The rows of a breakdown table; empty for the others.
    public func rows(of table: Table) -> [Row] {
        switch table {
        case .platforms: platforms
        case .devices: devices
        case .inAppHosts: inAppHosts
        case .referrerHosts: referrerHosts
        case .countries: countries
        case .bots: bots
        case .tags: tags
        case .campaigns: campaigns
        case .links: links
        case .series, .decisions, .installs: []
        }
    }

    static func field(_ text: String) -> String {
        var value = text
        if let first = value.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) { value = "'" + value }
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
