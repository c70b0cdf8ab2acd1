#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension XMLReader {
    /// An element: its local name (the prefix removed), its attributes as written (qualified
    /// names), its child elements in order, its text, and the line its start tag is on.
    public struct Element: Sendable, Hashable {
        /// The local name: `MPD` for both `<MPD>` and `<mpd:MPD>`.
        public var name: String
        /// The attributes in document order, names as written (`cenc:default_KID`).
        public var attributes: [(name: String, value: String)]
        /// The child elements in order.
        public var children: [Element]
        /// The element's own text (its character data and CDATA, children's text excluded).
        public var text: String
        /// The 1-based line of the start tag.
        public var line: Int

        /// An element named `name`.
        public init(name: String, attributes: [(name: String, value: String)] = [], children: [Element] = [], text: String = "", line: Int = 1) {
            self.name = name
            self.attributes = attributes
            self.children = children
            self.text = text
            self.line = line
        }

        /// The value of the attribute whose local name is `localName`, whatever its prefix.
        public subscript(localName: String) -> String? {
            // Over UTF-8: an MPD of 20,000 elements asks this 80,000 times.
            var wanted = localName
            return wanted.withUTF8 { wanted in
                for attribute in attributes {
                    var name = attribute.name
                    let matches = name.withUTF8 { name -> Bool in
                        guard name.count >= wanted.count else { return false }
                        let start = name.count - wanted.count
                        guard start == 0 || name[start - 1] == UInt8(ascii: ":") else { return false }
                        return memcmp(name.baseAddress! + start, wanted.baseAddress!, wanted.count) == 0
                    }
                    if matches { return attribute.value }
                }
                return nil
            }
        }

        /// The child elements named `name` (local name).
        public func children(named name: String) -> [Element] {
            children.filter { $0.name == name }
        }

        /// The first child element named `name` (local name).
        public func child(named name: String) -> Element? {
            children.first { $0.name == name }
        }

        public static func == (lhs: Element, rhs: Element) -> Bool {
            lhs.name == rhs.name && lhs.text == rhs.text && lhs.line == rhs.line && lhs.children == rhs.children
                && lhs.attributes.map(\.name) == rhs.attributes.map(\.name) && lhs.attributes.map(\.value) == rhs.attributes.map(\.value)
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(name)
            hasher.combine(line)
            hasher.combine(children.count)
        }
    }
}
