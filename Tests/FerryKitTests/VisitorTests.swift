import Testing
@testable import FerryKit

@Suite struct VisitorTests {
    let classifier = VisitorClassifier.shared

    @Test func iPhoneSafari() {
        let visitor = classifier.classify(userAgent: UserAgents.iPhoneSafari)
        #expect(visitor.platform == .iOS)
        #expect(visitor.osVersion == Version(17, 4))
        #expect(visitor.deviceClass == .phone)
        #expect(visitor.browser == .safari)
        #expect(visitor.inAppHost == nil)
        #expect(visitor.bot == .none)
        #expect(visitor.vendor == .apple)
    }

    @Test func iPadAndTheMacThatMayBeOne() {
        let iPad = classifier.classify(userAgent: UserAgents.iPadSafari)
        #expect(iPad.platform == .iPadOS && iPad.deviceClass == .tablet)
        let mac = classifier.classify(userAgent: UserAgents.macSafari)
        #expect(mac.platform == .macOS && mac.maybeIPad)
        #expect(mac.osVersion == Version(10, 15, 7))
        #expect(!classifier.classify(userAgent: UserAgents.macChrome).maybeIPad)
    }

    @Test func androidVersionsVendorsAndBrowsers() {
        let pixel = classifier.classify(userAgent: UserAgents.androidChrome)
        #expect(pixel.platform == .android && pixel.osVersion == Version(14) && pixel.browser == .chrome && pixel.vendor == .google)
        let samsung = classifier.classify(userAgent: UserAgents.androidSamsung)
        #expect(samsung.vendor == .samsung && samsung.browser == .samsungInternet)
        let huawei = classifier.classify(userAgent: UserAgents.huaweiWithoutGoogle)
        #expect(huawei.vendor == .huawei && huawei.hasGoogleServices == false && huawei.browser == .huaweiBrowser)
        let fire = classifier.classify(userAgent: UserAgents.amazonFire)
        #expect(fire.platform == .android && fire.vendor == .amazon && fire.hasGoogleServices == false)
        let tablet = classifier.classify(userAgent: "Mozilla/5.0 (Linux; Android 13; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36")
        #expect(tablet.deviceClass == .tablet)
    }

    struct InApp: Sendable, CustomTestStringConvertible {
        var userAgent: String
        var host: InAppHost
        var testDescription: String { host.rawValue }
    }

