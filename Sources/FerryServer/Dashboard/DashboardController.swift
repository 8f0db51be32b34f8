import FerryKit
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird
import Mustache

/// `/dashboard`: what marketers see. Server-rendered pages (swift-mustache templates in
/// `Resources/dashboard`), one stylesheet, no script. Sign-in with an admin API key gives a
/// signed session cookie (`HttpOnly`, `SameSite=Lax`, `Secure` behind HTTPS); every form carries
/// the session's CSRF token, and a POST from another origin is refused.
struct DashboardController<Store: LinkStore>: Sendable {
    let services: FerryServices<Store>
    let sessions: DashboardSessions
    let library: MustacheLibrary
    let clientAddress: ClientAddress
    /// Ten sign-in attempts a minute from one address: passwords cannot be tried in bulk.
    let signInLimiter = RateLimiter(perIP: .init(burst: 10, rate: 10.0 / 60), perKey: .init(burst: 1, rate: 1))

    var store: Store { services.store }

    init(services: FerryServices<Store>) {
        self.services = services
        sessions = DashboardSessions(secret: services.settings.secret)
        library = Self.templates
        clientAddress = ClientAddress(trustedProxies: services.settings.trustedProxies)
    }

    static var templates: MustacheLibrary {
        var library = MustacheLibrary()
        let files: [(String, [UInt8])] = [
            ("layout", PackageResources.layout_mustache), ("signin", PackageResources.signin_mustache),
            ("links", PackageResources.links_mustache), ("link", PackageResources.link_mustache),
            ("apps", PackageResources.apps_mustache), ("app", PackageResources.app_mustache),
            ("problem", PackageResources.problem_mustache), ("preview", PackageResources.preview_mustache),
            ("numbers", PackageResources.numbers_mustache), ("stats", PackageResources.stats_mustache),
        ]
        for (name, bytes) in files {
            // The templates are part of the binary; a broken one is a build mistake.
            try! library.register(String(decoding: bytes, as: UTF8.self), named: name)
        }
        return library
    }

    static var stylesheet: String { DashboardFiles.stylesheet }

