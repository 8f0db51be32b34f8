import FerryKit
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
    /// The app whose SDK key the request carried (set by the SDK API's middleware).
    public var sdkApp: App?
    /// The client's address, as the trusted-proxy rules give it (set by the SDK API's middleware).
    public var clientIP: String?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        apiKey = nil
        sdkApp = nil
        clientIP = nil
    }
}
