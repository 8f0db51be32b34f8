import Foundation
import Testing
import FerryKit
@testable import FerryStore
import PostgresNIO

/// Statistics come from counters every store keeps as it writes visits and events; these
/// numbers are worked out by hand from the visits below.
extension StoreContractTests {
    /// 2027-01-15 00:00 UTC, the start of a day.
    static let day1: Double = 1_799_971_200
    static let day2 = day1 + 86_400

    static let iPhone = VisitorClassifier.shared.classify(userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1")
    static let facebookIPhone = VisitorClassifier.shared.classify(userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/450.0.0.38.108;FBBV/564431005;FBDV/iPhone15,2;FBMD/iPhone;FBSN/iOS;FBSV/17.4;FBSS/3;FBCR/;FBID/phone;FBLC/en_US;FBOP/80]")
    static let pixel = VisitorClassifier.shared.classify(userAgent: "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36")
    static let slack = VisitorClassifier.shared.classify(userAgent: "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)")

    static func visit(_ offset: Double, _ visitor: Visitor, code: String? = "abc", campaign: String? = "spring", decision: DecisionKind,
                      referrer: String? = nil, country: String? = nil, ip: String) -> Visit {
        Visit(at: Date(timeIntervalSince1970: offset), domain: "go.acme.example", code: code, path: code.map { "/" + $0 } ?? "/u/9",
              visitor: visitor, decision: decision, referrerHost: referrer, country: country,
              tags: LinkTags(campaign: campaign, utmSource: campaign == nil ? nil : "news letter&more"), ipHash: ip)
    }

    /// Two batches (the second adds to counter rows the first made).
    static let firstBatch = [
        visit(day1 + 3600, iPhone, decision: .appStore, referrer: "t.co", ip: "A"),
        visit(day1 + 3700, iPhone, decision: .appStore, referrer: "t.co", ip: "A"),
        visit(day1 + 3800, facebookIPhone, decision: .openInBrowser, ip: "A"),
        visit(day1 + 7200, pixel, decision: .playStore, country: "DE", ip: "B"),
        visit(day1 + 3601, slack, decision: .crawlerPreview, ip: "C"),
        visit(day1 + 3602, slack, decision: .crawlerPreview, ip: "C"),
    ]
    static let secondBatch = [
        visit(day1 + 3900, iPhone, decision: .appStore, referrer: "t.co", ip: "A"),
        visit(day2 + 60, iPhone, decision: .appStore, ip: "A"),
        visit(day1 + 4000, iPhone, code: nil, campaign: nil, decision: .web, ip: "D"),
        visit(day1 + 4100, iPhone, code: "xyz", campaign: "summer", decision: .appStore, ip: "A"),
    ]

    static func twoDays(_ bucket: StatsBucket = .day) throws -> StatsPeriod {
        try StatsPeriod(from: Date(timeIntervalSince1970: day1), to: Date(timeIntervalSince1970: day2 + 86_400), bucket: bucket)
    }

    static let link = StatsScope.link(domain: "go.acme.example", code: "abc", appID: "acme")

    static func recordEvents(_ store: any LinkStore) async throws {
        let abc = ResolvedLink(link: Link(code: "abc", domain: "go.acme.example", path: "/u/1", tags: LinkTags(campaign: "spring")),
                               app: app, platform: .iOS, appVersion: nil)
        try await store.record(events: [
            AppEvent(at: Date(timeIntervalSince1970: day1 + 5000), appID: "acme", kind: .install, platform: .iOS, appVersion: nil,
                     matchType: .deterministic, confidence: 1, link: abc, ipHash: "A"),
            AppEvent(at: Date(timeIntervalSince1970: day1 + 9000), appID: "acme", kind: .install, platform: .android, appVersion: nil,
                     matchType: .probabilistic, confidence: 0.8, link: abc, ipHash: "B"),
            AppEvent(at: Date(timeIntervalSince1970: day1 + 9100), appID: "acme", kind: .install, platform: .android, appVersion: nil,
                     matchType: MatchType.none, link: nil, ipHash: "E"),
            AppEvent(at: Date(timeIntervalSince1970: day2 + 100), appID: "acme", kind: .open, platform: .iOS, appVersion: nil,
                     link: abc, ipHash: "A"),
        ])
    }

    @Test(arguments: Kind.available)
    func countersAddUpPerLinkDayPlatformAndCampaign(_ kind: Kind) async throws {
        try await using(kind) { store in
            try await store.record(Self.firstBatch)
            try await store.record(Self.secondBatch)
            try await Self.recordEvents(store)
            let report = try await store.stats(Self.link, try Self.twoDays())

            #expect(report.totals.humanVisits == 6)
            #expect(report.totals.botVisits == 2)
            #expect(report.totals.uniqueVisitors == 3, "A and B on the first day, A on the second; bots are no visitors")
            #expect(report.totals.decisions == ["app-store": 4, "open-in-browser": 1, "play-store": 1])
            #expect(report.totals.installs == ["deterministic": 1, "probabilistic": 1])
            #expect(report.totals.opens == 1)
            #expect(report.totals.conversion == 2.0 / 6.0)
            #expect(report.series.map(\.humanVisits) == [5, 1])
            #expect(report.series.map(\.botVisits) == [2, 0])
            #expect(report.series.map(\.uniqueVisitors) == [2, 1])
            #expect(report.series.map(\.installs) == [2, 0])
            #expect(report.series.map(\.opens) == [0, 1])
            #expect(report.platforms.map { [$0.value, "\($0.humanVisits)", "\($0.botVisits)", "\($0.installs ?? -1)", "\($0.opens ?? -1)"] }
                    == [["ios", "5", "0", "1", "1"], ["android", "1", "0", "1", "0"], ["other", "0", "2", "-1", "-1"]])
            #expect(report.inAppHosts.map(\.value) == ["facebook"])
            #expect(report.referrerHosts.map { "\($0.value)=\($0.humanVisits)" } == ["t.co=3"])
            #expect(report.countries.map { "\($0.value)=\($0.humanVisits)" } == ["DE=1"])
            #expect(report.campaigns.map { "\($0.value)=\($0.humanVisits)/\($0.botVisits)" } == ["spring=6/2"])
            #expect(report.tags.map { "\($0.value)=\($0.humanVisits)" } == ["campaign=spring=6", "utm_source=news letter&more=6"])
            #expect(report.devices.map { "\($0.value)=\($0.humanVisits)/\($0.botVisits)" } == ["phone=6/0", "other=0/2"])
            #expect(report.bots.map { "\($0.value)=\($0.botVisits)" } == ["link-preview=2"])

            let campaign = try await store.stats(.campaign("spring", appID: "acme", domains: ["go.acme.example"]), try Self.twoDays())
            #expect(campaign.totals == report.totals, "one link in the campaign")
            let app = try await store.stats(.app("acme", domains: ["go.acme.example"]), try Self.twoDays())
            #expect(app.totals.humanVisits == 8)
            #expect(app.totals.uniqueVisitors == 4, "A, B and D on the first day, A on the second")
            #expect(app.totals.installs == ["deterministic": 1, "probabilistic": 1, "none": 1])
            #expect(app.links.map { "\($0.value)=\($0.humanVisits)" }
                    == ["go.acme.example/abc=6", "go.acme.example (routes)=1", "go.acme.example/xyz=1"])
            let routes = try await store.stats(.link(domain: "go.acme.example", code: "", appID: "acme"), try Self.twoDays())
            #expect(routes.totals.humanVisits == 1 && routes.totals.uniqueVisitors == 1)

            let hours = try await store.stats(Self.link, try StatsPeriod(from: Date(timeIntervalSince1970: Self.day1),
                                                                        to: Date(timeIntervalSince1970: Self.day1 + 3 * 3600), bucket: .hour))
            #expect(hours.series.map(\.humanVisits) == [0, 4, 1])
            #expect(hours.series.map(\.botVisits) == [0, 2, 0])
            #expect(hours.series.allSatisfy { $0.uniqueVisitors == nil }, "visitors are counted per day")
            #expect(hours.totals.decisions == ["app-store": 3, "open-in-browser": 1, "play-store": 1], "decisions are exact to the hour")
            #expect(hours.platforms.map { "\($0.value)=\($0.humanVisits)" } == ["ios=4", "android=1", "other=0"],
                    "breakdowns cover the whole day the hours are in")
            let other = try await store.stats(.link(domain: "go.acme.example", code: "abc", appID: "other-app"), try Self.twoDays())
            #expect(other.totals.installs.isEmpty, "another app's events")
        }
    }

    @Test(arguments: Kind.available)
    func pruningRawVisitsLeavesTheNumbers(_ kind: Kind) async throws {
        try await using(kind) { store in
            try await store.record(Self.firstBatch + Self.secondBatch)
            let before = try await store.stats(Self.link, try Self.twoDays())
            #expect(try await store.pruneVisits(before: Date(timeIntervalSince1970: Self.day2)) == 9)
            #expect(try await store.visitCount() == 1)
            #expect(try await store.stats(Self.link, try Self.twoDays()) == before)
            // A visitor seen before the pruning is still not new that day.
            try await store.record([Self.visit(Self.day1 + 7300, Self.pixel, decision: .playStore, ip: "B")])
            #expect(try await store.stats(Self.link, try Self.twoDays()).totals.uniqueVisitors == 3)
        }
    }

    @Test func sqliteCountsVisitsStoredBeforeTheCounters() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-backfill-\(UUID().uuidString)/ferry.sqlite").path
        let old = try await SQLiteStore.open(path: path, lastMigration: 3)
        try await old.save(Self.app)
        _ = try await old.connection.query("""
            INSERT INTO visits (at, domain, code, path, platform, device, browser, bot, decision, campaign, ip_hash) VALUES
            (?, 'go.acme.example', 'abc', '/abc', 'ios', 'phone', 'safari', 'none', 'app-store', 'spring', 'A'),
            (?, 'go.acme.example', 'abc', '/abc', 'ios', 'phone', 'safari', 'none', 'app-store', 'spring', 'B')
            """, [.float(Self.day1 + 10), .float(Self.day2 + 10)])
        await old.close()
        let store = try await SQLiteStore.open(path: path)
        let report = try await store.stats(Self.link, try Self.twoDays())
        #expect(report.totals.humanVisits == 2)
        #expect(report.totals.uniqueVisitors == 2)
        #expect(report.campaigns.map(\.value) == ["spring"])
        let app = try await store.stats(.app("acme", domains: ["go.acme.example"]), try Self.twoDays())
        #expect(app.totals.uniqueVisitors == 2, "the domain's visitors counted too")
        await store.close()
    }

    /// SQLite counts visits every few seconds, and before anything reads counters: whichever
    /// connection (or process) counts, each visit is counted exactly once.
    @Test func sqliteCountsEachVisitOnceWhicheverConnectionCounts() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-counting-\(UUID().uuidString)/ferry.sqlite").path
        let server = try await SQLiteStore.open(path: path, countEvery: .seconds(3600))
        try await server.save(Self.app)
        try await server.save(Domain(host: "go.acme.example", appID: "acme"))
        try await server.record(Self.firstBatch)
        let memory = MemoryStore()
        try await memory.save(Self.app)
        try await memory.save(Domain(host: "go.acme.example", appID: "acme"))
        try await memory.record(Self.firstBatch)

        // Another process (the CLI, a second look) reads while the server has not counted yet.
        let reader = try await SQLiteStore.open(path: path)
        let app = StatsScope.app("acme", domains: ["go.acme.example"])
        let early = try await reader.stats(app, try Self.twoDays())
        #expect(early.totals.humanVisits == 4 && early.totals.botVisits == 2)
        #expect(early == (try await memory.stats(app, try Self.twoDays())))

        // The server writes more and counts what is left as it closes: nothing twice.
        try await server.record(Self.secondBatch)
        try await memory.record(Self.secondBatch)
        await server.close()
        let late = try await reader.stats(app, try Self.twoDays())
        #expect(late.totals.humanVisits == 8 && late.totals.botVisits == 2)
        #expect(late == (try await memory.stats(app, try Self.twoDays())))
        await reader.close()
    }

    /// A server counts the visits it wrote from what it remembers of them; visits another
    /// process wrote in between are counted from the table, and nothing twice.
    @Test func sqliteCountsVisitsAnotherProcessWroteBetweenItsOwn() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-counting-\(UUID().uuidString)/ferry.sqlite").path
        let server = try await SQLiteStore.open(path: path, countEvery: .seconds(3600))
        let other = try await SQLiteStore.open(path: path, countEvery: .seconds(3600))
        let memory = MemoryStore()
        for store in [server, memory] as [any LinkStore] {
            try await store.save(Self.app)
            try await store.save(Domain(host: "go.acme.example", appID: "acme"))
        }
        let elsewhere = [Self.visit(Self.day1 + 5000, Self.pixel, code: "xyz", decision: .playStore, country: "FR", ip: "E")]
        try await server.record(Self.firstBatch)
        try await other.record(elsewhere)
        try await server.record(Self.secondBatch)
        for batch in [Self.firstBatch, elsewhere, Self.secondBatch] { try await memory.record(batch) }

        let app = StatsScope.app("acme", domains: ["go.acme.example"])
        let counted = try await server.stats(app, try Self.twoDays())
        #expect(counted.totals.humanVisits == 9 && counted.totals.botVisits == 2)
        #expect(counted == (try await memory.stats(app, try Self.twoDays())))
        await other.close()
        await server.close()
    }

    /// Pruning may take every raw visit; visits written afterwards are still counted (SQLite
    /// would number them from 1 again, below the mark of what was counted).
    @Test func sqliteCountsVisitsWrittenAfterEverythingWasPruned() async throws {
        try await using(.sqliteFile) { store in
            try await store.record(Self.firstBatch)
            #expect(try await store.pruneVisits(before: Date(timeIntervalSince1970: Self.day2 + 86_400)) == 6)
            #expect(try await store.visitCount() == 0)
            try await store.record([Self.visit(Self.day1 + 5000, Self.pixel, decision: .playStore, ip: "E")])
            let report = try await store.stats(Self.link, try Self.twoDays())
            #expect(report.totals.humanVisits == 5, "four before the pruning, one after")
            #expect(report.totals.uniqueVisitors == 3)
        }
    }

    @Test(.enabled(if: postgresURL != nil)) func postgresCountsVisitsStoredBeforeTheCounters() async throws {
        let store = try #require(try await Self.seeded(.postgres) as? PostgresStore)
        try await store.record(Self.firstBatch + Self.secondBatch)
        try await Self.recordEvents(store)
        let counted = try await store.stats(.app("acme", domains: ["go.acme.example"]), try Self.twoDays())
        try await store.transaction { connection in
            for table in ["visit_hours", "visit_days", "visitor_days", "link_visitors", "set_visitor_days", "set_visitors", "event_counts"] {
                try await connection.query(PostgresQuery(unsafeSQL: "DELETE FROM \(table)"), logger: store.logger)
            }
        }
        #expect(try await store.stats(.app("acme", domains: ["go.acme.example"]), try Self.twoDays()).totals.humanVisits == 0)
        try await store.transaction { connection in try await PostgresStore.backfillCounters(on: connection, logger: store.logger) }
        #expect(try await store.stats(.app("acme", domains: ["go.acme.example"]), try Self.twoDays()) == counted)
        await store.close()
    }

    @Test func periodsAreChecked() throws {
        let start = Date(timeIntervalSince1970: Self.day1)
        #expect(throws: ValidationError.self) { try StatsPeriod(from: start, to: start, bucket: .day) }
        #expect(throws: ValidationError.self) { try StatsPeriod(from: start, to: start + 2001 * 3600, bucket: .hour) }
        #expect(try StatsPeriod(from: start, to: start + 2000 * 3600, bucket: .hour).bucketStarts.count == 2000)
    }
}