    func addRoutes(to router: Router<FerryRequestContext>) {
        let dashboard = router.group("dashboard")
        dashboard.get { _, _ in Self.seeOther("/dashboard/links") }
        dashboard.get("app.css") { _, _ in
            var answer = Responses.text(.ok, Self.stylesheet)
            answer.headers[.contentType] = "text/css; charset=utf-8"
            answer.headers[.cacheControl] = "public, max-age=3600"
            return answer.response
        }
        dashboard.get("preview.js") { _, _ in
            var answer = Responses.text(.ok, DashboardFiles.previewScript)
            answer.headers[.contentType] = "text/javascript; charset=utf-8"
            answer.headers[.cacheControl] = "public, max-age=3600"
            return answer.response
        }
        dashboard.get("signin") { request, _ in
            if session(request) != nil { return Self.seeOther("/dashboard/links") }
            return signInPage(request, problem: nil, status: .ok)
        }
        dashboard.post("signin") { request, context in
            let form = try await Self.form(request)
            guard sameOrigin(request), let nonce = Self.cookies(request)[DashboardSessions.signInCookieName],
                  form["csrf"].map({ DashboardSessions.same($0, sessions.signInToken(nonce)) }) == true else { return refusedCrossSite() }
            let ip = clientAddress.clientIP(peer: context.remoteAddress?.ipAddress, headers: request.headers)
            if let wait = signInLimiter.admit(ip: ip) {
                return signInPage(request, problem: "Too many attempts from your address; try again in \(wait) seconds.", status: .tooManyRequests)
            }
            let subject: String
            switch await Self.whoSignsIn(form, store: store) {
            case .success(let who): subject = who
            case .failure(let refusal): return signInPage(request, problem: refusal.message, status: .unauthorized)
            }
            let (value, _) = sessions.issue(keyID: subject)
            var response = Self.seeOther("/dashboard/links")
            response.headers[.setCookie] = cookie(value, request: request, maxAge: Int(DashboardSessions.lifetime))
            return response
        }
        dashboard.post("signout") { request, _ in
            try await submitted(request) { _, _ in
                var response = Self.seeOther("/dashboard/signin")
                response.headers[.setCookie] = cookie("", request: request, maxAge: 0)
                return response
            }
        }
        dashboard.get("links") { request, _ in
            guard let session = await signedIn(request) else { return Self.seeOther("/dashboard/signin") }
            return try await linksPage(session, query: request.uri.queryParameters.get("q") ?? "", form: [:], problem: nil, status: .ok)
        }
        dashboard.post("links") { request, _ in
            try await submitted(request) { session, form in try await createLink(session, form: form) }
        }
        dashboard.get("links/:domain/:code") { request, context in
            guard let session = await signedIn(request) else { return Self.seeOther("/dashboard/signin") }
            return try await linkPage(session, domain: try context.parameters.require("domain"), code: try context.parameters.require("code"),
                                      notice: request.uri.queryParameters.get("created") != nil ? "Link created." : nil)
        }
        dashboard.post("links/:domain/:code") { request, context in
            try await submitted(request) { session, form in
                try await editLink(session, domain: try context.parameters.require("domain"), code: try context.parameters.require("code"), form: form)
            }
        }
        dashboard.get("links/:domain/:code/qr.svg") { request, context in
            try await qrCode(request, context, svg: true)
        }
        dashboard.get("links/:domain/:code/qr.png") { request, context in
            try await qrCode(request, context, svg: false)
        }
        dashboard.post("links/:domain/:code/disable") { request, context in
            try await submitted(request) { session, _ in
                let domain = try context.parameters.require("domain"), code = try context.parameters.require("code")
                guard var link = try await store.link(domain: domain, code: code) else { return notFound(session) }
                link.disabled = true
                try await store.update(link)
                await services.changed([.link(domain: domain, code: code)])
                return try await linkPage(session, domain: domain, code: code, notice: "Link disabled: it answers 410 Gone now.")
            }
        }
        dashboard.get("apps") { request, _ in
            guard let session = await signedIn(request) else { return Self.seeOther("/dashboard/signin") }
            return try await appsPage(session)
        }
        dashboard.post("apps") { request, _ in
            try await submitted(request) { session, form in
                switch await createApp(form) {
                case .success(let id): return Self.seeOther("/dashboard/apps/\(Self.pathSegment(id))?created=1")
                case .failure(let refusal): return try await appsPage(session, form: form, problem: refusal.message, status: .badRequest)
                }
            }
        }
        dashboard.get("stats") { request, _ in
            guard let session = await signedIn(request) else { return Self.seeOther("/dashboard/signin") }
            let query = request.uri.queryParameters
            let days = query.get("days").flatMap(Int.init).flatMap { [7, 30, 90].contains($0) ? $0 : nil } ?? 30
            let campaign = query.get("campaign").flatMap { $0.isEmpty ? nil : $0 }
            return try await statsPage(session, appID: query.get("app") ?? "", campaign: campaign, days: days)
        }
        dashboard.get("apps/:id") { request, context in
            guard let session = await signedIn(request) else { return Self.seeOther("/dashboard/signin") }
            guard let app = try await store.app(id: try context.parameters.require("id")) else { return notFound(session, "There is no such app.") }
            let created = request.uri.queryParameters.get("created") != nil
            return try await appPage(session, app: app, url: request.uri.queryParameters.get("url"), document: nil, problem: nil,
                                     notice: created ? "App created with its domain. Its association files are below; add routes by editing it." : nil,
                                     status: .ok)
        }
        dashboard.post("apps/:id") { request, context in
            try await submitted(request) { session, form in
                guard let current = try await store.app(id: try context.parameters.require("id")) else { return notFound(session, "There is no such app.") }
                let text = form["document"] ?? ""
                switch Self.edited(current, from: text) {
                case .failure(let refusal):
                    return try await appPage(session, app: current, url: nil, document: text, problem: refusal.message, notice: nil, status: .badRequest)
                case .success(let app):
                    try await store.save(app)
                    await services.changed([.app(id: app.id)])
                    return try await appPage(session, app: app, url: nil, document: nil, problem: nil,
                                             notice: "Saved. The association files below are what every domain of the app serves now.", status: .ok)
                }
            }
        }
    }

    // MARK: Pages

