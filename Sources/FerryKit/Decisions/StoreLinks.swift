import Foundation

/// Store URLs built from an app's settings. Nothing in a request can change where they lead.
public enum StoreLinks {
    /// `https://apps.apple.com/app/id…`, with the campaign as App Analytics' `ct`.
    public static func appStore(_ ios: IOSApp, tags: LinkTags) -> String? {
        guard let id = ios.appStoreID else { return nil }
        let base = "https://apps.apple.com/app/id\(id)"
        guard let campaign = tags.effectiveCampaign, !campaign.isEmpty else { return base }
        // App Store Connect keeps campaign tokens to 40 characters.
        return URLBuilder.appending([.init("ct", String(campaign.prefix(40)))], to: base)
    }

    /// The utm tags a Play install referrer carries (`campaign` doubles as `utm_campaign`).
    static func referrerTags(_ tags: LinkTags) -> [LinkRequest.QueryItem] {
        var items = tags.queryItems.filter { $0.name.hasPrefix("utm_") }.map { LinkRequest.QueryItem($0.name, $0.value) }
        if tags.utmCampaign == nil, let campaign = tags.campaign { items.append(.init("utm_campaign", campaign)) }
        return items
    }

    /// The Play Install Referrer string: the token and the utm tags, as one query string.
    public static func installReferrer(token: String?, tags: LinkTags) -> String {
        installReferrer(token: token, tags: referrerTags(tags))
    }

    static func installReferrer(token: String?, tags: [LinkRequest.QueryItem]) -> String {
        var items: [LinkRequest.QueryItem] = []
        if let token { items.append(.init(LinkRequest.tokenParameter, token)) }
        return URLBuilder.encodeQuery(items + tags)
    }

    /// The store page of the app in `listing`'s store. Only Google Play carries the referrer.
    public static func android(_ android: AndroidApp, listing: AndroidStoreListing, referrer: String) -> String {
        let package = Escaping.percentEncode(android.packageName)
        switch listing.store {
        case .googlePlay:
            var text = "https://play.google.com/store/apps/details?id=" + package
            if !referrer.isEmpty { text += "&referrer=" + Escaping.percentEncode(referrer) }
            return text
        case .huaweiAppGallery:
            return "https://appgallery.huawei.com/app/" + Escaping.percentEncode(listing.storeAppID ?? android.packageName)
        case .samsungGalaxyStore:
            return "https://galaxystore.samsung.com/detail/" + package
        case .ruStore:
            return "https://www.rustore.ru/catalog/app/" + package
        case .amazon:
            return "https://www.amazon.com/gp/mas/dl/android?p=" + package
        }
    }

    /// The store for this visitor: the link's choice, else a store the device can use when it
    /// has no Google Play (Huawei → AppGallery, Fire → Amazon), else the app's first store.
    public static func choose(for android: AndroidApp, visitor: Visitor, link: Link) -> AndroidStoreListing {
        if let forced = link.androidStore, let listing = android.listing(for: forced) { return listing }
        if visitor.hasGoogleServices == false {
            let vendorStore: AndroidStore? = switch visitor.vendor {
            case .huawei, .honor: .huaweiAppGallery
            case .amazon: .amazon
            default: nil
            }
            if let vendorStore, let listing = android.listing(for: vendorStore) { return listing }
            if let other = android.stores.first(where: { $0.store != .googlePlay }) { return other }
        }
        return android.stores.first ?? AndroidStoreListing(.googlePlay)
    }

    /// `intent://HOST/PATH?QUERY#Intent;scheme=https;package=PKG;S.browser_fallback_url=…;end`.
    ///
    /// Chrome opens the app for the https URL if it is installed and otherwise loads the
    /// fallback. The fallback is percent-encoded whole, so its own `;`, `=`, `&` and `#` can't
    /// end the extra early.
    public static func intent(hostAndPath: String, query: [LinkRequest.QueryItem], package: String, fallback: String) -> String {
        var text = "intent://" + hostAndPath
        if !query.isEmpty { text += "?" + URLBuilder.encodeQuery(query) }
        return text + "#Intent;scheme=https;package=" + package + ";S.browser_fallback_url=" + Escaping.percentEncode(fallback) + ";end"
    }
}
