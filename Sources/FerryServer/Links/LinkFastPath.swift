import FerryStore
import HTTPTypes
import Hummingbird
import HummingbirdCore
import NIOCore
import NIOHTTPTypes

/// Answers warm link requests on the event loop, before Hummingbird hands the request to a
/// task: a click on a cached link costs no task switch, no request logger and no router.
/// Anything else — a cold link, another host, the API, a request that asks to close the
/// connection — goes on to Hummingbird unchanged, and so does every request on a connection
/// while one that went that way is still unanswered, so responses keep the requests' order.
///
/// It sits in the HTTP/1 pipeline after the HTTP-types codec (Hummingbird's
/// `additionalChannelHandlers`); its answers carry the same headers Hummingbird adds.
final class LinkFastPath<Store: LinkStore>: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let publicSide: PublicSide<Store>
    private let metrics: ServerMetrics
    private let serverName: String
    private var peer: String?
    /// Requests passed on to Hummingbird whose response has not been written yet.
    private var passedOn = 0
    /// The answer to the request being read (its body, if any, is skipped).
    private var answer: Answer?
    /// Answers written since the last flush.
    private var unflushed = false
    private var clock = HTTPDate.Clock()

    init(publicSide: PublicSide<Store>, metrics: ServerMetrics, serverName: String) {
        self.publicSide = publicSide
        self.metrics = metrics
        self.serverName = serverName
    }

    func handlerAdded(context: ChannelHandlerContext) {
        peer = context.channel.remoteAddress?.ipAddress
    }

    func channelActive(context: ChannelHandlerContext) {
        peer = context.channel.remoteAddress?.ipAddress
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            if passedOn == 0, head.headerFields[.connection] == nil, let answer = publicSide.warmAnswer(head, peer: peer) {
                self.answer = answer
            } else {
                passedOn += 1
                context.fireChannelRead(data)
            }
        case .body:
            if answer == nil { context.fireChannelRead(data) }
        case .end:
            guard var answer else { return context.fireChannelRead(data) }
            self.answer = nil
            answer.headers[.date] = clock.now()
            answer.headers[.server] = serverName
            metrics.answered(status: answer.status.code, fromMemory: true)
            context.write(wrapOutboundOut(.head(HTTPResponse(status: answer.status, headerFields: answer.headers))), promise: nil)
            if answer.body.readableBytes > 0 {
                context.write(wrapOutboundOut(.body(answer.body)), promise: nil)
            }
            context.write(wrapOutboundOut(.end(nil)), promise: nil)
            unflushed = true
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if unflushed {
            unflushed = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // Hummingbird's own 400 for a request it could not parse was never passed on.
        if case .end = unwrapOutboundIn(data) { passedOn = max(0, passedOn - 1) }
        context.write(data, promise: promise)
    }
}