    private func linksPage(_ session: DashboardSessions.Session, query: String, form: [String: String], problem: String?,
                           status: HTTPResponse.Status) async throws -> Response {
        let links = try await store.links(LinkQuery(text: query.isEmpty ? nil : query, limit: 100))
        let domains = try await store.domains(appID: nil)
        let rows = links.map { link in
            LinkRow(domain: link.domain, code: link.code ?? "", path: link.path, title: link.preview.title ?? "",
                campaign: link.tags.effectiveCampaign ?? "", state: Self.state(of: link))
        }
        let chosen = form["domain"] ?? domains.first?.host
        var appName: String?
        if let owner = domains.first(where: { $0.host == chosen }) { appName = try await store.app(id: owner.appID)?.name }
        let preview: [String: Any] = ["site": (chosen ?? "").uppercased(), "title": form["title"].flatMap { $0.isEmpty ? nil : $0 } ?? appName ?? chosen ?? "",
                                      "description": form["description"] ?? "", "appName": appName ?? ""]
        return render("links", status: status, [
            "preview": preview,
            "signedIn": true, "csrf": session.csrf, "problem": problem as Any, "onLinks": true, "query": query,
            "links": rows, "hasLinks": !rows.isEmpty,
            "domains": domains.map { DomainOption(host: $0.host, selected: $0.host == chosen) }, "hasDomains": !domains.isEmpty,
            "form": form,
        ])
    }

    private func createLink(_ session: DashboardSessions.Session, form: [String: String]) async throws -> Response {
        func value(_ name: String) -> String? { Self.field(form, name) }
        let code = value("code") ?? LinkCodes.generate()
        var link = Link(code: code, domain: value("domain")?.lowercased() ?? "", path: value("path") ?? "",
                        preview: PreviewMetadata(title: value("title"), description: value("description")))
        link.tags.campaign = value("campaign")
        if let refusal = await Self.refusal(inserting: link, into: store) {
            return try await linksPage(session, query: "", form: form, problem: refusal.message, status: refusal.status)
        }
        await services.changed([.link(domain: link.domain, code: code)])
        return Self.seeOther("/dashboard/links/\(Self.pathSegment(link.domain))/\(Self.pathSegment(code))?created=1")
    }

    /// The link's QR code to download, as SVG or as a PNG of 10 pixels per module.
    private func qrCode(_ request: Request, _ context: FerryRequestContext, svg: Bool) async throws -> Response {
        guard let session = await signedIn(request) else { return Self.seeOther("/dashboard/signin") }
        let domain = try context.parameters.require("domain"), code = try context.parameters.require("code")
        guard try await store.link(domain: domain, code: code) != nil else { return notFound(session) }
        let qr = try QRCode("https://\(domain)/\(code)")
        let body = svg ? Data(qr.svg(label: "QR code for https://\(domain)/\(code)").utf8) : qr.png(scale: 10)
        return Response(status: .ok, headers: [
            .contentType: svg ? "image/svg+xml" : "image/png",
            .contentDisposition: "attachment; filename=\"\(Self.fileName(domain, code)).\(svg ? "svg" : "png")\"",
            .cacheControl: "private, max-age=300",
            .xContentTypeOptions: "nosniff",
        ], body: .init(byteBuffer: ByteBuffer(data: body)))
    }

    /// `go.acme.example-spring`, with anything but letters, digits, `.`, `-` and `_` replaced.
    static func fileName(_ domain: String, _ code: String) -> String {
        String("\(domain)-\(code)".unicodeScalars.map { scalar -> Character in
            CharacterSet.alphanumerics.contains(scalar) && scalar.isASCII || "._-".unicodeScalars.contains(scalar) ? Character(scalar) : "_"
        })
    }

    private func editLink(_ session: DashboardSessions.Session, domain: String, code: String, form: [String: String]) async throws -> Response {
        guard var link = try await store.link(domain: domain, code: code) else { return notFound(session) }
        func value(_ name: String) -> String? { Self.field(form, name) }
        link.path = value("path") ?? ""
        link.preview.title = value("title")
        link.preview.description = value("description")
        link.tags.campaign = value("campaign")
        do {
            // The store checks the image like every other URL of a link (web URLs only).
            link.preview.imageURL = try value("image").map { text throws(ValidationError) in try URLRules.webURL(text, field: "imageURL") }
            try await store.update(link)
        } catch {
            return try await linkPage(session, domain: domain, code: code, notice: nil, problem: "Not saved: \(error)",
                                      editForm: form, status: .badRequest)
        }
        await services.changed([.link(domain: domain, code: code)])
        return try await linkPage(session, domain: domain, code: code, notice: "Saved: the next click gets the change.")
    }

