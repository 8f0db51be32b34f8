import FerryKit
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import FerryServer

/// `/dashboard` over HTTP: sign-in, the session cookie, CSRF and origin checks, creating and
/// disabling links, a link's numbers.
@Suite struct DashboardTests {
    typealias F = ServerFixtures
    static let host = HTTPField.Name("Host")!
    static let origin = HTTPField.Name("Origin")!

    struct Signed: Sendable {
        let services: FerryServices<MemoryStore>
        let client: any TestClientProtocol
        let key: String
        let cookie: String
        let csrf: String

        func get(_ path: String) async throws -> TestResponse {
            try await client.execute(uri: path, method: .get, headers: [DashboardTests.host: "127.0.0.1:8080", .cookie: cookie])
        }

        func post(_ path: String, _ fields: [(String, String)], origin: String? = "http://127.0.0.1:8080", csrf: String? = nil) async throws -> TestResponse {
            var headers: HTTPFields = [DashboardTests.host: "127.0.0.1:8080", .cookie: cookie, .contentType: "application/x-www-form-urlencoded"]
            if let origin { headers[DashboardTests.origin] = origin }
            let body = ([("csrf", csrf ?? self.csrf)] + fields).map { "\($0.0)=\(DashboardTests.encode($0.1))" }.joined(separator: "&")
            return try await client.execute(uri: path, method: .post, headers: headers, body: ByteBuffer(string: body))
        }
    }

    /// Opens the sign-in form (as a browser does first) and posts `fields` with its token.
    static func signIn(_ client: any TestClientProtocol, _ fields: String, token: Bool = true) async throws -> TestResponse {
        let form = try await client.execute(uri: "/dashboard/signin", method: .get, headers: [host: "127.0.0.1:8080"])
        let nonce = String(try #require(form.headers[.setCookie]).split(separator: ";")[0])
        let csrf = try #require(String(buffer: form.body).firstMatch(of: /name="csrf" value="([0-9a-f]{32})"/)?.1)
        return try await client.execute(uri: "/dashboard/signin", method: .post,
                                        headers: [host: "127.0.0.1:8080", origin: "http://127.0.0.1:8080", .cookie: nonce,
                                                  .contentType: "application/x-www-form-urlencoded"],
                                        body: ByteBuffer(string: (token ? "csrf=\(csrf)&" : "") + fields))
    }

    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }

    func signedIn(_ body: @Sendable (Signed) async throws -> Void) async throws {
        let services = try await F.services()
        let (_, key) = try await APIKeys.create(name: "dashboard", in: services.store)
        try await Application(router: buildRouter(services)).test(.router) { client in
            let response = try await Self.signIn(client, "key=\(Self.encode(key))")
            #expect(response.status == .seeOther && response.headers[.location] == "/dashboard/links")
            let setCookie = try #require(response.headers[.setCookie])
            let cookie = String(setCookie.split(separator: ";")[0])
            let page = String(buffer: try await client.execute(uri: "/dashboard/links", method: .get,
                                                               headers: [Self.host: "127.0.0.1:8080", .cookie: cookie]).body)
            let csrf = try #require(page.firstMatch(of: /name="csrf" value="([0-9a-f]{32})"/)?.1)
            #expect(!page.contains(#"role="alert""#) && !page.contains(">nil<"), "no problem shown when there is none")
            try await body(Signed(services: services, client: client, key: key, cookie: cookie, csrf: String(csrf)))
        }
    }

