@testable import Carryon
import Testing

/// Language tags: matching a rendition's `LANGUAGE` against a preference (RFC 4647 basic
/// filtering), and the user's preferences from the POSIX locale environment.
@Suite("Matching and finding languages")
struct LanguagesTests {
    // MARK: matches

    @Test("a tag matches an equal range", arguments: [("en", "en"), ("de-AT", "de-AT"), ("zh-Hant-TW", "zh-Hant-TW")])
    func equal(tag: String, range: String) {
        #expect(Languages.matches(tag, range: range))
    }

    @Test("a tag matches a range that is a prefix of it ending at a subtag", arguments: [("en-GB", "en"), ("zh-Hant-TW", "zh-Hant"),
                                                                                        ("zh-Hant-TW", "zh")])
    func morespecific(tag: String, range: String) {
        #expect(Languages.matches(tag, range: range))
    }

    @Test("a tag does not match a more specific range", arguments: [("en", "en-GB"), ("zh-Hant", "zh-Hant-TW")])
    func lessSpecific(tag: String, range: String) {
        #expect(!Languages.matches(tag, range: range))
    }

    @Test("a prefix that does not end at a subtag boundary does not match", arguments: [("eng", "en"), ("de", "d"), ("en-GB", "en-G")])
    func partialSubtag(tag: String, range: String) {
        #expect(!Languages.matches(tag, range: range))
    }

    @Test("case and _ versus - are ignored", arguments: [("EN-gb", "en"), ("en_GB", "en-gb"), ("de-at", "DE_AT")])
    func caseAndUnderscore(tag: String, range: String) {
        #expect(Languages.matches(tag, range: range))
    }

    @Test("different languages do not match", arguments: [("de", "en"), ("fr-CA", "en-CA")])
    func different(tag: String, range: String) {
        #expect(!Languages.matches(tag, range: range))
    }

    // MARK: fromEnvironment

    @Test("LANG gives one language, without encoding and modifier")
    func lang() {
        #expect(Languages.fromEnvironment(["LANG": "de_DE.UTF-8"]) == ["de-de"])
    }

    @Test("a locale with a modifier (de_DE.UTF-8@euro) gives its language and region")
    func modifier() {
        #expect(Languages.fromEnvironment(["LANG": "de_DE.UTF-8@euro"]) == ["de-de"])
        #expect(Languages.fromEnvironment(["LANG": "ca_ES@valencia"]) == ["ca-es"])
    }

    @Test("LC_ALL wins over LC_MESSAGES, which wins over LANG")
    func precedence() {
        #expect(Languages.fromEnvironment(["LC_ALL": "fr_FR.UTF-8", "LC_MESSAGES": "it_IT", "LANG": "de_DE.UTF-8"]) == ["fr-fr"])
        #expect(Languages.fromEnvironment(["LC_MESSAGES": "it_IT", "LANG": "de_DE.UTF-8"]) == ["it-it"])
    }

    @Test("an empty variable is as if it were not set")
    func emptyVariables() {
        #expect(Languages.fromEnvironment(["LANGUAGE": "", "LC_ALL": "", "LANG": "de_DE.UTF-8"]) == ["de-de"])
    }

    @Test("LANGUAGE lists languages in order of preference, before the locale's")
    func languageList() {
        #expect(Languages.fromEnvironment(["LANGUAGE": "de_AT:de:en", "LANG": "fr_FR.UTF-8"]) == ["de-at", "de", "en", "fr-fr"])
    }

    @Test("a language named twice is listed once, where it is first named")
    func duplicates() {
        #expect(Languages.fromEnvironment(["LANGUAGE": "en:de::en", "LANG": "de.UTF-8"]) == ["en", "de"])
    }

    @Test("the C and POSIX locales name no language", arguments: ["C", "POSIX", "C.UTF-8", "c.utf8"])
    func cLocale(locale: String) {
        #expect(Languages.fromEnvironment(["LANG": locale]) == [])
        #expect(Languages.fromEnvironment(["LANGUAGE": "\(locale):en"]) == ["en"])
    }

    @Test("LC_ALL=C overrides LANG: the user chose no language")
    func lcAllC() {
        #expect(Languages.fromEnvironment(["LC_ALL": "C", "LANG": "de_DE.UTF-8"]) == [])
    }

    @Test("no locale variables, no languages")
    func noVariables() {
        #expect(Languages.fromEnvironment([:]) == [])
        #expect(Languages.fromEnvironment(["HOME": "/root", "LC_CTYPE": "de_DE.UTF-8"]) == [])
    }
}