    /// Why the store refused a new link, in words for the form; `nil` when it was stored.
    private static func refusal(inserting link: Link, into store: Store) async -> (message: String, status: HTTPResponse.Status)? {
        let error: StoreError
        do {
            try await store.insert(link)
            return nil
        } catch let refused {
            error = refused
        }
        if error.isConflict { return ("The code “\(link.code ?? "")” is taken on \(link.domain); choose another or leave it empty.", .conflict) }
        if error.isNotFound { return ("There is no domain “\(link.domain)”.", .badRequest) }
        if error.isInvalid { return ("The link was not created: \(error.message)", .badRequest) }
        return ("The database is not available; nothing was created. Try again.", .serviceUnavailable)
    }

    private func linkPage(_ session: DashboardSessions.Session, domain: String, code: String, notice: String?, problem: String? = nil,
                          editForm: [String: String]? = nil, status: HTTPResponse.Status = .ok) async throws -> Response {
        guard let link = try await store.link(domain: domain, code: code),
              let owner = try await store.domain(host: domain) else { return notFound(session) }
        let app = try await store.app(id: owner.appID)
        let report = try await store.stats(.link(domain: domain, code: code, appID: owner.appID), try Self.lastDays(30))
        let url = "https://\(domain)/\(code)"
        var context = Self.numbers(report, days: 30, csv: "/api/v1/stats?domain=\(Self.query(domain))&code=\(Self.query(code))&format=csv",
                                   breakdowns: false)
        context.merge([
            "signedIn": true, "csrf": session.csrf, "notice": notice as Any, "problem": problem as Any, "onLinks": true,
            "domain": domain, "code": code, "path": link.path, "url": url, "title": link.preview.title as Any,
            "campaign": link.tags.effectiveCampaign as Any, "state": Self.state(of: link), "disabled": link.disabled,
            "qr": (try? QRCode(url).svg(label: "QR code for \(url)")) ?? "",
            "preview": [
                "site": domain.uppercased(), "title": link.preview.title ?? app?.name ?? domain, "description": link.preview.description ?? "",
                "image": (link.preview.imageURL ?? app?.iconURL)?.absoluteString as Any, "appName": app?.name ?? "",
            ] as [String: Any],
            "form": editForm ?? [
                "path": link.path, "title": link.preview.title ?? "", "description": link.preview.description ?? "",
                "image": link.preview.imageURL?.absoluteString ?? "", "campaign": link.tags.campaign ?? "",
            ],
            "qrBase": "/dashboard/links/\(Self.pathSegment(domain))/\(Self.pathSegment(code))",
        ]) { _, new in new }
        return render("link", status: status, context)
    }

    /// The last `days` whole UTC days up to now, by day.
    static func lastDays(_ days: Int) throws -> StatsPeriod {
        let now = Date()
        return try StatsPeriod(from: now - Double(days - 1) * 86_400, to: now, bucket: .day)
    }

    /// What the numbers partial shows of a report.
    static func numbers(_ report: StatsReport, days: Int, csv: String, breakdowns: Bool) -> [String: Any] {
        let installs = report.totals.installs.filter { $0.key != MatchType.none.rawValue }.values.reduce(0, +)
        let stats: [String: Int] = ["humanVisits": report.totals.humanVisits, "uniqueVisitors": report.totals.uniqueVisitors,
                                    "installs": installs, "opens": report.totals.opens, "botVisits": report.totals.botVisits]
        return [
            "periodName": "Last \(days) days", "stats": stats,
            "chart": Charts.columns(report.series, label: "Human visits per day, last \(days) days"),
            "funnel": Charts.bars([("Visits", report.totals.humanVisits), ("Installs", installs), ("Opens", report.totals.opens)],
                                  label: "Funnel: visits, installs, opens"),
            "platforms": Charts.bars(report.platforms.filter { $0.humanVisits > 0 }.prefix(8).map { ($0.value, $0.humanVisits) },
                                     label: "Visits by platform"),
            "referrers": Array(report.referrerHosts.prefix(10)), "hasReferrers": !report.referrerHosts.isEmpty,
            "campaigns": Array(report.campaigns.prefix(20)), "hasCampaigns": breakdowns && !report.campaigns.isEmpty,
            "links": Array(report.links.prefix(20)), "hasLinks": breakdowns && !report.links.isEmpty,
            "countries": Array(report.countries.prefix(20)), "hasCountries": !report.countries.isEmpty,
            "csv": csv,
        ]
    }

