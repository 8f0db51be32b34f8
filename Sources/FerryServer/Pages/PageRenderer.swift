import Crypto
import FerryKit
import Foundation

/// Renders Ferry's public pages: the preview page, the crawler preview, the open-in-browser
/// guidance, the iPad probe, and the 404 and 410 pages. Mobile-first, no external scripts,
/// styles or fonts, one static inline script, every value escaped for where it goes.
public enum PageRenderer {
    /// The only script a page carries. It reads its data from `data-` attributes (escaped like
    /// any attribute), so it never changes and its hash can stand in the CSP. On a page that
    /// hands out a deferred-intent token it reports the screen, time zone and languages to
    /// `/_ferry/beacon`, for a probabilistic match should the token get lost.
    static let script = """
        (function(){var b=document.body,d=b.getAttribute("data-desktop");\
        if(d!==null&&!(navigator.maxTouchPoints>1)){location.replace(d);return}\
        var i=b.getAttribute("data-ipad");if(i!==null&&navigator.maxTouchPoints>1){location.replace(i);return}\
        var g=document.getElementById("get");if(g){var t0=/[?&]ferry_token=([A-Za-z0-9_-]+)/.exec(g.getAttribute("data-copy")||"");\
        if(t0&&navigator.sendBeacon){try{navigator.sendBeacon("/_ferry/beacon",JSON.stringify({t:t0[1],w:screen.width,h:screen.height,\
        tz:Intl.DateTimeFormat().resolvedOptions().timeZone,l:navigator.languages||[navigator.language]}))}catch(x){}}\
        g.addEventListener("click",function(e){var c=g.getAttribute("data-copy");\
        if(!c)return;e.preventDefault();var go=function(){location.href=g.href};\
        try{if(navigator.clipboard&&navigator.clipboard.writeText){navigator.clipboard.writeText(c).then(go,function(){fallback(c);go()});return}}catch(x){}\
        fallback(c);go()})}\
        var k=document.getElementById("copy");if(k){k.addEventListener("click",function(){var t=document.getElementById("link");\
        if(navigator.clipboard&&navigator.clipboard.writeText){navigator.clipboard.writeText(t.value)}else{t.select();document.execCommand("copy")}})}\
        function fallback(c){var t=document.createElement("textarea");t.value=c;t.setAttribute("readonly","");\
        t.style.position="absolute";t.style.left="-9999px";document.body.appendChild(t);t.select();\
        try{document.execCommand("copy")}catch(x){}document.body.removeChild(t)}})();
        """

    static let style = """
        :root{color-scheme:light dark;--bg:#f4f5f7;--card:#fff;--text:#15171a;--muted:#5b6370;--accent:#1a5cff;--accent-text:#fff;--line:#dfe2e6}\
        @media (prefers-color-scheme:dark){:root{--bg:#0f1115;--card:#1a1d23;--text:#eef0f3;--muted:#a2a9b4;--accent:#5a8bff;--line:#2c313a}}\
        *{box-sizing:border-box}html,body{margin:0;padding:0}\
        body{font:16px/1.45 -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;background:var(--bg);color:var(--text);\
        min-height:100vh;display:flex;align-items:center;justify-content:center;padding:24px 16px}\
        main{width:100%;max-width:420px;background:var(--card);border-radius:20px;padding:28px 24px;box-shadow:0 8px 30px rgba(0,0,0,.08);text-align:center}\
        .app{display:flex;align-items:center;justify-content:center;gap:12px;margin-bottom:20px;color:var(--muted);font-weight:600}\
        .app img{width:40px;height:40px;border-radius:10px}\
        .badge{width:40px;height:40px;border-radius:10px;background:var(--accent);color:var(--accent-text);display:inline-flex;\
        align-items:center;justify-content:center;font-size:20px}\
        .hero{width:100%;max-height:220px;object-fit:cover;border-radius:14px;margin:0 0 18px}\
        h1{font-size:22px;line-height:1.25;margin:0 0 8px;overflow-wrap:anywhere}p{margin:0 0 16px;color:var(--muted);overflow-wrap:anywhere}\
        .button{display:block;width:100%;padding:15px 18px;margin:10px 0 0;border-radius:14px;font-size:17px;font-weight:600;text-decoration:none;\
        border:1px solid var(--line);color:var(--text);background:transparent;cursor:pointer}\
        .primary{background:var(--accent);border-color:var(--accent);color:var(--accent-text)}\
        .web{display:inline-block;margin-top:18px;color:var(--muted);font-size:15px}\
        .note{font-size:13px;margin:14px 0 0}ol{text-align:left;padding-left:22px;color:var(--text)}li{margin:0 0 8px}\
        input{width:100%;padding:12px;border-radius:10px;border:1px solid var(--line);background:var(--bg);color:var(--text);font-size:15px}
        """

    static func hash(_ text: String) -> String {
        "'sha256-" + Data(SHA256.hash(data: Data(text.utf8))).base64EncodedString() + "'"
    }

    /// The `Content-Security-Policy` every page is served with.
    public static let contentSecurityPolicy =
        "default-src 'none'; img-src https: data:; style-src \(hash(style)); script-src \(hash(script)); "
        + "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    // MARK: Pages

    /// The preview page a phone sees before going on (DESIGN.md §2).
    public static func previewPage(_ page: LinkPage, strings: PageStrings) -> String {
        shell(language: strings.language, head: page.metadata.html, body: previewBody(page, strings: strings))
    }

