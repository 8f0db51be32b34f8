import FerryKit
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import FerryServer

/// `/api/v1/stats`: clicks made over HTTP, then the numbers and CSV tables read back.
@Suite struct StatsAPITests {
    typealias F = ServerFixtures

    /// Five people and a bot click: an iPhone, Facebook's in-app browser, Android from t.co and
    /// a desktop on the campaign link, a desktop on a route path; Slack previews the link.
    func withClicks(_ body: @Sendable (FerryServices<MemoryStore>, String, any TestClientProtocol) async throws -> Void) async throws {
        let services = try await F.services()
        try await services.store.insert(Link(code: "formula", domain: "go.acme.example", path: "/u/5", tags: LinkTags(campaign: "=1+1")))
        let (_, key) = try await APIKeys.create(name: "test", in: services.store)
        let app = Application(router: buildRouter(services))
        try await app.test(.router) { client in
            let host = HTTPField.Name("Host")!
            for (path, agent, extra) in [("/spring", F.iPhone, HTTPFields()), ("/spring", F.facebookIOS, [:]),
                                         ("/spring", F.android, [.referer: "https://t.co/abc"]), ("/spring", F.desktop, [:]),
                                         ("/spring", F.slackbot, [:]), ("/u/7", F.desktop, [:]), ("/formula", F.desktop, [:])] {
                var headers = F.headers(agent, extra)
                headers[host] = "go.acme.example"
                _ = try await client.execute(uri: path, method: .get, headers: headers)
            }
            await services.recorder.flush()
            try await body(services, key, client)
        }
    }

    func get(_ client: any TestClientProtocol, _ path: String, key: String) async throws -> TestResponse {
        try await client.execute(uri: path, method: .get, headers: [.authorization: "Bearer \(key)"])
    }

    func report(_ response: TestResponse) throws -> StatsReport {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(StatsReport.self, from: Data(buffer: response.body))
    }

    var today: String { StatsPeriod.dayText(Date()) }

    @Test func aLinkACampaignADomainAndTheApp() async throws {
        try await withClicks { _, key, client in
            let day = today
            let link = try await get(client, "/api/v1/stats?domain=go.acme.example&code=spring&from=\(day)&to=\(day)", key: key)
            #expect(link.status == .ok)
            let numbers = try report(link)
            #expect(numbers.totals.humanVisits == 4)
            #expect(numbers.totals.botVisits == 1)
            #expect(numbers.totals.uniqueVisitors == 1, "the router test has one address")
            #expect(numbers.totals.decisions.values.reduce(0, +) == 4)
            #expect(numbers.series.count == 1 && numbers.series[0].humanVisits == 4)
            #expect(numbers.platforms.map { "\($0.value)=\($0.humanVisits)/\($0.botVisits)" } == ["ios=2/0", "android=1/0", "windows=1/0", "other=0/1"])
            #expect(numbers.inAppHosts.map(\.value) == ["facebook"])
            #expect(numbers.referrerHosts.map(\.value) == ["t.co"])
            #expect(numbers.bots.map(\.value) == ["link-preview"])
            #expect(numbers.tags.map { "\($0.value)=\($0.humanVisits)" } == ["campaign=spring=4"])

            let campaign = try report(try await get(client, "/api/v1/stats?app=acme&campaign=spring&from=\(day)&to=\(day)", key: key))
            #expect(campaign.totals == numbers.totals)
            let app = try report(try await get(client, "/api/v1/stats?app=acme&bucket=hour", key: key))
            #expect(app.totals.humanVisits == 6)
            #expect(app.series.count == 49, "the last 48 hours by default (both end hours partly)")
            #expect(app.links.map { "\($0.value)=\($0.humanVisits)" }
                    == ["go.acme.example/spring=4", "go.acme.example (routes)=1", "go.acme.example/formula=1"])
            let domain = try report(try await get(client, "/api/v1/stats?domain=go.acme.example", key: key))
            #expect(domain.totals.humanVisits == 6 && domain.series.count == 31)
        }
    }

    @Test func tablesAsCSV() async throws {
        try await withClicks { _, key, client in
            let platforms = try await get(client, "/api/v1/stats?app=acme&format=csv&table=platforms", key: key)
            #expect(platforms.status == .ok)
            #expect(platforms.headers[.contentType] == "text/csv; charset=utf-8")
            #expect(platforms.headers[.contentDisposition] == "attachment; filename=\"ferry-platforms.csv\"")
            #expect(String(buffer: platforms.body)
                    == "value,human_visits,bot_visits,installs,opens\r\nwindows,3,0,,\r\nios,2,0,,\r\nandroid,1,0,,\r\nother,0,1,,\r\n")
            let campaigns = String(buffer: try await get(client, "/api/v1/stats?app=acme&format=csv&table=campaigns", key: key).body)
            #expect(campaigns.contains("\r\nspring,4,1,,\r\n"))
            #expect(campaigns.contains("\r\n'=1+1,1,0,,\r\n"), "a spreadsheet must not run a campaign name as a formula")
            let series = String(buffer: try await get(client, "/api/v1/stats?app=acme&format=csv", key: key).body)
            #expect(series.hasPrefix("start,human_visits,bot_visits,unique_visitors,installs,opens\r\n"))
            #expect(series.split(separator: "\r\n").count == 32)
        }
    }

    @Test func badQuestionsGetClearErrors() async throws {
        try await withClicks { _, key, client in
            let refusal = Refusals(test: self, client: client, key: key)
            let expected: [(query: String, answer: String)] = [
                ("", "400 app"),
                ("code=spring", "400 domain"),
                ("app=acme&bucket=week", "400 bucket"),
                ("app=acme&from=yesterday", "400 from"),
                ("app=acme&from=2027-01-10&to=2027-01-01", "400 to"),
                ("app=acme&bucket=hour&from=2020-01-01&to=2027-01-01", "400 to"),
                ("app=acme&format=xml", "400 format"),
                ("app=acme&format=csv&table=everything", "400 table"),
                ("app=other&domain=go.acme.example", "400 app"),
                ("domain=go.acme.example&code=spring&campaign=spring", "400 campaign"),
                ("app=nope", "404 -"),
                ("domain=go.acme.example&code=nope", "404 -"),
                ("domain=open.acme.example", "404 -"),
            ]
            for (query, answer) in expected {
                let got = try await refusal.of(query)
                #expect(got == answer, "\(query)")
            }
            #expect(try await client.execute(uri: "/api/v1/stats?app=acme", method: .get).status == .unauthorized)
        }
    }

    /// "400 field" for a refused question.
    struct Refusals {
        let test: StatsAPITests
        let client: any TestClientProtocol
        let key: String

        func of(_ query: String) async throws -> String {
            let response = try await test.get(client, "/api/v1/stats?\(query)", key: key)
            let object = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: [String: String]]
            return "\(response.status.code) \(object?["error"]?["field"] ?? "-")"
        }
    }
}