    private func statsPage(_ session: DashboardSessions.Session, appID: String, campaign: String?, days: Int) async throws -> Response {
        guard let app = try await store.app(id: appID) else { return notFound(session, "There is no such app.") }
        let domains = try await store.domains(appID: app.id).map(\.host)
        let period = try Self.lastDays(days)
        let scope: StatsScope = campaign.map { .campaign($0, appID: app.id, domains: domains) } ?? .app(app.id, domains: domains)
        let report = try await store.stats(scope, period)
        let everyCampaign = try await store.visitsByLink(.app(app.id, domains: domains), hours: period.firstHour..<period.endHour)
            .map(\.campaign).filter { !$0.isEmpty }
        var csv = "/api/v1/stats?app=\(Self.query(app.id))&format=csv&from=\(Self.day(period.from))"
        if let campaign { csv += "&campaign=\(Self.query(campaign))" }
        var context = Self.numbers(report, days: days, csv: csv, breakdowns: true)
        context.merge([
            "signedIn": true, "csrf": session.csrf, "onApps": true, "app": app.id,
            "scopeName": campaign.map { "\(app.name): campaign \($0)" } ?? app.name,
            "campaignOptions": Set(everyCampaign + (campaign.map { [$0] } ?? [])).sorted().map { ["value": $0, "selected": $0 == campaign] },
            "periods": [7, 30, 90].map { ["days": $0, "name": "Last \($0) days", "selected": $0 == days] },
        ]) { _, new in new }
        return render("stats", status: .ok, context)
    }

    static func day(_ date: Date) -> String { StatsPeriod.dayText(date) }


    /// An app and its link domain from the new-app form, both or neither.
    private func createApp(_ form: [String: String]) async -> Result<String, Refusal> {
        func value(_ name: String) -> String? { Self.field(form, name) }
        let app: App
        let domain: Domain
        do {
            let web = try URLRules.webURL(value("web") ?? "", field: "web site")
            let ios = try value("iosAppID").map { id throws(ValidationError) in try IOSApp(appID: id, appStoreID: value("appStoreID")) }
            let android = value("package").map { AndroidApp(packageName: $0, sha256CertFingerprints: value("fingerprint").map { [$0] } ?? []) }
            var routes: [Route] = []
            if let pattern = value("route") {
                routes.append(Route(pattern: try RoutePattern(pattern), webURL: value("routeWeb").map { URLTemplate($0) }))
            }
            app = App(id: value("id") ?? "", name: value("name") ?? "", ios: ios, android: android, web: WebSettings(fallbackURL: web),
                      routes: routes, sdkKey: SDKKeys.generate())
            try app.validate()
            domain = Domain(host: value("host")?.lowercased() ?? "", appID: app.id, alternateHost: value("alternate")?.lowercased())
            try domain.validate()
        } catch {
            return .failure(Refusal(message: "Not created: \(error.description)"))
        }
        do {
            if try await store.app(id: app.id) != nil { return .failure(Refusal(message: "Not created: there is an app “\(app.id)” already.")) }
            for host in [domain.host, domain.alternateHost].compactMap({ $0 }) where try await store.domain(host: host) != nil {
                return .failure(Refusal(message: "Not created: \(host) already belongs to an app."))
            }
            try await store.save(app)
            do {
                try await store.save(domain)
            } catch {
                try? await store.deleteApp(id: app.id)
                return .failure(Refusal(message: "Not created: \(error.message)"))
            }
        } catch {
            return .failure(Refusal(message: "Not created: \(error.message)"))
        }
        await services.changed([.app(id: app.id), .domains])
        return .success(app.id)
    }

