import Foundation

/// Store URLs built from an app's settings. Nothing in a request can change where they lead.
public enum StoreLinks {
    /// `https://apps.apple.com/app/id…`, with the campaign as App Analytics' `ct`.
    public static func appStore(_ ios: IOSApp, tags: LinkTags) -> URL? {
        guard let id = ios.appStoreID else { return nil }
        let base = URL(string: "https://apps.apple.com/app/id\(id)")!
        guard let campaign = tags.effectiveCampaign, !campaign.isEmpty else { return base }
        // App Store Connect keeps campaign tokens to 40 characters.
        return URLBuilder.appending([.init("ct", String(campaign.prefix(40)))], to: base)
    }

    /// The Play Install Referrer string: the token and the utm tags, as one query string.
    public static func installReferrer(token: String?, tags: LinkTags) -> String {
        var items: [LinkRequest.QueryItem] = []
        if let token { items.append(.init(LinkRequest.tokenParameter, token)) }
        for (name, value) in tags.queryItems where name.hasPrefix("utm_") { items.append(.init(name, value)) }
        if tags.utmCampaign == nil, let campaign = tags.campaign { items.append(.init("utm_campaign", campaign)) }
        return URLBuilder.encodeQuery(items)
    }

    /// The store page of the app in `listing`'s store. Only Google Play carries the referrer.
    public static func android(_ android: AndroidApp, listing: AndroidStoreListing, referrer: String) -> URL {
        let package = Escaping.percentEncode(android.packageName)
        switch listing.store {
        case .googlePlay:
            var text = "https://play.google.com/store/apps/details?id=\(package)"
            if !referrer.isEmpty { text += "&referrer=" + Escaping.percentEncode(referrer) }
            return URL(string: text)!
        case .huaweiAppGallery:
            return URL(string: "https://appgallery.huawei.com/app/\(Escaping.percentEncode(listing.storeAppID ?? android.packageName))")!
        case .samsungGalaxyStore:
            return URL(string: "https://galaxystore.samsung.com/detail/\(package)")!
        case .ruStore:
            return URL(string: "https://www.rustore.ru/catalog/app/\(package)")!
        case .amazon:
            return URL(string: "https://www.amazon.com/gp/mas/dl/android?p=\(package)")!
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
    public static func intent(for url: URL, package: String, fallback: URL) -> URL {
        var target = url.absoluteString
        if let schemeEnd = target.range(of: "://") { target = String(target[schemeEnd.upperBound...]) }
        let text = "intent://\(target)#Intent;scheme=https;package=\(package);S.browser_fallback_url=\(Escaping.percentEncode(fallback.absoluteString));end"
        return URL(string: text)!
    }
}
