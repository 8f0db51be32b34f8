// The statistics benchmark: one link with millions of visits (10 million by default) spread
// over 90 days in a SQLite database, written through the store as `ferry serve` writes them
// (raw visits and counters in one transaction per batch of 10,000). Then the link's report
// is asked for repeatedly — 90 days by day, the last 7 days by hour — and the median and 90th
// percentile times are printed, beside the time SQLite takes for one GROUP BY over the raw
// visits of the same link (what every number would cost without counters).
//
// Usage: swift run -c release StatsQuery [visits] [database path]
import FerryKit
import FerryStore
import Foundation

let arguments = CommandLine.arguments
let total = arguments.count > 1 ? Int(arguments[1]) ?? 10_000_000 : 10_000_000
let path = arguments.count > 2 ? arguments[2]
    : FileManager.default.temporaryDirectory.appendingPathComponent("ferry-stats-\(UUID().uuidString)/ferry.sqlite").path

/// A fixed pseudo-random sequence (the same database every run).
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Index `i` with probability ∝ 1/(i+1): a few values take most visits, a long tail the rest.
func zipf(_ count: Int, _ random: inout SplitMix) -> Int {
    let u = Double.random(in: 0..<1, using: &random)
    return min(count - 1, Int(pow(Double(count + 1), u)) - 1)
}

let agents = [
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/21E236 [FBAN/FBIOS;FBAV/458.0.0.37.95;FBDV/iPhone15,2;FBMD/iPhone;FBSN/iOS;FBSV/17.4]",
    "Mozilla/5.0 (Linux; Android 14; SM-S918B Build/UP1A.231005.007; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/124.0.6367.82 Mobile Safari/537.36 Instagram 330.0.0.40.92 Android",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15",
    "Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
    "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
    "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
].map { VisitorClassifier.shared.classify(userAgent: $0) }
let agentWeights = [34, 26, 10, 8, 9, 4, 3, 4, 2]  // per cent
let decisions: [DecisionKind] = [.appStore, .playStore, .previewPage, .web, .openInBrowser, .crawlerPreview]
let namedReferrers: [String] = ["t.co", "l.facebook.com", "www.google.com", "news.ycombinator.com", "www.reddit.com", "lm.facebook.com", "mail.google.com"]
let referrers: [String] = namedReferrers + (0..<200).map { (index: Int) -> String in "site\(index).example" }
let namedCountries: [String] = ["US", "GB", "DE", "FR", "IN", "BR", "JP", "CA", "ES", "IT", "NL", "SE", "PL", "MX", "AU"]
let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
let countries: [String] = namedCountries + (0..<45).map { (index: Int) -> String in String([letters[index / 26], letters[index % 26]]) }

let clock = ContinuousClock()
let store = try await SQLiteStore.open(path: path)
let app = App(id: "bench", name: "Bench", ios: IOSApp(teamID: "ABCDE12345", bundleID: "com.bench.app", appStoreID: "1"),
              web: WebSettings(fallbackURL: URL(string: "https://bench.example")!), routes: [Route(pattern: "/u/{id}")])
try await store.save(app)
try await store.save(Domain(host: "go.bench.example", appID: "bench"))
let tags = LinkTags(campaign: "launch", channel: "social", utmSource: "newsletter", utmMedium: "email")
try await store.insert([Link(code: "big", domain: "go.bench.example", path: "/u/1", tags: tags),
                        Link(code: "small", domain: "go.bench.example", path: "/u/2", tags: tags)])

// 90 days up to the start of today, in time order, 10,000 visits a batch.
let end = Date(timeIntervalSince1970: Double(RollupTime.day(of: Date())))
let start = end - 90 * 86_400
var random = SplitMix(state: 42)
let seeding = clock.now
var written = 0
while written < total {
    let count = min(10_000, total - written)
    var batch: [Visit] = []
    batch.reserveCapacity(count)
    for index in 0..<count {
        let at = start + 90 * 86_400 * Double(written + index) / Double(total)
        var pick = Int.random(in: 0..<100, using: &random)
        var agent = 0
        while pick >= agentWeights[agent] { pick -= agentWeights[agent]; agent += 1 }
        let visitor = agents[agent]
        let decision: DecisionKind = visitor.isBot ? .crawlerPreview : decisions[zipf(decisions.count - 1, &random)]
        let referrer = Int.random(in: 0..<10, using: &random) < 3 ? nil : referrers[zipf(referrers.count, &random)]
        batch.append(Visit(at: at, domain: "go.bench.example", code: index % 100 == 0 ? "small" : "big", path: "/big", visitor: visitor,
                           decision: decision, referrerHost: referrer, country: countries[zipf(countries.count, &random)], tags: tags,
                           ipHash: String(Int.random(in: 0..<3_000_000, using: &random), radix: 36)))
    }
    try await store.record(batch)
    written += count
    if written % 1_000_000 == 0 { print("seeded \(written) visits (\(clock.now - seeding))") }
}
print("seeded \(written) visits in \(clock.now - seeding)")

func measure(_ label: String, runs: Int = 30, _ body: () async throws -> StatsReport) async throws {
    var times: [Duration] = []
    var report: StatsReport?
    for _ in 0..<runs {
        let began = clock.now
        report = try await body()
        times.append(clock.now - began)
    }
    times.sort()
    let ms = { (duration: Duration) in String(format: "%.1f ms", Double(duration.components.attoseconds) / 1e15 + Double(duration.components.seconds) * 1000) }
    print("\(label): median \(ms(times[runs / 2])), p90 \(ms(times[runs * 9 / 10])) — \(report!.totals.humanVisits + report!.totals.botVisits) visits, "
          + "\(report!.series.count) buckets, \(report!.referrerHosts.count) referrers, \(report!.countries.count) countries")
}

let link = StatsScope.link(domain: "go.bench.example", code: "big", appID: "bench")
try await measure("link, 90 days by day") { try await store.stats(link, try StatsPeriod(from: start, to: end, bucket: .day)) }
try await measure("link, 7 days by hour") { try await store.stats(link, try StatsPeriod(from: end - 7 * 86_400, to: end, bucket: .hour)) }
try await measure("campaign, 7 days by day", runs: 5) {
    try await store.stats(.campaign("launch", appID: "bench", domains: ["go.bench.example"]), try StatsPeriod(from: end - 7 * 86_400, to: end, bucket: .day))
}
await store.close()
print("database: \(path)")