    private func appsPage(_ session: DashboardSessions.Session, form: [String: String] = [:], problem: String? = nil,
                          status: HTTPResponse.Status = .ok) async throws -> Response {
        var apps: [[String: Any]] = []
        for app in try await store.apps() {
            let domains = try await store.domains(appID: app.id).map(\.host)
            apps.append([
                "id": app.id, "name": app.name,
                "ios": app.ios.map { "\($0.teamID).\($0.bundleID)" + ($0.appStoreID.map { ", App Store \($0)" } ?? "") } as Any,
                "android": app.android.map { $0.packageName } as Any,
                "web": app.web.fallbackURL.absoluteString, "domains": domains,
                "routes": app.routes.map { RouteRow(pattern: $0.pattern.description, webURL: $0.webURL?.description) }, "hasRoutes": !app.routes.isEmpty,
            ])
        }
        return render("apps", status: status, ["signedIn": true, "csrf": session.csrf, "onApps": true, "apps": apps, "form": form,
                                               "problem": problem as Any])
    }

    /// The sign-in form, with a token bound to a nonce cookie made for it (kept for an hour).
    private func signInPage(_ request: Request, problem: String?, status: HTTPResponse.Status) -> Response {
        let nonce = Self.cookies(request)[DashboardSessions.signInCookieName].flatMap { $0.count == 22 ? $0 : nil } ?? Tokens.random()
        var response = render("signin", status: status, ["csrf": sessions.signInToken(nonce), "problem": problem as Any])
        let secure = services.settings.publicURL.scheme == "https" || request.headers[HTTPField.Name("X-Forwarded-Proto")!] == "https"
        response.headers[.setCookie] = "\(DashboardSessions.signInCookieName)=\(nonce); Path=/dashboard/signin; Max-Age=3600; HttpOnly; SameSite=Strict"
            + (secure ? "; Secure" : "")
        return response
    }

    private func notFound(_ session: DashboardSessions.Session?, _ message: String = "There is no such link.") -> Response {
        render("problem", status: .notFound, ["signedIn": session != nil, "csrf": session?.csrf ?? "",
                                              "heading": "Not found", "message": message])
    }

    private func appPage(_ session: DashboardSessions.Session, app: App, url: String?, document: String?, problem: String?, notice: String?,
                         status: HTTPResponse.Status) async throws -> Response {
        let domains = try await store.domains(appID: app.id)
        var check: [String: Any] = [:]
        if let url, !url.isEmpty {
            let answers = Self.wouldOpen(url, app: app, domains: domains).map { ["platform": $0.platform, "verdict": $0.verdict, "detail": $0.detail] }
            check = ["url": url, "answers": answers]
        }
        return render("app", status: status, [
            "signedIn": true, "csrf": session.csrf, "onApps": true, "problem": problem as Any, "notice": notice as Any,
            "id": app.id, "name": app.name,
            "ios": app.ios.map { "\($0.appID)" + ($0.appStoreID.map { ", App Store \($0)" } ?? "") } as Any,
            "android": app.android.map { $0.packageName } as Any, "web": app.web.fallbackURL.absoluteString,
            "domains": domains.flatMap { [$0.host] + ($0.alternateHost.map { [$0] } ?? []) }, "firstDomain": domains.first?.host ?? "go.example.com",
            "check": check,
            "aasa": Self.pretty(AASAGenerator.data(for: app)), "assetlinks": Self.pretty(AssetLinksGenerator.data(for: app)),
            "document": document ?? Self.pretty((try? Self.appEncoder.encode(app)) ?? Data()),
        ])
    }

