/// Supplies a fresh manifest URL when the one a download was started with no longer answers —
/// a CDN's signed URL whose time is up, given anew by the app's own API. Set one on
/// ``DownloadSession/Configuration/manifestURLProvider``; `carryon download --refresh-command CMD`
/// runs a command for it.
///
/// ```swift
/// struct MyAPI: ManifestURLProvider {
///     func freshManifestURL(assetID: String, storedURL: String) async throws -> String? {
///         try await myBackend.signedURL(for: storedURL)
///     }
/// }
/// configuration.manifestURLProvider = MyAPI()
/// ```
public protocol ManifestURLProvider: Sendable {
    /// A fresh URL of the asset's manifest, or nil when there is none to give.
    ///
    /// - Parameters:
    ///   - assetID: The asset whose manifest is read again.
    ///   - storedURL: The URL the download was started with, which no longer answers.
    func freshManifestURL(assetID: String, storedURL: String) async throws -> String?
}
