import Foundation

/// Which assets a listing gives, in what order, and how many: a page of the library.
///
/// ```swift
/// var query = AssetQuery(states: [.failed], limit: 100)
/// repeat {
///     let page = try await library.assets(query)
///     for asset in page.assets { print(asset.id, asset.error ?? "") }
///     query.cursor = page.next
/// } while query.cursor != nil
/// ```
///
/// Pages follow each other by a cursor (the last asset's place in the order), not by an
/// offset: assets added or deleted between two pages never make the next page repeat or skip
/// one that was there all along. In the default order (oldest first) an asset added meanwhile
/// is on a later page; by size, an asset whose size changed meanwhile may be missed or seen
/// twice.
public struct AssetQuery: Sendable, Hashable {
    /// The orders a listing can take.
    public enum Order: String, Sendable, Hashable, CaseIterable, Codable {
        /// Oldest first: the order the assets were made in (the default).
        case created
        /// Newest first.
        case newest
        /// By name (byte order of the UTF-8, as given), then the order they were made in.
        case name
        /// Largest on disk first.
        case size
    }

    /// Only assets in one of these states (as a listing shows them: a download no live process
    /// holds is suspended); every state when empty.
    public var states: Set<DownloadState>
    /// Only assets whose name contains this text, or whose id starts with it, ignoring case;
    /// every asset when nil or empty.
    public var text: String?
    /// The order of the assets (oldest first by default).
    public var order: Order
    /// At most this many assets (1 to ``maximumLimit``); every one when nil.
    public var limit: Int?
    /// Where the page starts: the ``AssetPage/next`` of the page before; nil for the first page.
    public var cursor: String?

    /// The largest page a query may ask for.
    public static let maximumLimit = 10_000

    /// A query of the assets in `states` (every state when empty) matching `text`, in `order`,
    /// at most `limit` of them, from `cursor` (a page's ``AssetPage/next``) on.
    public init(states: Set<DownloadState> = [], text: String? = nil, order: Order = .created, limit: Int? = nil, cursor: String? = nil) {
        self.states = states
        self.text = text
        self.order = order
        self.limit = limit
        self.cursor = cursor
    }

    /// The query's own mistakes, in words, before anything is read.
    ///
    /// - Throws: ``CarryonError/Code/invalidValue`` naming the limit or the cursor.
    func validated() throws(CarryonError) -> (limit: Int?, after: AssetCursor?) {
        if let limit, !(1...Self.maximumLimit).contains(limit) {
            throw CarryonError(.invalidValue, "the limit \(limit) is not between 1 and \(Self.maximumLimit)")
        }
        guard let cursor, !cursor.isEmpty else { return (limit, nil) }
        let after = try AssetCursor(decoding: cursor)
        guard after.order == order else {
            throw CarryonError(.invalidValue, "the cursor was made for the order \(after.order.rawValue), not \(order.rawValue): start again without it")
        }
        return (limit, after)
    }
}

/// An asset's place in a listing's order: the value it is sorted by and its row, which breaks
/// ties. Written as an opaque token, `c1.` and base64url.
struct AssetCursor: Sendable, Hashable, Codable {
    var order: AssetQuery.Order
    /// The value sorted by: the creation date as the index stores it, the name, or the size.
    var key: String
    var row: Int64

    init(order: AssetQuery.Order, key: String, row: Int64) {
        self.order = order
        self.key = key
        self.row = row
    }

    /// Reads a token ``encoded`` wrote.
    ///
    /// - Throws: ``CarryonError/Code/invalidValue`` when it is not one.
    init(decoding token: String) throws(CarryonError) {
        let invalid = CarryonError(.invalidValue, "the cursor \(DateText.excerpt(token, limit: 40)) is not one a listing gave: start again without it")
        guard token.hasPrefix("c1."), token.count <= 2048 else { throw invalid }
        var base64 = token.dropFirst(3).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), let cursor = try? JSONDecoder().decode(AssetCursor.self, from: data) else { throw invalid }
        if cursor.order == .size, Int64(cursor.key) == nil { throw invalid }
        self = cursor
    }

    /// The cursor's text: the same place, the same text (its keys sorted; the encoder's own
    /// order changes from one process to the next).
    var encoded: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = (try? encoder.encode(self)) ?? Data()
        return "c1." + data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
