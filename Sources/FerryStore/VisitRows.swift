import Foundation
import FerryKit

/// A visit as the `visits` table holds it, one property per column (the names are the
/// columns'), so that SQLite's binds, PostgreSQL's `jsonb_to_recordset` and `ferry store copy`
/// agree on one shape.
struct VisitRow: Codable, Sendable, Hashable {
    static let columns = ["at", "domain", "code", "path", "platform", "os_version", "device", "browser", "in_app", "bot", "decision",
                          "referrer_host", "ref", "campaign", "channel", "utm_source", "utm_medium", "utm_campaign", "utm_term",
                          "utm_content", "campaign_tag", "country", "ip_hash"]

    var at: Double
    var domain: String
    var code: String?
    var path: String
    var platform: String
    var os_version: String?
    var device: String
    var browser: String
    var in_app: String?
    var bot: String
    var decision: String
    var referrer_host: String?
    var ref: String?
    /// The effective campaign (`campaign` tag, else `utm_campaign`), which lists filter by.
    var campaign: String?
    var channel: String?
    var utm_source: String?
    var utm_medium: String?
    var utm_campaign: String?
    var utm_term: String?
    var utm_content: String?
    /// The `campaign` tag itself (`nil` in rows written before it was kept).
    var campaign_tag: String?
    var country: String?
    var ip_hash: String
}

extension VisitRow {
    init(_ visit: Visit) {
        at = visit.at.timeIntervalSince1970
        domain = visit.domain
        code = visit.code
        path = visit.path
        platform = visit.platform.rawValue
        os_version = visit.osVersion?.description
        device = visit.deviceClass.rawValue
        browser = visit.browser.rawValue
        in_app = visit.inAppHost?.rawValue
        bot = visit.bot.rawValue
        decision = visit.decision.rawValue
        referrer_host = visit.referrerHost
        ref = visit.tags.ref
        campaign = visit.tags.effectiveCampaign
        channel = visit.tags.channel
        utm_source = visit.tags.utmSource
        utm_medium = visit.tags.utmMedium
        utm_campaign = visit.tags.utmCampaign
        utm_term = visit.tags.utmTerm
        utm_content = visit.tags.utmContent
        campaign_tag = visit.tags.campaign
        country = visit.country
        ip_hash = visit.ipHash
    }

    /// The visit back. In rows from before `campaign_tag`, a `campaign` equal to `utm_campaign`
    /// was not a tag of its own (the column holds the effective campaign).
    var visit: Visit {
        let visitor = Visitor(platform: Platform(rawValue: platform) ?? .other, osVersion: os_version.flatMap { Version($0) },
                              deviceClass: DeviceClass(rawValue: device) ?? .other, browser: BrowserFamily(rawValue: browser) ?? .other,
                              inAppHost: in_app.flatMap(InAppHost.init(rawValue:)), bot: BotKind(rawValue: bot) ?? .other)
        let tags = LinkTags(ref: ref, campaign: campaign_tag ?? (campaign == utm_campaign ? nil : campaign), channel: channel, utmSource: utm_source,
                            utmMedium: utm_medium, utmCampaign: utm_campaign, utmTerm: utm_term, utmContent: utm_content)
        return Visit(at: Date(timeIntervalSince1970: at), domain: domain, code: code, path: path, visitor: visitor,
                     decision: DecisionKind(rawValue: decision) ?? .notFound, referrerHost: referrer_host, country: country, tags: tags,
                     ipHash: ip_hash)
    }
}

/// Splits work into statements of at most `size` rows.
func chunks<Element>(_ elements: [Element], of size: Int) -> [ArraySlice<Element>] {
    stride(from: 0, to: elements.count, by: size).map { elements[$0..<min(elements.count, $0 + size)] }
}
