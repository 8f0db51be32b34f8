import FerryKit
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird

/// An API failure, answered as `{"error": {"code": …, "message": …, "field": …}}` with its status.
public struct APIError: Error, HTTPResponseError, Sendable {
    public let status: HTTPResponse.Status
    public let code: String
    public let message: String
    public let field: String?
    /// Seconds, for `429`'s `Retry-After`.
    public var retryAfter: Int?

    public init(_ status: HTTPResponse.Status, _ code: String, _ message: String, field: String? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.field = field
    }

    public var headers: HTTPFields { [.contentType: "application/json"] }

    public func body(allocator: ByteBufferAllocator) -> ByteBuffer? {
        var error: [String: String] = ["code": code, "message": message]
        if let field { error["field"] = field }
        let data = (try? APICoding.encoder.encode(["error": error])) ?? Data()
        return allocator.buffer(data: data)
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = headers
        let body = body(allocator: ByteBufferAllocator()) ?? ByteBuffer()
        headers[.contentLength] = String(body.readableBytes)
        if status == .unauthorized { headers[.wwwAuthenticate] = "Bearer" }
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        return Response(status: status, headers: headers, body: .init(byteBuffer: body))
    }

    static let unauthorized = APIError(.unauthorized, "unauthorized", "send an API key as 'Authorization: Bearer <key>' (create one with 'ferry apikey create')")
    static let revoked = APIError(.forbidden, "key_revoked", "this API key was revoked")

    static func notFound(_ what: String) -> APIError { APIError(.notFound, "not_found", what) }

    static func gone(_ code: String) -> APIError { APIError(.gone, "gone", "the link '\(code)' expired or was disabled") }

    static func tooManyRequests(retryAfter seconds: Int) -> APIError {
        var error = APIError(.tooManyRequests, "rate_limited", "too many requests; try again in \(seconds) s")
        error.retryAfter = seconds
        return error
    }

    static func invalid(_ error: ValidationError) -> APIError {
        APIError(.badRequest, "invalid", error.message, field: error.field)
    }

    /// A store refusal, with the status that fits it.
    static func from(_ error: StoreError) -> APIError {
        if error.isConflict { return APIError(.conflict, "conflict", error.message) }
        if error.isNotFound { return APIError(.unprocessableContent, "unknown_reference", error.message) }
        if error.isInvalid {
            let field = error.message.split(separator: ":").first.map(String.init)
            return APIError(.badRequest, "invalid", error.message, field: field)
        }
        return APIError(.serviceUnavailable, "unavailable", "the database is not available; try again")
    }
}

/// JSON in and out of the API: ISO 8601 dates, sorted keys.
enum APICoding {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()

    /// Decodes a request body, answering 400 with the offending field for bad JSON.
    static func decode<T: Decodable>(_ type: T.Type, from request: Request, context: FerryRequestContext, limit: Int = 2 << 20) async throws -> T {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: limit)
        } catch {
            throw APIError(.contentTooLarge, "too_large", "the request body is larger than \(limit / 1024) KB")
        }
        guard buffer.readableBytes > 0 else { throw APIError(.badRequest, "invalid_json", "the request needs a JSON body") }
        do {
            return try decoder.decode(type, from: Data(buffer: buffer))
        } catch let error as DecodingError {
            throw describe(error)
        }
    }

    static func describe(_ error: DecodingError) -> APIError {
        func path(_ keys: [any CodingKey]) -> String {
            keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().drop { $0 == "." }.description
        }
        switch error {
        case .keyNotFound(let key, let context):
            return APIError(.badRequest, "invalid", "'\(key.stringValue)' is required", field: path(context.codingPath + [key]))
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return APIError(.badRequest, "invalid", context.debugDescription, field: path(context.codingPath))
        case .dataCorrupted(let context):
            let field = path(context.codingPath)
            return APIError(.badRequest, field.isEmpty ? "invalid_json" : "invalid",
                            field.isEmpty ? "the body is not valid JSON" : context.debugDescription, field: field.isEmpty ? nil : field)
        @unknown default:
            return APIError(.badRequest, "invalid_json", "the body could not be read")
        }
    }

    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        Responses.json(status, try encoder.encode(value)).response
    }
}
