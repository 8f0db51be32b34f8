import ArgumentParser
import FerryKit

struct UACommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ua",
        abstract: "Classify user agents as Ferry does: platform, OS version, device, browser, in-app host, bot.",
        discussion: """
            Classifies each argument, or each line of standard input when there are none, and
            prints one result per line.

            Examples:
              ferry ua 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 325.0'
              platform=ios os=17.4 device=phone browser=webview in-app=instagram bot=none maybe-ipad=no

              cut -f3 access.log | ferry ua --json > visitors.jsonl
            """)

    @Flag(help: "One JSON object per line: platform, osVersion, deviceClass, browser, inAppHost, bot, maybeIPad.")
    var json = false

    @Argument(help: "User agents to classify. Without any, lines are read from standard input.")
    var userAgents: [String] = []

    func run() throws {
        let classifier = VisitorClassifier.shared
        var output = Output()
        func emit(_ userAgent: String) {
            let visitor = classifier.classify(userAgent: userAgent)
            output.line(json ? Self.json(visitor) : Self.text(visitor))
        }
        if userAgents.isEmpty {
            while let line = readLine(strippingNewline: true) { emit(line) }
        } else {
            userAgents.forEach(emit)
        }
        output.flush()
    }

    static func text(_ visitor: Visitor) -> String {
        "platform=\(visitor.platform.rawValue) os=\(visitor.osVersion?.description ?? "-") device=\(visitor.deviceClass.rawValue) "
            + "browser=\(visitor.browser.rawValue) in-app=\(visitor.inAppHost?.rawValue ?? "-") bot=\(visitor.bot.rawValue) "
            + "maybe-ipad=\(visitor.maybeIPad ? "yes" : "no")"
    }

    static func json(_ visitor: Visitor) -> String {
        let osVersion = visitor.osVersion.map { jsonString($0.description) } ?? "null"
        let inAppHost = visitor.inAppHost.map { jsonString($0.rawValue) } ?? "null"
        return #"{"platform":"\#(visitor.platform.rawValue)","osVersion":\#(osVersion),"deviceClass":"\#(visitor.deviceClass.rawValue)","browser":"\#(visitor.browser.rawValue)","inAppHost":\#(inAppHost),"bot":"\#(visitor.bot.rawValue)","maybeIPad":\#(visitor.maybeIPad)}"#
    }
}
