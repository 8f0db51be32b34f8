import Foundation
import Testing
@testable import FerryKit

@Suite struct PageMetadataTests {
    static func metadata(title: String, description: String? = nil) -> PageMetadata {
        let link = DecisionTests.link { $0.preview = PreviewMetadata(title: title, description: description, imageURL: URL(string: "https://acme.example/a.png")) }
        return PageMetadata(app: DecisionTests.app, link: link, linkURL: "https://go.acme.example/x7Kp2", webURL: "https://acme.example/users/42", appURL: "acme://user/42")
    }

    @Test func everyFamilyOfTagsIsThere() {
        let tags = Self.metadata(title: "Ada").tags.map(\.key)
        for key in ["og:title", "og:type", "og:url", "og:image", "og:site_name", "twitter:card", "twitter:title", "twitter:image",
                    "twitter:app:id:iphone", "twitter:app:id:googleplay", "twitter:app:url:iphone",
                    "al:ios:url", "al:ios:app_store_id", "al:ios:app_name", "al:android:url", "al:android:package",
                    "al:android:app_name", "al:web:url", "al:web:should_fallback", "apple-itunes-app"] {
            #expect(tags.contains(key), "missing \(key)")
        }
        let metadata = Self.metadata(title: "Ada")
        #expect(metadata.content(of: "twitter:card") == "summary_large_image")
        #expect(metadata.content(of: "al:ios:url") == "acme://user/42")
        #expect(metadata.content(of: "apple-itunes-app") == "app-id=123456789, app-argument=https://go.acme.example/x7Kp2")
    }

    @Test func hostileTitlesAreEscapedForAttributes() {
        let html = Self.metadata(title: #"<script>alert(1)</script>" onload="x" 'y' & z"#).html
        #expect(!html.contains("<script>"))
        #expect(html.contains(#"content="&lt;script&gt;alert(1)&lt;/script&gt;&quot; onload=&quot;x&quot; &#39;y&#39; &amp; z""#))
        #expect(html.contains("<title>&lt;script&gt;"))
        // Every attribute value stays inside its quotes.
        for line in html.split(separator: "\n") where line.hasPrefix("<meta") {
            #expect(line.filter { $0 == "\"" }.count == 4, "\(line)")
        }
    }

    @Test func twitterLimitsAreKept() {
        let metadata = Self.metadata(title: String(repeating: "word ", count: 30), description: String(repeating: "long text ", count: 40))
        #expect(metadata.content(of: "twitter:title")!.count <= 70)
        #expect(metadata.content(of: "twitter:description")!.count <= 200)
        #expect(metadata.content(of: "twitter:title")!.hasSuffix("…"))
        #expect(metadata.content(of: "og:title")!.count > 70, "Open Graph keeps the full title")
    }

    @Test func escapingForScripts() {
        let literal = Escaping.javaScriptString("</script><script>alert('x')</script>\u{2028}")
        #expect(!literal.contains("<") && !literal.contains(">") && !literal.contains("'"))
        #expect(literal.hasPrefix("\"") && literal.hasSuffix("\""))
        #expect(literal.contains("\\u003c/script\\u003e"))
        #expect(literal.contains("\\u2028"))
    }

    @Test func percentEncodingRoundTrips() {
        let text = "a b&c=d;e#f/é"
        #expect(Escaping.percentEncode(text) == "a%20b%26c%3Dd%3Be%23f%2F%C3%A9")
        #expect(Escaping.percentDecode(Escaping.percentEncode(text)) == text)
        #expect(Escaping.percentDecode("100%") == "100%")
        #expect(Escaping.percentDecode("a+b", plusAsSpace: true) == "a b")
    }
}
