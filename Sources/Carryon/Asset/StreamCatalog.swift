import Foundation

/// A list of streams to offer, as Apple's sample app reads it from `Streams.plist`: each entry a
/// `name` and a `playlist_url`, and here optionally `headers` (a dictionary of request headers
/// sent with every request of its download). The same keys are read from JSON.
///
/// ```xml
/// <array>
///   <dict>
///     <key>name</key><string>Advanced Stream</string>
///     <key>playlist_url</key><string>https://example.com/advanced/main.m3u8</string>
///   </dict>
/// </array>
/// ```
public struct StreamCatalog: Sendable, Hashable {
    /// One stream of a catalog: a name, a playlist URL, and the request headers its download sends.
    public struct Entry: Sendable, Hashable, Codable {
        /// The stream's name (`name`), as shown to people and looked up by
        /// ``StreamCatalog/entry(named:)``.
        public var name: String
        /// The stream's playlist (`playlist_url`), as the file gives it: a URL or a local path.
        public var playlistURL: String
        /// Request headers sent with every request of the stream's download (`headers`), sorted by
        /// name when read from a file; empty when the entry gives none.
        public var headers: [HTTPHeader]

        /// An entry for the stream called `name` at `playlistURL`, downloaded with `headers`.
        public init(name: String, playlistURL: String, headers: [HTTPHeader] = []) {
            self.name = name
            self.playlistURL = playlistURL
            self.headers = headers
        }
    }

    /// The streams, in the order the catalog lists them.
    public var entries: [Entry]

    /// Reads a catalog: a property list (XML or binary) or JSON, an array of entries (or a
    /// dictionary with a `streams` array).
    ///
    /// - Throws: ``CarryonError/Code/file`` naming the file and the entry that is wrong.
    public init(contentsOf url: URL) throws(CarryonError) {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw CarryonError(.file, "\(url.path): no such file or it cannot be read")
        }
        try self.init(data: data, source: url.path)
    }

    /// Reads a catalog from `data`: a property list (XML or binary) or JSON, an array of entries
    /// (or a dictionary with a `streams` array). `source` names the catalog in error messages.
    ///
    /// - Throws: ``CarryonError/Code/file`` naming the entry that is wrong, or saying that `data`
    ///   is neither a property list nor JSON.
    public init(data: Data, source: String = "the catalog") throws(CarryonError) {
        let object: Any
        if let json = try? JSONSerialization.jsonObject(with: data) {
            object = json
        } else if let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) {
            object = plist
        } else {
            throw CarryonError(.file, "\(source) is neither a property list nor JSON")
        }
        let list: [Any]
        if let array = object as? [Any] {
            list = array
        } else if let dictionary = object as? [String: Any], let streams = dictionary["streams"] as? [Any] {
            list = streams
        } else {
            throw CarryonError(.file, "\(source) must be an array of streams (or a dictionary with a \"streams\" array)")
        }
        var entries: [Entry] = []
        for (index, item) in list.enumerated() {
            guard let dictionary = item as? [String: Any] else {
                throw CarryonError(.file, "\(source), stream \(index + 1): not a dictionary")
            }
            guard let name = dictionary["name"] as? String, !name.isEmpty else {
                throw CarryonError(.file, "\(source), stream \(index + 1): no \"name\"")
            }
            guard let url = dictionary["playlist_url"] as? String, !url.isEmpty else {
                throw CarryonError(.file, "\(source), stream \"\(name)\": no \"playlist_url\"")
            }
            var headers: [HTTPHeader] = []
            if let given = dictionary["headers"] {
                guard let map = given as? [String: Any] else {
                    throw CarryonError(.file, "\(source), stream \"\(name)\": \"headers\" must be a dictionary of strings")
                }
                for (key, value) in map.sorted(by: { $0.key < $1.key }) {
                    guard let value = value as? String else {
                        throw CarryonError(.file, "\(source), stream \"\(name)\": header \(key) is not a string")
                    }
                    headers.append(HTTPHeader(name: key, value: value))
                }
            }
            entries.append(Entry(name: name, playlistURL: url, headers: headers))
        }
        self.entries = entries
    }

    /// The entry called `name` (ignoring case).
    public func entry(named name: String) -> Entry? {
        entries.first { $0.name == name } ?? entries.first { $0.name.lowercased() == name.lowercased() }
    }
}
