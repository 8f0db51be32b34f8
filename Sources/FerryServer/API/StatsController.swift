import FerryKit
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird

/// `GET /api/v1/stats`: a link's, a campaign's, a domain's or an app's numbers over a period,
/// from the counters (never raw visits); `format=csv&table=…` gives one table as CSV.
struct StatsController<Store: LinkStore>: Sendable {
    let store: Store

    func report(_ request: Request) async throws -> Response {
        let query = request.uri.queryParameters
        func text(_ name: String) -> String? { query.get(name).flatMap { $0.isEmpty ? nil : $0 } }
        let period: StatsPeriod
        do {
            period = try StatsPeriod.parse(from: text("from"), to: text("to"), bucket: text("bucket"), now: Date())
        } catch {
            throw APIError.invalid(error)
        }
        let scope = try await scope(app: text("app"), domain: text("domain"), code: text("code"), campaign: text("campaign"))
        let report = try await call { try await store.stats(scope, period) }
        switch text("format") ?? "json" {
        case "json":
            return try APICoding.response(report)
        case "csv":
            let name = text("table") ?? StatsReport.Table.series.rawValue
            guard let table = StatsReport.Table(rawValue: name) else {
                throw APIError(.badRequest, "invalid", "'table' is one of \(StatsReport.Table.allCases.map(\.rawValue).joined(separator: ", "))",
                               field: "table")
            }
            var answer = Responses.text(.ok, report.csv(table))
            answer.headers[.contentType] = "text/csv; charset=utf-8"
            answer.headers[.contentDisposition] = "attachment; filename=\"ferry-\(table.rawValue).csv\""
            return answer.response
        default:
            throw APIError(.badRequest, "invalid", "'format' is 'json' or 'csv'", field: "format")
        }
    }

    /// Which counters: `domain` + `code` (a link), `campaign` (with `app` or `domain`),
    /// `domain`, or `app`.
    private func scope(app appID: String?, domain host: String?, code: String?, campaign: String?) async throws -> StatsScope {
        if code != nil, host == nil { throw APIError(.badRequest, "invalid", "a link is named by 'domain' and 'code'", field: "domain") }
        if code != nil, campaign != nil { throw APIError(.badRequest, "invalid", "ask for a link or a campaign, not both", field: "campaign") }
        if let host {
            guard let domain = try await call({ try await store.domain(host: host) }), domain.host == host.lowercased() else {
                throw APIError.notFound("no domain '\(host)'")
            }
            if let appID, appID != domain.appID {
                throw APIError(.badRequest, "invalid", "the domain \(domain.host) belongs to the app '\(domain.appID)'", field: "app")
            }
            if let code {
                guard try await call({ try await store.link(domain: domain.host, code: code) }) != nil else {
                    throw APIError.notFound("no link '\(code)' on \(domain.host)")
                }
                return .link(domain: domain.host, code: code, appID: domain.appID)
            }
            if let campaign { return .campaign(campaign, appID: domain.appID, domains: [domain.host]) }
            return .domain(domain.host, appID: domain.appID)
        }
        guard let appID else { throw APIError(.badRequest, "missing", "name an 'app', a 'domain', or a link by 'domain' and 'code'", field: "app") }
        guard try await call({ try await store.app(id: appID) }) != nil else { throw APIError.notFound("no app '\(appID)'") }
        let domains = try await call { try await store.domains(appID: appID) }.map(\.host)
        if let campaign { return .campaign(campaign, appID: appID, domains: domains) }
        return .app(appID, domains: domains)
    }
}
