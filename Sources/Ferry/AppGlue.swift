import Foundation

#if canImport(UIKit) && os(iOS)
import UIKit

extension FerryClient {
    /// For `scene(_:continue:)`: a universal link arrives as a browsing-web user activity.
    ///
    /// ```swift
    /// func scene(_ scene: UIScene, continue userActivity: NSUserActivity) {
    ///     Task { await ferry.handle(userActivity: userActivity) }
    /// }
    /// func scene(_ scene: UIScene, openURLContexts contexts: Set<UIOpenURLContext>) {
    ///     for context in contexts { Task { await ferry.handle(context.url) } }   // custom scheme
    /// }
    /// ```
    @discardableResult
    public func handle(userActivity: NSUserActivity) async -> DeepLinkOutcome {
        guard userActivity.activityType == NSUserActivityTypeBrowsingWeb, let url = userActivity.webpageURL else { return .notFerryLink }
        let outcome = await handle(url)
        if case .openInBrowser(let web) = outcome { await UIApplication.shared.open(web) }
        return outcome
    }
}
#endif

#if canImport(SwiftUI) && os(iOS)
import SwiftUI

extension View {
    /// Hands universal links and custom-scheme URLs that open the app to Ferry, and opens the
    /// web page when this app version is too old for a link.
    ///
    /// ```swift
    /// WindowGroup { ContentView() }.ferryLinks(ferry)
    /// ```
    public func ferryLinks(_ client: FerryClient) -> some View {
        onOpenURL { url in
            Task {
                if case .openInBrowser(let web) = await client.handle(url) { await UIApplication.shared.open(web) }
            }
        }
        .onContinueUserActivity(NSUserActivityTypeBrowsingWeb) { activity in
            Task { await client.handle(userActivity: activity) }
        }
    }
}
#endif
