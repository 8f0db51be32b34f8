import FerryKit
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

extension HTTPField.Name {
    /// `Content-Security-Policy` (named here so it does not clash with other modules' spelling).
    static let ferryCSP = Self("Content-Security-Policy")!
    static let xContentTypeOptions = Self("X-Content-Type-Options")!
    static let referrerPolicy = Self("Referrer-Policy")!
    static let forwarded = Self("Forwarded")!
    static let xForwardedFor = Self("X-Forwarded-For")!
    static let secCHUAPlatform = Self("Sec-CH-UA-Platform")!
    static let secCHUAPlatformVersion = Self("Sec-CH-UA-Platform-Version")!
    static let secCHUAMobile = Self("Sec-CH-UA-Mobile")!
    static let secCHUAModel = Self("Sec-CH-UA-Model")!
    static let acceptCH = Self("Accept-CH")!
    static let hostHeader = Self("Host")!
}

/// A complete response whose body is already in memory: what the public side answers, either
/// through Hummingbird or straight from the event loop (see ``LinkFastPath``).
struct Answer: Sendable {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    var body: ByteBuffer

    var response: Response {
        Response(status: status, headers: headers, body: ResponseBody(byteBuffer: body))
    }
}

enum Responses {
    /// An HTML page with the headers every Ferry page carries.
    static func page(_ status: HTTPResponse.Status, _ html: String, head: Bool, cacheable: Bool = false) -> Answer {
        var headers: HTTPFields = [
            .contentType: "text/html; charset=utf-8",
            .ferryCSP: PageRenderer.contentSecurityPolicy,
            .xContentTypeOptions: "nosniff",
            .referrerPolicy: "no-referrer",
            .cacheControl: cacheable ? "public, max-age=300" : "no-store",
            .vary: "User-Agent",
            .acceptCH: "Sec-CH-UA-Platform-Version, Sec-CH-UA-Model",
        ]
        return body(status, Data(html.utf8), headers: &headers, head: head)
    }

    static func redirect(_ location: String) -> Answer {
        Answer(status: .found, headers: [.location: location, .cacheControl: "no-store", .vary: "User-Agent", .contentLength: "0"],
               body: ByteBuffer())
    }

    static func text(_ status: HTTPResponse.Status, _ text: String, head: Bool = false) -> Answer {
        var headers: HTTPFields = [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"]
        return body(status, Data(text.utf8), headers: &headers, head: head)
    }

    static func json(_ status: HTTPResponse.Status, _ data: Data, head: Bool = false, headers extra: HTTPFields = [:]) -> Answer {
        var headers: HTTPFields = [.contentType: "application/json"]
        headers.append(contentsOf: extra)
        return body(status, data, headers: &headers, head: head)
    }

    /// `HEAD` gets the same headers as `GET`, `Content-Length` included, and no body.
    static func body(_ status: HTTPResponse.Status, _ data: Data, headers: inout HTTPFields, head: Bool) -> Answer {
        headers[.contentLength] = String(data.count)
        return Answer(status: status, headers: headers, body: head ? ByteBuffer() : ByteBuffer(data: data))
    }
}
