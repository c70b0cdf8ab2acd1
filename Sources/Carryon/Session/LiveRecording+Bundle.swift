import Crypto
import Foundation

/// A recording kept in its bundle: `origin/recording.json`, replaced in one rename at each
/// round, before the plan it leads to (see `DownloadSession.record`).
///
/// A recording whose playlists give a key inline (a `data:` URI) is kept sealed: AES-GCM under
/// the library's ``MasterKey``, the asset's id as authenticated data, after a line that says so
/// (``sealedHeader``); the key is in the file only as the key store keeps it. Any other is
/// JSON, as earlier releases wrote every recording.
extension LiveRecording {
    /// The file a bundle keeps its recording in (under `origin/`, which playback never serves).
    static func file(in bundle: URL) -> URL {
        bundle.appending(path: "origin/recording.json", directoryHint: .notDirectory)
    }

    /// What a sealed recording's file starts with.
    static let sealedHeader = Array("carryon sealed recording 1\n".utf8)

    /// The recording kept in `bundle`, or nil when it has none; `masterKey` is asked for only
    /// when it is sealed.
    ///
    /// - Throws: ``CarryonError/Code/library`` when the file is there but cannot be read, or
    ///   opened with the master key.
    static func load(from bundle: URL, masterKey: () throws(CarryonError) -> MasterKey) throws(CarryonError) -> LiveRecording? {
        let url = file(in: bundle)
        guard var data = FileManager.default.contents(atPath: url.path) else { return nil }
        if data.starts(with: sealedHeader) {
            let key = try masterKey()
            do {
                data = try AES.GCM.open(AES.GCM.SealedBox(combined: data.dropFirst(sealedHeader.count)), using: key.key,
                                        authenticating: context(bundle))
            } catch {
                throw CarryonError(.library, "\(url.path) cannot be opened with the library's master key (a key other than the one it was sealed with?): \(error)", cause: error)
            }
        }
        do {
            return try LiveRecording(decoding: data)
        } catch {
            throw CarryonError(.library, "\(url.path) cannot be read: \(error)", cause: error)
        }
    }

    /// Writes the recording into `bundle`, replacing what was there in one rename: sealed
    /// under `masterKey` when its playlists give a key inline.
    func save(to bundle: URL, masterKey: () throws(CarryonError) -> MasterKey) throws(CarryonError) {
        var data = try encoded()
        if holdsInlineKeys {
            let key = try masterKey()
            do {
                data = Data(Self.sealedHeader) + (try AES.GCM.seal(data, using: key.key, authenticating: Self.context(bundle)).combined ?? Data())
            } catch {
                throw CarryonError(.keys, "the recording in \(bundle.path) cannot be sealed: \(error)", cause: error)
            }
        }
        try BundleFiles.write(data, to: Self.file(in: bundle))
    }

    /// The authenticated data of a bundle's sealed recording: its asset's id (the bundle's
    /// folder name), so that it opens in no other bundle.
    private static func context(_ bundle: URL) -> Data {
        Data("carryon-recording:\(bundle.lastPathComponent)".utf8)
    }
}
