import Crypto
import Foundation

/// A recording kept in its bundle: `origin/recording.json`, written whole (replaced in one
/// rename) at the first round of a run and whenever a round changed more than it appended,
/// and `origin/recording.journal`, a line a round that only appended segments, each written
/// before the plan it leads to (see `DownloadSession.record`). A long recording's rounds so
/// cost what they add, not what it holds.
///
/// Each journal line names the generation of the copy it adds to (``State/generation``): one
/// left from before the copy was written whole again is not read, and a line a crash cut short
/// (no line break after it) neither. A copy without a journal is one an earlier release wrote.
///
/// A recording whose playlists give a key inline (a `data:` URI) is kept sealed: AES-GCM under
/// the library's ``MasterKey``, the asset's id as authenticated data; the copy after a line that
/// says so (``sealedHeader``), each journal line after `sealed ` in base64. The key is in the
/// files only as the key store keeps it. Any other is JSON, as earlier releases wrote every
/// recording.
extension LiveRecording {
    /// The file a bundle keeps its recording in (under `origin/`, which playback never serves).
    static func file(in bundle: URL) -> URL {
        bundle.appending(path: "origin/recording.json", directoryHint: .notDirectory)
    }

    /// The journal of what rounds appended since the copy was written whole.
    static func journal(in bundle: URL) -> URL {
        bundle.appending(path: "origin/recording.journal", directoryHint: .notDirectory)
    }

    /// What a sealed recording's file starts with.
    static let sealedHeader = Array("carryon sealed recording 1\n".utf8)
    /// What a sealed journal line starts with.
    private static let sealedLine = Array("sealed ".utf8)

    /// The recording kept in `bundle`, or nil when it has none; `masterKey` is asked for only
    /// when it is sealed.
    ///
    /// - Throws: ``CarryonError/Code/library`` when the file is there but cannot be read, or
    ///   opened with the master key.
    static func load(from bundle: URL, masterKey: () throws(CarryonError) -> MasterKey) throws(CarryonError) -> LiveRecording? {
        let url = file(in: bundle)
        guard var data = FileManager.default.contents(atPath: url.path) else { return nil }
        if data.starts(with: sealedHeader) {
            data = try open(data.dropFirst(sealedHeader.count), of: url, in: bundle, masterKey: masterKey)
        }
        let recording: LiveRecording
        do {
            recording = try LiveRecording(decoding: data)
        } catch {
            throw CarryonError(.library, "\(url.path) cannot be read: \(error)", cause: error)
        }
        let journal = journal(in: bundle)
        guard let lines = FileManager.default.contents(atPath: journal.path) else { return recording }
        // Complete lines only: one a crash cut short was written before the plan it led to.
        var rest = lines[...]
        while let end = rest.firstIndex(of: UInt8(ascii: "\n")) {
            var line = Data(rest[..<end])
            rest = rest[(end + 1)...]
            if line.starts(with: sealedLine) {
                guard let sealed = Data(base64Encoded: line.dropFirst(sealedLine.count)) else { break }
                line = try open(sealed, of: journal, in: bundle, masterKey: masterKey)
            }
            // A line that does not follow the copy (of an earlier generation) is not read, nor
            // anything after it.
            guard let appended = try? JSONDecoder().decode(Appended.self, from: line), recording.apply(appended) else { break }
        }
        return recording
    }

    /// `sealed` opened with the master key, or why not.
    private static func open(_ sealed: Data, of url: URL, in bundle: URL, masterKey: () throws(CarryonError) -> MasterKey) throws(CarryonError) -> Data {
        let key = try masterKey()
        do {
            return try AES.GCM.open(AES.GCM.SealedBox(combined: sealed), using: key.key, authenticating: context(bundle))
        } catch {
            throw CarryonError(.library, "\(url.path) cannot be opened with the library's master key (a key other than the one it was sealed with?): \(error)", cause: error)
        }
    }

    /// Brings the bundle's copy up to date: a journal line with what was appended since it
    /// was written, or the copy written whole again (replacing what was there in one rename,
    /// its journal removed). Sealed under `masterKey` when its playlists give a key inline.
    func save(to bundle: URL, masterKey: () throws(CarryonError) -> MasterKey) throws(CarryonError) {
        var (line, written) = changesSinceKept()
        let sealing = holdsInlineKeys
        if let line {
            var data: Data
            do { data = try JSONEncoder().encode(line) } catch {
                throw CarryonError(.library, "the recording cannot be encoded: \(error)", cause: error)
            }
            if sealing { data = Data(Self.sealedLine) + (try sealedCopy(of: data, in: bundle, masterKey: masterKey)).base64EncodedData() }
            try BundleFiles.append(data + Data("\n".utf8), to: Self.journal(in: bundle))
        } else {
            // Written whole: with every segment, those let go read back first.
            try restore()
            var data = try encodedWhole(&written)
            if sealing { data = Data(Self.sealedHeader) + (try sealedCopy(of: data, in: bundle, masterKey: masterKey)) }
            try BundleFiles.write(data, to: Self.file(in: bundle))
            // Its lines name the generation before: not read any more, however this ends.
            try? FileManager.default.removeItem(at: Self.journal(in: bundle))
        }
        wasKept(written)
    }

    /// `data` sealed under the master key for `bundle`.
    private func sealedCopy(of data: Data, in bundle: URL, masterKey: () throws(CarryonError) -> MasterKey) throws(CarryonError) -> Data {
        let key = try masterKey()
        do {
            return try AES.GCM.seal(data, using: key.key, authenticating: Self.context(bundle)).combined ?? Data()
        } catch {
            throw CarryonError(.keys, "the recording in \(bundle.path) cannot be sealed: \(error)", cause: error)
        }
    }

    /// The authenticated data of a bundle's sealed recording: its asset's id (the bundle's
    /// folder name), so that it opens in no other bundle.
    private static func context(_ bundle: URL) -> Data {
        Data("carryon-recording:\(bundle.lastPathComponent)".utf8)
    }
}
