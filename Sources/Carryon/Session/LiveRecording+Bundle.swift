import Foundation

/// A recording kept in its bundle: `origin/recording.json`, replaced in one rename at each
/// round, before the plan it leads to (see `DownloadSession.record`).
extension LiveRecording {
    /// The file a bundle keeps its recording in (under `origin/`, which playback never serves).
    static func file(in bundle: URL) -> URL {
        bundle.appending(path: "origin/recording.json", directoryHint: .notDirectory)
    }

    /// The recording kept in `bundle`, or nil when it has none.
    ///
    /// - Throws: ``CarryonError/Code/library`` when the file is there but cannot be read.
    static func load(from bundle: URL) throws(CarryonError) -> LiveRecording? {
        let url = file(in: bundle)
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        do {
            return try LiveRecording(decoding: data)
        } catch {
            throw CarryonError(.library, "\(url.path) cannot be read: \(error)", cause: error)
        }
    }

    /// Writes the recording into `bundle`, replacing what was there in one rename.
    func save(to bundle: URL) throws(CarryonError) {
        try BundleFiles.write(try encoded(), to: Self.file(in: bundle))
    }
}
