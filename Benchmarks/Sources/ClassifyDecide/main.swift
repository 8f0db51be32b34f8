import Foundation
import FerryKit

// Classify + decide, the pure part of every click, over a realistic mix of user agents:
// every user agent of uap-core's test files (browsers, in-app browsers, bots, libraries) plus
// the phones the decision table names. Reports the per-request time (median and tail over
// batches) and the ratio to a baseline that only lowercases the user agent — one pass over
// its bytes, the least any classifier must do.

let arguments = CommandLine.arguments
let testdata = URL(fileURLWithPath: arguments.count > 1 ? arguments[1] : "../../shared/testdata")
let seconds = arguments.count > 2 ? Double(arguments[2]) ?? 5 : 5

func userAgents() -> [String] {
    var agents: [String] = []
    for file in ["uap-core/test_ua.yaml", "uap-core/test_os.yaml"] {
        guard let text = try? String(contentsOf: testdata.appendingPathComponent(file), encoding: .utf8) else { continue }
        for line in text.split(separator: "\n") where line.contains("user_agent_string:") {
            var value = line.split(separator: ":", maxSplits: 1)[1].trimmingCharacters(in: .whitespaces)
            if value.hasPrefix("'") || value.hasPrefix("\"") { value = String(value.dropFirst().dropLast()) }
            agents.append(value)
        }
    }
    guard !agents.isEmpty else {
        FileHandle.standardError.write(Data("no user agents found under \(testdata.path)\n".utf8))
        exit(2)
    }
    // Weight toward what a link server sees: phones, in-app browsers and preview bots.
    let common = [
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
        "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 325.0.0.35.91 (iPhone15,2; iOS 17_4; en_US; en; scale=3.00; 1179x2556; 579999)",
        "Mozilla/5.0 (Linux; Android 14; SM-S918B Build/UP1A.231005.007; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/124.0.6367.82 Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/460.0.0.48.109;]",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
        "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
    ]
    return agents + Array(repeating: common, count: agents.count / 12).flatMap { $0 }
}

let agents = userAgents()
let headers = agents.map { RequestHeaders(userAgent: $0, acceptLanguage: "en-US,en;q=0.9") }
let app = App(
    id: "acme", name: "Acme",
    ios: IOSApp(teamID: "ABCDE12345", bundleID: "com.acme.app", appStoreID: "123456789"),
    android: AndroidApp(packageName: "com.acme.app", sha256CertFingerprints: [String(repeating: "AB:", count: 31) + "AB"]),
    web: WebSettings(fallbackURL: URL(string: "https://acme.example")!),
    routes: [Route(pattern: "/u/{id}", webURL: "https://acme.example/users/{id}")])
let domain = Domain(host: "go.acme.example", appID: "acme", alternateHost: "open.acme.example")
let link = Link(code: "x7Kp2", domain: "go.acme.example", path: "/u/42",
                preview: PreviewMetadata(title: "Ada's profile"), tags: LinkTags(campaign: "spring"))
let request = LinkRequest(domain: domain, path: "/x7Kp2", now: Date(), deferredToken: "tok123")
let classifier = VisitorClassifier.shared

// The server compiles a link once, when it enters the cache; a click classifies and decides.
let compiled = CompiledLink(link, app: app)

@inline(never) func classifyAndDecide(_ headers: RequestHeaders) -> Int {
    let visitor = classifier.classify(headers)
    return decide(compiled, visitor: visitor, request: request).kind.rawValue.utf8.count
}

@inline(never) func classifyCompileAndDecide(_ headers: RequestHeaders) -> Int {
    let visitor = classifier.classify(headers)
    return decide(link: link, app: app, visitor: visitor, request: request).kind.rawValue.utf8.count
}

@inline(never) func classifyOnly(_ headers: RequestHeaders) -> Int {
    classifier.classify(headers).platform.rawValue.utf8.count
}

let visitors = Dictionary(headers.map { ($0.userAgent, classifier.classify($0)) }, uniquingKeysWith: { first, _ in first })
@inline(never) func decideOnly(_ headers: RequestHeaders) -> Int {
    decide(compiled, visitor: visitors[headers.userAgent]!, request: request).kind.rawValue.utf8.count
}

@inline(never) func baseline(_ headers: RequestHeaders) -> Int {
    headers.userAgent.lowercased().utf8.count
}

/// Per-request nanoseconds of `body`, one sample per batch of `headers.count` requests.
func measure(_ body: (RequestHeaders) -> Int, for duration: Double) -> [Double] {
    var samples: [Double] = []
    var sink = 0
    let clock = ContinuousClock()
    let end = clock.now.advanced(by: .milliseconds(Int(duration * 1000)))
    for item in headers.prefix(200) { sink &+= body(item) }  // warm up
    while clock.now < end {
        let start = clock.now
        for item in headers { sink &+= body(item) }
        let elapsed = clock.now - start
        let nanoseconds = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
        samples.append(nanoseconds / Double(headers.count))
    }
    if sink == 42 { print("") }  // keep the work observable
    return samples.sorted()
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))]
}

let base = measure(baseline, for: seconds / 3)
let ferry = measure(classifyAndDecide, for: seconds)
let medianBase = percentile(base, 0.5)
let median = percentile(ferry, 0.5)
print("user agents: \(headers.count) per batch (uap-core corpus + common phones and bots)")
print(String(format: "baseline (lowercase the user agent): median %.0f ns/request over %d batches", medianBase, base.count))
print(String(format: "classify + decide (compiled link):   median %.0f ns/request, p90 %.0f ns, max %.0f ns over %d batches",
             median, percentile(ferry, 0.9), ferry.last ?? 0, ferry.count))
if arguments.contains("--breakdown") {
    print(String(format: "  classify only: median %.0f ns/request", percentile(measure(classifyOnly, for: seconds / 3), 0.5)))
    print(String(format: "  decide only (plus a dictionary look-up): median %.0f ns/request", percentile(measure(decideOnly, for: seconds / 3), 0.5)))
    print(String(format: "  classify + compile the link + decide (a cache miss): median %.0f ns/request",
                 percentile(measure(classifyCompileAndDecide, for: seconds / 3), 0.5)))
}
print(String(format: "ratio to baseline: %.2fx", median / medianBase))
print(String(format: "goal < 2000 ns median: %@", median < 2000 ? "met" : "NOT met"))
