/// How strongly an offline asset should be kept when storage runs short,
/// like `AVAssetDownloadedAssetEvictionPriority`.
public enum AssetPriority: String, Sendable, Codable, CaseIterable {
    /// Removed only after every `default` asset has been removed.
    case important
    /// Removed first when storage runs short.
    case `default`
}