    @Test func signingInWithAnAdminKey() async throws {
        let services = try await F.services()
        let (record, key) = try await APIKeys.create(name: "dashboard", in: services.store)
        try await Application(router: buildRouter(services)).test(.router) { client in
            let local: HTTPFields = [Self.host: "127.0.0.1:8080"]
            let away = try await client.execute(uri: "/dashboard/links", method: .get, headers: local)
            #expect(away.status == .seeOther && away.headers[.location] == "/dashboard/signin")
            let form = try await client.execute(uri: "/dashboard/signin", method: .get, headers: local)
            #expect(form.status == .ok && String(buffer: form.body).contains(#"<label for="key">Admin API key</label>"#))
            #expect(form.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)

            func signIn(_ secret: String) async throws -> TestResponse {
                try await Self.signIn(client, "key=\(Self.encode(secret))")
            }
            let tokenless = try await Self.signIn(client, "key=\(Self.encode(key))", token: false)
            #expect(tokenless.status == .forbidden && tokenless.headers[.setCookie] == nil, "the sign-in form has a CSRF token too")
            let wrong = try await signIn("fy_not_a_key")
            #expect(wrong.status == .unauthorized && String(buffer: wrong.body).contains("That key is unknown or was revoked."))
            #expect(wrong.headers[.setCookie]?.hasPrefix("ferry_session") != true, "no session for a wrong key")
            let right = try await signIn(key)
            let cookie = try #require(right.headers[.setCookie])
            #expect(cookie.hasPrefix("ferry_session=") && cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax") && cookie.contains("Path=/dashboard"))
            #expect(!cookie.contains("Secure"), "plain HTTP here; Secure behind HTTPS")
            #expect(cookie.hasPrefix("ferry_session="))
            let session = String(cookie.split(separator: ";")[0])
            #expect(try await client.execute(uri: "/dashboard/links", method: .get, headers: [Self.host: "127.0.0.1:8080", .cookie: session]).status == .ok)

            var forged = session
            let last = forged.removeLast()
            forged += last == "0" ? "1" : "0"
            #expect(try await client.execute(uri: "/dashboard/links", method: .get, headers: [Self.host: "127.0.0.1:8080", .cookie: forged]).status == .seeOther,
                    "a changed cookie is no session")
            try await services.store.revokeAPIKey(id: record.id, at: Date())
            #expect(try await client.execute(uri: "/dashboard/links", method: .get, headers: [Self.host: "127.0.0.1:8080", .cookie: session]).status == .seeOther,
                    "revoking the key ends its sessions")
        }
    }

    @Test func creatingALinkAndRefusals() async throws {
        try await signedIn { signed in
            let created = try await signed.post("/dashboard/links", [("domain", "go.acme.example"), ("path", "/u/77"), ("code", "launch"),
                                                                     ("title", "Launch & <b>party</b>"), ("campaign", "spring")])
            #expect(created.status == .seeOther && created.headers[.location] == "/dashboard/links/go.acme.example/launch?created=1")
            let link = try #require(await signed.services.store.link(domain: "go.acme.example", code: "launch"))
            #expect(link.path == "/u/77" && link.preview.title == "Launch & <b>party</b>" && link.tags.campaign == "spring")
            let page = String(buffer: try await signed.get("/dashboard/links/go.acme.example/launch?created=1").body)
            #expect(page.contains("Link created.") && page.contains("Launch &amp; &lt;b&gt;party&lt;/b&gt;"), "shown as text")

            let offRoute = try await signed.post("/dashboard/links", [("domain", "go.acme.example"), ("path", "/nowhere"), ("code", "bad")])
            #expect(offRoute.status == .badRequest)
            let message = String(buffer: offRoute.body)
            #expect(message.contains(#"role="alert""#) && message.contains("The link was not created"))
            #expect(message.contains(#"value="/nowhere""#), "the form keeps what was typed")
            #expect(await signed.services.store.link(domain: "go.acme.example", code: "bad") == nil)
            let taken = try await signed.post("/dashboard/links", [("domain", "go.acme.example"), ("path", "/u/1"), ("code", "spring")])
            #expect(taken.status == .conflict && String(buffer: taken.body).contains("is taken"))
            #expect(await signed.services.store.link(domain: "go.acme.example", code: "spring")?.path == "/u/42", "the existing link is unchanged")
        }
    }

    @Test func forgedPostsAreRefusedAndChangeNothing() async throws {
        try await signedIn { signed in
            let fields = [("domain", "go.acme.example"), ("path", "/u/5"), ("code", "forged")]
            let noToken = try await signed.post("/dashboard/links", fields, csrf: "")
            #expect(noToken.status == .forbidden)
            let otherSite = try await signed.post("/dashboard/links", fields, origin: "https://evil.example")
            #expect(otherSite.status == .forbidden && String(buffer: otherSite.body).contains("Nothing was changed"))
            #expect(await signed.services.store.link(domain: "go.acme.example", code: "forged") == nil)
            let disable = try await signed.post("/dashboard/links/go.acme.example/spring/disable", [], origin: "https://evil.example")
            #expect(disable.status == .forbidden)
            #expect(await signed.services.store.link(domain: "go.acme.example", code: "spring")?.disabled == false)
            let signout = try await signed.post("/dashboard/signout", [], csrf: "0000")
            #expect(signout.status == .forbidden)
        }
    }

    @Test func aLinksNumbersAndDisabling() async throws {
        try await signedIn { signed in
            for agent in [F.iPhone, F.android, F.desktop, F.slackbot] {
                _ = try await signed.client.execute(uri: "/spring", method: .get, headers: F.headers(agent, [Self.host: "go.acme.example"]))
            }
            await signed.services.recorder.flush()
            let page = String(buffer: try await signed.get("/dashboard/links/go.acme.example/spring").body)
            #expect(page.contains("<strong>3</strong> visits") && page.contains("<strong>1</strong> bots"))
            #expect(page.contains(#"<svg viewBox="0 0 640.0 180.0" role="img" aria-label="Human visits per day, last 30 days""#))
            #expect(page.contains(">ios</text>") && page.contains(">android</text>"), "platform bars")
            #expect(!page.contains("<script"), "no script on the page")

            let disabled = try await signed.post("/dashboard/links/go.acme.example/spring/disable", [])
            #expect(disabled.status == .ok && String(buffer: disabled.body).contains("Link disabled"))
            let click = try await signed.client.execute(uri: "/spring", method: .get, headers: F.headers(F.desktop, [Self.host: "go.acme.example"]))
            #expect(click.status == .gone, "the next click sees it")
            #expect(try await signed.get("/dashboard/links/go.acme.example/nope").status == .notFound)

            let list = String(buffer: try await signed.get("/dashboard/links?q=xss").body)
            #expect(list.contains("&lt;script&gt;alert(1)&lt;/script&gt;") && !list.contains("<script>alert(1)"))
            #expect(String(buffer: try await signed.get("/dashboard/apps").body).contains("<code>/u/{userId}</code>"))
        }
    }

    @Test func signingInWithAnAccountAndItsLimits() async throws {
        let services = try await F.services()
        let user = try await UserAccounts.create(email: "Ada@Acme.example", name: "Ada", password: "correct horse battery", in: services.store)
        #expect(user.email == "ada@acme.example" && user.passwordHash.hasPrefix("scrypt$32768$8$1$"))
        #expect(!user.passwordHash.contains("correct horse"))
        try await Application(router: buildRouter(services)).test(.router) { client in
            func signIn(_ email: String, _ password: String) async throws -> TestResponse {
                try await Self.signIn(client, "email=\(Self.encode(email))&password=\(Self.encode(password))&key=")
            }
            let wrong = try await signIn("ada@acme.example", "wrong horse battery")
            #expect(wrong.status == .unauthorized && String(buffer: wrong.body).contains("do not match an account"))
            let unknown = try await signIn("nobody@acme.example", "correct horse battery")
            #expect(String(buffer: unknown.body).contains("do not match an account"), "the same answer for an unknown email")
            let right = try await signIn("ADA@acme.example", "correct horse battery")
            #expect(right.status == .seeOther)
            let cookie = String(try #require(right.headers[.setCookie]).split(separator: ";")[0])
            #expect(try await client.execute(uri: "/dashboard/links", method: .get, headers: [Self.host: "127.0.0.1:8080", .cookie: cookie]).status == .ok)

            var disabled = user
            disabled.disabled = true
            try await services.store.save(disabled)
            #expect(try await client.execute(uri: "/dashboard/links", method: .get, headers: [Self.host: "127.0.0.1:8080", .cookie: cookie]).status == .seeOther,
                    "disabling the account ends its sessions")

            var statuses: [HTTPResponse.Status] = []
            for _ in 0..<8 { statuses.append(try await signIn("nobody@acme.example", "guess guess guess").status) }
            #expect(statuses.last == .tooManyRequests, "ten attempts a minute from one address: \(statuses)")
        }
    }

    @Test func passwordsAreSlowHashes() throws {
        let stored = try Passwords.hash("a long enough password")
        #expect(Passwords.verify("a long enough password", against: stored))
        #expect(!Passwords.verify("a long enough passwore", against: stored))
        #expect(!Passwords.verify("a long enough password", against: stored.replacingOccurrences(of: "scrypt$32768", with: "scrypt$1024")))
        #expect(!Passwords.verify("a long enough password", against: "plain text"))
        #expect(try Passwords.hash("a long enough password") != stored, "salted")
        #expect(Passwords.check("short") != nil && Passwords.check("twelve chars") == nil)
    }

    @Test func anAppsFilesTheURLCheckAndEditing() async throws {
        try await signedIn { signed in
            let page = String(buffer: try await signed.get("/dashboard/apps/acme").body)
            #expect(page.contains("ABCDE12345.com.acme.app") && page.contains(F.fingerprint), "both files previewed")
            #expect(page.contains(#"<textarea id="document" name="document""#))

            func answers(_ url: String) async throws -> String {
                let html = String(buffer: try await signed.get("/dashboard/apps/acme?url=\(Self.encode(url))").body)
                return html.firstMatch(of: /<dl class="facts" id="answers">(.*?)<\/dl>/.dotMatchesNewlines())
                    .map { String($0.1) } ?? "no answers in the page"
            }
            let route = try await answers("https://go.acme.example/u/42")
            #expect(route.contains("<dt>iOS</dt><dd><strong>Yes.</strong>") && route.contains("the route /u/{userId}"))
            let elsewhere = try await answers("https://go.acme.example/_ferry/web?path=/u/1")
            #expect(elsewhere.contains("<dt>iOS</dt><dd><strong>No.</strong>"))
            #expect(try await answers("https://other.example/u/42").contains("not a domain of this app"))
            #expect(try await answers("javascript:alert(1)").contains("Not a web URL."))

            // Editing: a new route shows in the association file every domain serves.
            var app = try #require(await signed.services.store.app(id: "acme"))
            app.routes.append(Route(pattern: "/p/{id}"))
            let json = String(decoding: try JSONEncoder().encode(app), as: UTF8.self)
            let saved = try await signed.post("/dashboard/apps/acme", [("document", json)])
            #expect(saved.status == .ok && String(buffer: saved.body).contains("Saved."))
            let aasa = try await signed.client.execute(uri: "/.well-known/apple-app-site-association", method: .get, headers: [Self.host: "go.acme.example"])
            let served = String(buffer: aasa.body)
            #expect(served.contains("/p/"), "\(served)")

            let broken = try await signed.post("/dashboard/apps/acme", [("document", "{not json")])
            #expect(broken.status == .badRequest && String(buffer: broken.body).contains("Not saved"))
            #expect(String(buffer: broken.body).contains("{not json"), "the text is kept for fixing")
            app.id = "other"
            let renamed = try await signed.post("/dashboard/apps/acme", [("document", String(decoding: try JSONEncoder().encode(app), as: UTF8.self))])
            #expect(renamed.status == .badRequest && String(buffer: renamed.body).contains("the id stays"))
            #expect(await signed.services.store.app(id: "acme")?.routes.count == 2, "refused edits change nothing")
            let forged = try await signed.post("/dashboard/apps/acme", [("document", json)], origin: "https://evil.example")
            #expect(forged.status == .forbidden)
        }
    }

    @Test func aLinksQRCodeToDownload() async throws {
        try await signedIn { signed in
            let png = try await signed.get("/dashboard/links/go.acme.example/spring/qr.png")
            #expect(png.status == .ok && png.headers[.contentType] == "image/png")
            #expect(png.headers[.contentDisposition] == #"attachment; filename="go.acme.example-spring.png""#)
            #expect(Data(buffer: png.body) == (try QRCode("https://go.acme.example/spring").png(scale: 10)), "the code of the link's URL (QRCodeTests scans it)")
            let svg = try await signed.get("/dashboard/links/go.acme.example/spring/qr.svg")
            #expect(svg.headers[.contentType] == "image/svg+xml" && String(buffer: svg.body).hasPrefix("<svg"))
            #expect(String(buffer: try await signed.get("/dashboard/links/go.acme.example/spring").body).contains(#"<div class="qr"><svg"#))
            #expect(try await signed.get("/dashboard/links/go.acme.example/nope/qr.png").status == .notFound)
            let anonymous = try await signed.client.execute(uri: "/dashboard/links/go.acme.example/spring/qr.png", method: .get,
                                                            headers: [Self.host: "127.0.0.1:8080"])
            #expect(anonymous.status == .seeOther)
        }
    }

    @Test func editingALinkAndItsMessengerPreview() async throws {
        try await signedIn { signed in
            let page = String(buffer: try await signed.get("/dashboard/links/go.acme.example/spring").body)
            #expect(page.contains(#"<p class="preview-title">Ada&#39;s profile</p>"#) || page.contains(#"<p class="preview-title">Ada's profile</p>"#))
            #expect(page.contains(#"<img src="https://acme.example/icon.png""#), "the app's icon when the link has no image")

            let saved = try await signed.post("/dashboard/links/go.acme.example/spring",
                                              [("path", "/u/43"), ("title", "Grace's profile"), ("description", "New"), ("image", ""), ("campaign", "fall")])
            #expect(saved.status == .ok && String(buffer: saved.body).contains("Saved"))
            let link = try #require(await signed.services.store.link(domain: "go.acme.example", code: "spring"))
            #expect(link.path == "/u/43" && link.preview.title == "Grace's profile" && link.tags.campaign == "fall")
            let crawler = try await signed.client.execute(uri: "/spring", method: .get, headers: F.headers(F.slackbot, [Self.host: "go.acme.example"]))
            #expect(String(buffer: crawler.body).contains("Grace"), "previews change with the next fetch")

            let offRoute = try await signed.post("/dashboard/links/go.acme.example/spring", [("path", "/nowhere"), ("title", "x")])
            #expect(offRoute.status == .badRequest && String(buffer: offRoute.body).contains("Not saved"))
            #expect(String(buffer: offRoute.body).contains(#"value="/nowhere""#))
            #expect(!String(buffer: offRoute.body).contains("nil"), "no absent value printed")
            let badImage = try await signed.post("/dashboard/links/go.acme.example/spring", [("path", "/u/43"), ("image", "javascript:alert(1)")])
            #expect(badImage.status == .badRequest)
            #expect(await signed.services.store.link(domain: "go.acme.example", code: "spring")?.path == "/u/43", "refused edits change nothing")

            let links = try await signed.get("/dashboard/links")
            #expect(String(buffer: links.body).contains(#"<script src="/dashboard/preview.js"></script>"#))
            #expect(links.headers[.contentSecurityPolicy]?.contains("script-src 'self'") == true)
            #expect(try await signed.get("/dashboard/preview.js").headers[.contentType] == "text/javascript; charset=utf-8")
        }
    }

    @Test func anAppsAndACampaignsNumbers() async throws {
        try await signedIn { signed in
            for (path, agent) in [("/spring", F.iPhone), ("/spring", F.android), ("/u/7", F.desktop), ("/spring", F.slackbot)] {
                _ = try await signed.client.execute(uri: path, method: .get, headers: F.headers(agent, [Self.host: "go.acme.example"]))
            }
            await signed.services.recorder.flush()
            let app = String(buffer: try await signed.get("/dashboard/stats?app=acme").body)
            #expect(app.contains("<h1>Acme</h1>") && app.contains("<strong>3</strong> visits") && app.contains("<strong>1</strong> bots"))
            #expect(app.contains("<td>spring</td><td>2</td>"), "campaigns table")
            #expect(app.contains("<td>go.acme.example/spring</td><td>2</td>") && app.contains("<td>go.acme.example (routes)</td><td>1</td>"))
            #expect(app.contains(#"<option value="spring">spring</option>"#))
            let campaign = String(buffer: try await signed.get("/dashboard/stats?app=acme&campaign=spring&days=7").body)
            #expect(campaign.contains("Acme: campaign spring") && campaign.contains("<strong>2</strong> visits") && campaign.contains("Last 7 days"))
            #expect(campaign.contains(#"<option value="7" selected>"#))
            #expect(try await signed.get("/dashboard/stats?app=nope").status == .notFound)
        }
    }

    @Test func creatingAnAppWithItsDomain() async throws {
        try await signedIn { signed in
            let fields = [("id", "zed"), ("name", "Zed"), ("web", "https://zed.example"), ("host", "Go.Zed.example"), ("alternate", ""),
                          ("iosAppID", "ZZZZZ12345.com.zed.app"), ("appStoreID", "42"), ("package", "com.zed.app"),
                          ("fingerprint", F.fingerprint), ("route", "/p/{id}"), ("routeWeb", "https://zed.example/p/{id}")]
            let created = try await signed.post("/dashboard/apps", fields)
            #expect(created.status == .seeOther && created.headers[.location] == "/dashboard/apps/zed?created=1")
            let app = try #require(await signed.services.store.app(id: "zed"))
            #expect(app.ios?.appID == "ZZZZZ12345.com.zed.app" && app.android?.packageName == "com.zed.app" && app.sdkKey != nil)
            #expect(await signed.services.store.domain(host: "go.zed.example")?.appID == "zed")
            let aasa = try await signed.client.execute(uri: "/.well-known/apple-app-site-association", method: .get, headers: [Self.host: "go.zed.example"])
            #expect(aasa.status == .ok && String(buffer: aasa.body).contains("ZZZZZ12345.com.zed.app"), "served at once")

            func refused(_ changes: [String: String]) async throws -> String {
                let response = try await signed.post("/dashboard/apps", fields.map { ($0.0, changes[$0.0] ?? $0.1) })
                #expect(response.status == .badRequest)
                return String(buffer: response.body)
            }
            #expect(try await refused(["id": "zed2", "host": "go.zed.example"]).contains("already belongs to an app"))
            #expect(try await refused(["id": "zed"]).contains("there is an app “zed” already"))
            #expect(try await refused(["id": "zed3", "host": "go.zed3.example", "iosAppID": "not-an-app-id"]).contains("Not created"))
            #expect(try await refused(["id": "zed4", "host": "go.zed4.example", "route": "/p/{id"]).contains("Not created"))
            #expect(await signed.services.store.apps().map(\.id) == ["acme", "zed"], "refusals create nothing")
        }
    }
}
