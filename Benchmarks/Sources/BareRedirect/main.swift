import Hummingbird

// Usage: BareRedirect PORT
let port = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 8081 : 8081
let responder = CallbackResponder<BasicRequestContext> { _, _ in
    Response(status: .found, headers: [.location: "https://apps.apple.com/app/id1234567890", .contentLength: "0"])
}
let app = Application(responder: responder, configuration: .init(address: .hostname("127.0.0.1", port: port)))
try await app.runService()