    /// What each platform does with a URL: the generated AASA through FerryKit's matcher for
    /// iOS; for Android, whether assetlinks names the app on that host and a route or link
    /// takes the path.
    static func wouldOpen(_ text: String, app: App, domains: [Domain]) -> [(platform: String, verdict: String, detail: String)] {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(), scheme == "https" || scheme == "http",
              let host = components.host?.lowercased() else {
            return [("URL", "Not a web URL.", "Give a full URL such as https://go.example.com/u/42.")]
        }
        guard domains.contains(where: { $0.host == host || $0.alternateHost == host }) else {
            return [("All platforms", "No.", "\(host) is not a domain of this app, so neither file is served there by Ferry.")]
        }
        var answers: [(String, String, String)] = []
        if let ios = app.ios {
            let result = AASAMatcher(AASAGenerator.file(for: app)).match(text, appID: ios.appID)
            switch result.outcome {
            case .match: answers.append(("iOS", "Yes.", "The association file lets \(ios.appID) open it" + (result.rule.map { " (\($0))." } ?? ".")))
            case .blocked: answers.append(("iOS", "No.", "A rule excludes it" + (result.rule.map { ": \($0)." } ?? ".")))
            case .none: answers.append(("iOS", "No.", "No rule of the association file covers this path; Safari opens it."))
            }
        } else {
            answers.append(("iOS", "No.", "The app has no iOS settings."))
        }
        if let android = app.android {
            let path = components.path.isEmpty ? "/" : components.path
            let route = app.route(matching: path).map { "the route \($0.route.pattern.description)" }
            answers.append(("Android", "Yes, when the app's manifest declares \(host) with autoVerify.",
                            "assetlinks.json on \(host) names \(android.packageName); in the app, " + (route ?? "the SDK resolves the path as a short link") + "."))
        } else {
            answers.append(("Android", "No.", "The app has no Android settings."))
        }
        return answers
    }

