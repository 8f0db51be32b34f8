import FerryKit
import Foundation

/// Charts as inline SVG, drawn on the server: the dashboard needs no script to show them.
/// Every label is escaped; colours are attributes (the page's CSP allows no inline styles).
enum Charts {
    static let accent = "#0b5fff"  // the stylesheet's --accent

    /// Columns of human visits per bucket, with the largest value and the first and last
    /// dates as labels.
    static func columns(_ series: [StatsReport.Point], label: String) -> String {
        let width = 640.0, height = 180.0, top = 16.0, bottom = 24.0
        let largest = max(1, series.map(\.humanVisits).max() ?? 0)
        let step = width / Double(max(1, series.count))
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "MMM d"
        var bars = ""
        for (index, point) in series.enumerated() {
            let barHeight = (height - top - bottom) * Double(point.humanVisits) / Double(largest)
            let x = Double(index) * step + step * 0.1
            bars += #"<rect x="\#(fmt(x))" y="\#(fmt(height - bottom - barHeight))" width="\#(fmt(step * 0.8))" height="\#(fmt(barHeight))" fill="\#(accent)" rx="2"><title>\#(Escaping.html(formatter.string(from: point.start))): \#(point.humanVisits)</title></rect>"#
        }
        let first = series.first.map { formatter.string(from: $0.start) } ?? ""
        let last = series.last.map { formatter.string(from: $0.start) } ?? ""
        return #"<svg viewBox="0 0 \#(fmt(width)) \#(fmt(height))" role="img" aria-label="\#(Escaping.html(label))" xmlns="http://www.w3.org/2000/svg">"#
            + ##"<line x1="0" y1="\##(fmt(height - bottom))" x2="\##(fmt(width))" y2="\##(fmt(height - bottom))" stroke="#8895a1" stroke-width="1"/>"##
            + bars
            + ##"<text x="0" y="12" font-size="12" fill="#5b6875">\##(largest)</text>"##
            + ##"<text x="0" y="\##(fmt(height - 6))" font-size="12" fill="#5b6875">\##(Escaping.html(first))</text>"##
            + ##"<text x="\##(fmt(width))" y="\##(fmt(height - 6))" font-size="12" fill="#5b6875" text-anchor="end">\##(Escaping.html(last))</text>"##
            + "</svg>"
    }

    /// Horizontal bars, one per (label, value), each with its number.
    static func bars(_ rows: [(label: String, value: Int)], label: String) -> String {
        let width = 640.0, row = 28.0, labelWidth = 160.0
        let largest = max(1, rows.map(\.value).max() ?? 0)
        var body = ""
        for (index, item) in rows.enumerated() {
            let y = Double(index) * row
            let length = (width - labelWidth - 60) * Double(item.value) / Double(largest)
            body += #"<text x="0" y="\#(fmt(y + 18))" font-size="13" fill="currentColor">\#(Escaping.html(item.label))</text>"#
            body += #"<rect x="\#(fmt(labelWidth))" y="\#(fmt(y + 5))" width="\#(fmt(max(length, 1)))" height="18" fill="\#(accent)" rx="3"/>"#
            body += #"<text x="\#(fmt(labelWidth + max(length, 1) + 6))" y="\#(fmt(y + 18))" font-size="13" fill="currentColor">\#(item.value)</text>"#
        }
        return #"<svg viewBox="0 0 \#(fmt(width)) \#(fmt(max(row, Double(rows.count) * row)))" role="img" aria-label="\#(Escaping.html(label))" xmlns="http://www.w3.org/2000/svg">"#
            + body + "</svg>"
    }

    private static func fmt(_ value: Double) -> String {
        String(format: "%.1f", value)
    }
}
