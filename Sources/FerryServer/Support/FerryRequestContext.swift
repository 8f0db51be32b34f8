import FerryStore
import Hummingbird
import NIOCore

/// The request context of every route: Hummingbird's core storage plus the peer address,
/// which the client-IP rules need.
public struct FerryRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?
    /// The API key the request authenticated with (set by the API's auth middleware).
    public var apiKey: APIKeyRecord?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        apiKey = nil
    }
}