    /// The app a JSON edit describes: the same id, the SDK key kept unless given, valid.
    static func edited(_ current: App, from text: String) -> Result<App, Refusal> {
        var app: App
        do {
            app = try APICoding.decoder.decode(App.self, from: Data(text.utf8))
        } catch {
            return .failure(Refusal(message: "Not saved: the JSON does not describe an app (\(Self.describe(error)))."))
        }
        guard app.id == current.id else { return .failure(Refusal(message: "Not saved: the id stays “\(current.id)”; make a new app through the API.")) }
        if app.sdkKey == nil { app.sdkKey = current.sdkKey }
        do {
            try app.validate()
        } catch {
            return .failure(Refusal(message: "Not saved: \(error.description)"))
        }
        return .success(app)
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "“\(key.stringValue)” is missing"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context), DecodingError.dataCorrupted(let context):
            (context.codingPath.map(\.stringValue).joined(separator: ".").nilIfEmpty.map { "at \($0): " } ?? "") + context.debugDescription
        default: "\(error)"
        }
    }

    static var appEncoder: JSONEncoder { DashboardFiles.appEncoder }

    static func pretty(_ data: Data) -> String {
        guard let object = try? JSONSerialization.jsonObject(with: data),
              let pretty = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]) else {
            return String(decoding: data, as: UTF8.self)
        }
        return String(decoding: pretty, as: UTF8.self)
    }

    private func refusedCrossSite() -> Response {
        render("problem", status: .forbidden, ["heading": "Refused",
                                               "message": "This form was sent from another site, or the page was too old. Nothing was changed; open the page again and retry."])
    }

    private func render(_ name: String, status: HTTPResponse.Status, _ context: [String: Any]) -> Response {
        let html = library.render(Self.present(context), withTemplate: name) ?? "template \(name) is missing"
        return Response(status: status, headers: [
            .contentType: "text/html; charset=utf-8",
            .cacheControl: "no-store",
            .contentSecurityPolicy: "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
            .xContentTypeOptions: "nosniff",
            .referrerPolicy: "same-origin",
        ], body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// The context without absent values, at every depth: an absent value must leave its
    /// section out, not print "nil".
    static func present(_ context: [String: Any]) -> [String: Any] {
        var result: [String: Any] = [:]
        for (key, value) in context {
            let mirror = Mirror(reflecting: value)
            if mirror.displayStyle == .optional {
                guard let inner = mirror.children.first?.value else { continue }
                result[key] = (inner as? [String: Any]).map(present) ?? inner
            } else {
                result[key] = (value as? [String: Any]).map(present) ?? value
            }
        }
        return result
    }

    // MARK: Sessions and forms

    private func session(_ request: Request) -> DashboardSessions.Session? {
        Self.cookies(request)[DashboardSessions.cookieName].flatMap { sessions.read($0) }
    }

    /// A form POSTed by a signed-in page: `body` runs only when the session is live, the POST
    /// comes from this server's origin and carries the session's CSRF token.
    private func submitted(_ request: Request,
                           _ body: (DashboardSessions.Session, [String: String]) async throws -> Response) async throws -> Response {
        guard let session = await signedIn(request) else { return Self.seeOther("/dashboard/signin") }
        let form = try await Self.form(request)
        guard sameOrigin(request), form["csrf"].map({ DashboardSessions.same($0, session.csrf) }) == true else { return refusedCrossSite() }
        return try await body(session, form)
    }

    /// A form field without surrounding spaces; `nil` when empty.
    static func field(_ form: [String: String], _ name: String) -> String? {
        form[name].map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The session, if its API key or user account is still active.
    private func signedIn(_ request: Request) async -> DashboardSessions.Session? {
        guard let session = session(request) else { return nil }
        if session.keyID.hasPrefix(UserAccounts.idPrefix) {
            guard let users = try? await store.users(), users.contains(where: { $0.id == session.keyID && !$0.disabled }) else { return nil }
        } else {
            guard let keys = try? await store.apiKeys(), keys.contains(where: { $0.id == session.keyID && $0.isActive }) else { return nil }
        }
        return session
    }

    struct Refusal: Error {
        let message: String
    }

    /// Who the sign-in form names: an admin API key, or an email and password. The answer is
    /// the same for an unknown email and a wrong password.
    static func whoSignsIn(_ form: [String: String], store: Store) async -> Result<String, Refusal> {
        let key = form["key"]?.trimmingCharacters(in: .whitespaces) ?? ""
        if !key.isEmpty {
            guard let record = try? await APIKeys.verify(key, in: store), record.isActive else {
                return .failure(Refusal(message: "That key is unknown or was revoked."))
            }
            return .success(record.id)
        }
        let email = form["email"]?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        let password = form["password"] ?? ""
        guard !email.isEmpty, !password.isEmpty else { return .failure(Refusal(message: "Give your email and password, or an admin API key.")) }
        guard let user = try? await store.user(email: email), !user.disabled, Passwords.verify(password, against: user.passwordHash) else {
            return .failure(Refusal(message: "That email and password do not match an account."))
        }
        return .success(user.id)
    }

    /// A POST made by a page of this server: `Origin` (sent by browsers with every form POST)
    /// names this host, and the browser did not mark it cross-site.
    private func sameOrigin(_ request: Request) -> Bool {
        if request.headers[HTTPField.Name("Sec-Fetch-Site")!] == "cross-site" { return false }
        guard let origin = request.headers[HTTPField.Name("Origin")!] else { return true }
        guard let components = URLComponents(string: origin), let host = components.host else { return false }
        let originAuthority = components.port.map { "\(host):\($0)" } ?? host
        let authority = request.headers[HTTPField.Name("Host")!] ?? request.head.authority ?? ""
        return originAuthority.lowercased() == authority.lowercased()
    }

    private func cookie(_ value: String, request: Request, maxAge: Int) -> String {
        let secure = services.settings.publicURL.scheme == "https" || request.headers[HTTPField.Name("X-Forwarded-Proto")!] == "https"
        return "\(DashboardSessions.cookieName)=\(value); Path=/dashboard; Max-Age=\(maxAge); HttpOnly; SameSite=Lax" + (secure ? "; Secure" : "")
    }

    static func cookies(_ request: Request) -> [String: String] {
        var cookies: [String: String] = [:]
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if parts.count == 2 { cookies[parts[0]] = parts[1] }
            }
        }
        return cookies
    }

    /// An `application/x-www-form-urlencoded` body (at most 64 KB).
    static func form(_ request: Request) async throws -> [String: String] {
        let buffer = try await request.body.collect(upTo: 64 << 10)
        var fields: [String: String] = [:]
        for pair in String(buffer: buffer).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            fields[parts[0]] = parts.count == 2 ? parts[1] : ""
        }
        return fields
    }

    static func seeOther(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }

    static func state(of link: Link) -> String {
        if link.disabled { return "disabled" }
        if let expiry = link.expiresAt, expiry <= Date() { return "expired" }
        return "live"
    }

    static func pathSegment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#"))) ?? text
    }

    static func query(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }
}

/// What the templates show, row by row.
private struct LinkRow {
    let domain, code, path, title, campaign, state: String
}

private struct DomainOption {
    let host: String
    let selected: Bool
}

private struct RouteRow {
    let pattern: String
    let webURL: String?
}

enum DashboardFiles {
    static let stylesheet = String(decoding: PackageResources.app_css, as: UTF8.self)
    static let previewScript = String(decoding: PackageResources.preview_js, as: UTF8.self)
    static let appEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}
