/// A URL query parameter descriptor (ISO/IEC 23009-1 Annex I, `urn:mpeg:dash:urlparam:2014`
/// or `…:2016`): its `UrlQueryInfo` says what query to add to every segment request — most
/// often the MPD URL's own query (`useMPDUrlQuery="true"`, `queryTemplate="$querypart$"`), the
/// token a CDN signed the MPD's URL with.
///
///     <SupplementalProperty schemeIdUri="urn:mpeg:dash:urlparam:2014">
///       <up:UrlQueryInfo queryTemplate="$querypart$" useMPDUrlQuery="true"/>
///     </SupplementalProperty>
public struct URLQueryInfo: Sendable, Hashable {
    /// `@queryTemplate`: the query to add, with `$querypart$` standing for the query taken
    /// (the MPD URL's, or `@queryString`).
    public var queryTemplate: String
    /// `@useMPDUrlQuery`: whether the query taken is the MPD URL's.
    public var useMPDURLQuery: Bool
    /// `@queryString`: the query taken when the MPD URL's is not.
    public var queryString: String?

    /// A descriptor's query information.
    public init(queryTemplate: String, useMPDURLQuery: Bool, queryString: String? = nil) {
        self.queryTemplate = queryTemplate
        self.useMPDURLQuery = useMPDURLQuery
        self.queryString = queryString
    }

    /// The descriptor schemes that carry one.
    public static let schemes: Set<String> = ["urn:mpeg:dash:urlparam:2014", "urn:mpeg:dash:urlparam:2016"]

    /// The query to add to segment URLs of an MPD read from `mpdURL`, or nil for none.
    public func query(mpdURL: String) -> String? {
        var part = queryString ?? ""
        if useMPDURLQuery {
            let withoutFragment = mpdURL.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
            part = withoutFragment.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).dropFirst().first.map(String.init) ?? ""
        }
        let template = queryTemplate.isEmpty ? "$querypart$" : queryTemplate
        let query = template.replacingOccurrences(of: "$querypart$", with: part)
        return query.isEmpty ? nil : query
    }

    /// `url` with `query` added: after its own query with `&`, else after `?`.
    public static func adding(_ query: String?, to url: String) -> String {
        guard let query, !query.isEmpty else { return url }
        return url + (url.contains("?") ? "&" : "?") + query
    }
}

extension String {
    func replacingOccurrences(of target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var result = ""
        var rest = Substring(self)
        while let range = rest.range(of: target) {
            result += rest[..<range.lowerBound]
            result += replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}

extension Substring {
    func range(of target: String) -> Range<Substring.Index>? {
        var index = startIndex
        while index < endIndex {
            if self[index...].hasPrefix(target) { return index..<self.index(index, offsetBy: target.count) }
            index = self.index(after: index)
        }
        return nil
    }
}