    /// Every in-app browser REFERENCE.md names, by its token.
    static let inApps: [InApp] = [
        InApp(userAgent: UserAgents.iPhoneFacebook, host: .facebook),
        InApp(userAgent: UserAgents.androidFacebook, host: .facebook),
        InApp(userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 MetaIAB Facebook", host: .facebook),
        InApp(userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/MessengerForiOS;FBAV/450.0.0.40.109]", host: .messenger),
        InApp(userAgent: "Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP1A; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/124.0 Mobile Safari/537.36 [FB_IAB/MESSENGER;FBAV/453.0.0.30.111;]", host: .messenger),
        InApp(userAgent: UserAgents.iPhoneInstagram, host: .instagram),
        InApp(userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Barcelona 325.0.0.35.91 (iPhone15,2; iOS 17_4; en_US)", host: .threads),
        InApp(userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 WAiOS/24.9.78", host: .whatsapp),
        InApp(userAgent: "Mozilla/5.0 (Linux; Android 14; Pixel 8; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/124.0 Mobile Safari/537.36 WA4A/2.24.9.78", host: .whatsapp),
        InApp(userAgent: UserAgents.iPhoneWeChat, host: .wechat),
        InApp(userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Safari Line/14.5.0", host: .line),
        InApp(userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Twitter for iPhone/10.40", host: .twitter),
        InApp(userAgent: "Mozilla/5.0 (Linux; Android 14; Pixel 8; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/124.0 Mobile Safari/537.36 TwitterAndroid", host: .twitter),
        InApp(userAgent: UserAgents.iPhoneLinkedIn, host: .linkedin),
        InApp(userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Snapchat/12.84.0.37 (like Safari/8617.2.4.10.8, panda)", host: .snapchat),
        InApp(userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 musical_ly_34.1.0 JsSdk/2.0 NetType/WIFI", host: .tiktok),
        InApp(userAgent: "Mozilla/5.0 (Linux; Android 14; Pixel 8; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/124.0 Mobile Safari/537.36 BytedanceWebview/d8a21c6", host: .tiktok),
        InApp(userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [Pinterest/iOS]", host: .pinterest),
        InApp(userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) GSA/315.0.630091404 Mobile/15E148 Safari/604.1", host: .googleApp),
        InApp(userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 KAKAOTALK 10.7.5", host: .kakaoTalk),
        InApp(userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Weibo (iPhone15,2__weibo__14.4.0__iphone__os17.4)", host: .weibo),
        InApp(userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148", host: .genericWebView),
        InApp(userAgent: "Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP1A; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/124.0 Mobile Safari/537.36", host: .genericWebView),
    ]

    @Test(arguments: inApps)
    func inAppHosts(_ case_: InApp) {
        let visitor = classifier.classify(userAgent: case_.userAgent)
        #expect(visitor.inAppHost == case_.host)
        #expect(visitor.browser == .webView)
        #expect(visitor.bot == .none)
        #expect(visitor.isMobile)
    }

    @Test func telegramOnIOSLooksLikeSafari() {
        // REFERENCE.md: only page JavaScript can tell.
        #expect(classifier.classify(userAgent: UserAgents.iPhoneSafari).inAppHost == nil)
    }

    @Test func botKinds() {
        #expect(classifier.classify(userAgent: UserAgents.slackbot).bot == .linkPreview)
        #expect(classifier.classify(userAgent: UserAgents.iMessagePreview).bot == .linkPreview)
        #expect(classifier.classify(userAgent: "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)").bot == .linkPreview)
        #expect(classifier.classify(userAgent: "Viber").bot == .linkPreview)
        #expect(classifier.classify(userAgent: UserAgents.googlebot).bot == .searchCrawler)
        #expect(classifier.classify(userAgent: "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)").bot == .searchCrawler)
        #expect(classifier.classify(userAgent: UserAgents.curl).bot == .other)
        #expect(classifier.classify(userAgent: "python-requests/2.31.0").bot == .other)
        #expect(classifier.classify(userAgent: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)").bot == .other)
        // A phone brand is not a bot.
        #expect(classifier.classify(userAgent: "Mozilla/5.0 (Linux; Android 9; CUBOT_X19) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36").bot == .none)
    }

    @Test func clientHintsRefineTheUserAgent() {
        // Chrome's reduced user agent freezes Android at 10 and the model at "K".
        let reduced = "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36"
        let visitor = classifier.classify(RequestHeaders(
            userAgent: reduced, platformHint: "\"Android\"", platformVersionHint: "\"14.0.0\"", mobileHint: "?1", modelHint: "\"SM-S918B\""))
        #expect(visitor.platform == .android)
        #expect(visitor.osVersion == Version(14))
        #expect(visitor.deviceClass == .phone)
        #expect(visitor.model == "SM-S918B")
        #expect(visitor.vendor == .samsung)
        let tablet = classifier.classify(RequestHeaders(userAgent: reduced, mobileHint: "?0"))
        #expect(tablet.deviceClass == .tablet)
        let windows = classifier.classify(RequestHeaders(userAgent: UserAgents.windowsChrome, platformHint: "\"Windows\"", platformVersionHint: "\"15.0.0\""))
        #expect(windows.platform == .windows && windows.osVersion == Version(15))
    }

    @Test func acceptLanguage() {
        let visitor = classifier.classify(RequestHeaders(userAgent: UserAgents.iPhoneSafari, acceptLanguage: "fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5"))
        #expect(visitor.languages == ["fr-CH", "fr", "en", "de"])
        #expect(RequestHeaders.languages(from: "en;q=0.1, ja") == ["ja", "en"])
        #expect(RequestHeaders.languages(from: "<script>, en") == ["en"])
    }

    @Test func hostileAndEmptyUserAgentsAreHandled() {
        let empty = classifier.classify(userAgent: "")
        #expect(empty.platform == .other && empty.bot == .none)
        let long = String(repeating: "iPhone ", count: 10_000)
        #expect(classifier.classify(userAgent: long).platform == .iOS)
        _ = classifier.classify(userAgent: "\u{0}\u{FFFF}é😀")
    }
}