    /// What link-preview crawlers get: the tags, and the same words as text.
    public static func crawlerPreview(_ page: LinkPage, strings: PageStrings) -> String {
        var body = header(page) + "<h1>\(e(page.title))</h1>\n"
        if let description = page.description { body += "<p>\(e(description))</p>\n" }
        body += "<a class=\"web\" href=\"\(e(page.webURL))\">\(e(strings.continueOnWeb))</a>\n"
        return shell(language: strings.language, head: page.metadata.html, body: body)
    }

    /// For WeChat and hosts like it: how to get to the system browser.
    public static func openInBrowser(_ page: LinkPage, strings: PageStrings) -> String {
        let host = page.inAppHost?.displayName ?? "this app"
        var body = header(page) + "<h1>\(e(strings.openInBrowserTitle))</h1>\n<p>\(e(page.title))</p>\n<ol>\n"
        for step in strings.openInBrowserSteps {
            body += "<li>\(e(step.replacingOccurrences(of: "%@", with: host)))</li>\n"
        }
        body += "</ol>\n<p class=\"note\">\(e(strings.copyLink))</p>\n"
        body += "<input id=\"link\" readonly value=\"\(e(page.linkURL))\" aria-label=\"\(e(page.linkURL))\">\n"
        body += "<button class=\"button\" id=\"copy\" type=\"button\">\(e(strings.copyLink.trimmingCharacters(in: CharacterSet(charactersIn: ":"))))</button>\n"
        return shell(language: strings.language, head: page.metadata.html, body: body)
    }

    /// A Mac Safari user agent: the iPad answer, unless the page finds no touch screen.
    public static func iPadProbe(_ probe: IPadProbe, strings: PageStrings) -> String {
        let desktop = " data-desktop=\"\(e(probe.desktopURL))\""
        switch probe.ipad {
        case .previewPage(let page):
            return shell(language: strings.language, head: page.metadata.html, attributes: desktop, body: previewBody(page, strings: strings))
        case .redirect(let location, _):
            let body = "<h1>\(e(strings.choosingTitle))</h1>\n<a class=\"button primary\" href=\"\(e(location))\">iPad</a>\n"
                + "<a class=\"button\" href=\"\(e(probe.desktopURL))\">Mac</a>\n"
            return shell(language: strings.language, title: strings.choosingTitle, attributes: " data-ipad=\"\(e(location))\"" + desktop, body: body)
        default:
            return shell(language: strings.language, title: strings.choosingTitle, attributes: desktop,
                         body: "<a class=\"button\" href=\"\(e(probe.desktopURL))\">\(e(strings.continueOnWeb))</a>\n")
        }
    }

    public static func notFound(strings: PageStrings) -> String {
        shell(language: strings.language, title: strings.notFoundTitle,
              body: "<h1>\(e(strings.notFoundTitle))</h1>\n<p>\(e(strings.notFoundText))</p>\n")
    }

    public static func gone(_ page: LinkPage?, strings: PageStrings) -> String {
        var body = "<h1>\(e(strings.goneTitle))</h1>\n<p>\(e(strings.goneText))</p>\n"
        if let page { body = header(page) + body + "<a class=\"web\" href=\"\(e(page.webURL))\">\(e(page.appName))</a>\n" }
        return shell(language: strings.language, title: strings.goneTitle, body: body)
    }

    // MARK: Parts

    private static func previewBody(_ page: LinkPage, strings: PageStrings) -> String {
        var body = header(page) + "<h1>\(e(page.title))</h1>\n"
        if let description = page.description { body += "<p>\(e(description))</p>\n" }
        if let open = page.openInAppURL {
            body += "<a class=\"button primary\" id=\"open\" href=\"\(e(open))\">\(e(strings.openInApp))</a>\n"
        }
        if let store = page.storeURL {
            let copy = page.clipboardURL.map { " data-copy=\"\(e($0))\"" } ?? ""
            body += "<a class=\"button\" id=\"get\" href=\"\(e(store))\"\(copy)>\(e(strings.getTheApp))</a>\n"
            if page.clipboardURL != nil { body += "<p class=\"note\">\(e(strings.copiedNote))</p>\n" }
        }
        body += "<a class=\"web\" id=\"web\" href=\"\(e(page.webURL))\">\(e(strings.continueOnWeb))</a>\n"
        return body
    }

    private static func header(_ page: LinkPage) -> String {
        var html = "<div class=\"app\">"
        if let icon = page.iconURL {
            html += "<img src=\"\(e(icon.absoluteString))\" alt=\"\">"
        } else {
            // No icon configured: the app's initial, so the page never waits on a missing image.
            html += "<span class=\"badge\" aria-hidden=\"true\">\(e(page.appName.first.map { String($0).uppercased() } ?? "•"))</span>"
        }
        html += "<span>\(e(page.appName))</span></div>\n"
        if let image = page.imageURL { html += "<img class=\"hero\" src=\"\(e(image.absoluteString))\" alt=\"\">\n" }
        return html
    }

    /// Every page's frame. Link pages put their metadata (which carries the title) in the head;
    /// other pages get a plain title and stay out of search indexes.
    private static func shell(language: String, head: String? = nil, title: String? = nil, attributes: String = "", body: String) -> String {
        let headTags = head ?? "<meta name=\"robots\" content=\"noindex\">\n<title>\(e(title ?? ""))</title>\n"
        return """
            <!doctype html>
            <html lang="\(e(language))">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width,initial-scale=1,viewport-fit=cover">
            <meta name="referrer" content="no-referrer">
            \(headTags)<style>\(style)</style>
            </head>
            <body\(attributes)>
            <main>
            \(body)</main>
            <script>\(script)</script>
            </body>
            </html>

            """
    }

    private static func e(_ text: String) -> String { Escaping.html(text) }
}
