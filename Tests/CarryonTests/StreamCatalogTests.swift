@testable import Carryon
import Foundation
import Testing

/// Stream catalogs as Apple's sample app ships them (Streams.plist), and the same keys in JSON.
@Suite("Reading a stream catalog")
struct StreamCatalogTests {
    /// In the format of the sample app's Streams.plist: an array of dictionaries.
    static let plist = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <array>
        \t<dict>
        \t\t<key>name</key>
        \t\t<string>Advanced Stream</string>
        \t\t<key>playlist_url</key>
        \t\t<string>https://devstreaming-cdn.apple.com/videos/streaming/examples/img_bipbop_adv_example_ts/master.m3u8</string>
        \t</dict>
        \t<dict>
        \t\t<key>name</key>
        \t\t<string>Basic Stream</string>
        \t\t<key>playlist_url</key>
        \t\t<string>https://example.com/basic/main.m3u8</string>
        \t\t<key>headers</key>
        \t\t<dict>
        \t\t\t<key>Authorization</key>
        \t\t\t<string>Bearer abc</string>
        \t\t</dict>
        \t</dict>
        </array>
        </plist>
        """

    @Test("Apple's Streams.plist reads as is, with optional per-stream headers")
    func plist() throws {
        let catalog = try StreamCatalog(data: Data(Self.plist.utf8))
        #expect(catalog.entries.map(\.name) == ["Advanced Stream", "Basic Stream"])
        #expect(catalog.entries[0].playlistURL.hasSuffix("img_bipbop_adv_example_ts/master.m3u8"))
        #expect(catalog.entries[0].headers.isEmpty)
        #expect(catalog.entries[1].headers == [HTTPHeader(name: "Authorization", value: "Bearer abc")])
        #expect(catalog.entry(named: "basic stream")?.playlistURL == "https://example.com/basic/main.m3u8")
        #expect(catalog.entry(named: "Missing") == nil)
    }

    @Test("the same keys in JSON, as an array or under \"streams\"")
    func json() throws {
        let array = #"[{"name": "A", "playlist_url": "https://a/main.m3u8", "headers": {"Cookie": "x=1"}}]"#
        let wrapped = #"{"streams": [{"name": "A", "playlist_url": "https://a/main.m3u8", "headers": {"Cookie": "x=1"}}]}"#
        for text in [array, wrapped] {
            let catalog = try StreamCatalog(data: Data(text.utf8))
            #expect(catalog.entries == [.init(name: "A", playlistURL: "https://a/main.m3u8", headers: [HTTPHeader(name: "Cookie", value: "x=1")])])
        }
    }

    @Test("a wrong catalog is refused, naming the stream and what is wrong", arguments: [
        (#"[{"playlist_url": "https://a"}]"#, "stream 1: no \"name\""),
        (#"[{"name": "A"}]"#, "stream \"A\": no \"playlist_url\""),
        (#"[{"name": "A", "playlist_url": "https://a", "headers": ["x"]}]"#, "\"headers\" must be a dictionary"),
        (#"[{"name": "A", "playlist_url": "https://a", "headers": {"X": 1}}]"#, "header X is not a string"),
        (#"["just a string"]"#, "stream 1: not a dictionary"),
        (#"{"name": "A"}"#, "must be an array of streams"),
        ("not a catalog at all", "neither a property list nor JSON"),
    ])
    func refusals(text: String, message: String) {
        #expect {
            _ = try StreamCatalog(data: Data(text.utf8), source: "cat.json")
        } throws: { error in
            (error as? CarryonError)?.message.contains(message) == true
        }
    }
}
