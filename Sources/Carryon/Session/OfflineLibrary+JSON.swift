import Foundation

/// A listing written as JSON — what `carryon list --json` prints — without every asset made
/// into a snapshot, encoded and decoded again: encoding was 85 µs of an asset's 150, and
/// decoding its figures 25 more (`list --json` took 1.4 s at 10,000 assets).
extension OfflineLibrary {
    /// A page of the library's assets (see ``assets(_:)``) as one JSON array: exactly what
    /// `JSONEncoder` writes of the page's `[AssetSnapshot]` with `.prettyPrinted`,
    /// `.sortedKeys`, `.withoutEscapingSlashes` and `.iso8601` dates, byte for byte. An asset
    /// that did not change since it was last listed (and that no live process holds) is
    /// written from its row, its figures copied as the index keeps them, never decoded.
    ///
    /// - Returns: The JSON, and the cursor of the next page (nil: this page is the last).
    /// - Throws: ``CarryonError/Code/invalidValue`` when the query's limit or cursor is not one
    ///   a listing can take.
    public func assetsJSON(_ query: AssetQuery) async throws(CarryonError) -> (json: Data, next: String?) {
        let writer = AssetJSONWriter(folders: LibraryFolders(library: self))
        let page = try await page(query, ownerships: try await index.holdings(ownershipContext()), live: [:]) { record, live, ownership, kept in
            // A row that cannot be written from (its access log grew since it was listed, its
            // figures cannot be spliced) is made a snapshot.
            if live == nil, writer.writeFromRow(record, ownership: ownership) { return true }
            writer.write(await snapshot(of: record, live: live, ownership: ownership, keeping: &kept))
            return true
        }
        return (writer.finished(), page.next)
    }
}

/// Where a library keeps its bundles and logs, for writing many assets' paths without a URL
/// made for each.
final class LibraryFolders: Sendable {
    /// The library's `bundles` folder, its path ending in `/`.
    let bundles: String
    /// The library's `logs` folder, its path ending in `/`.
    let logsPath: String
    /// The `logs` folder, open (-1 when it cannot be: access logs are then looked up by their
    /// whole path).
    let logs: Int32

    init(library: OfflineLibrary) {
        // The paths `bundleURL(for:)` and `AssetLogs.accessLogURL(for:)` give, for an id that is
        // one plain path component (see `AssetJSONWriter.isPlain`).
        bundles = library.bundleURL(for: "id").deletingLastPathComponent().path + "/"
        logsPath = AssetLogs(library: library).folder(for: "id").deletingLastPathComponent().path + "/"
        logs = open(logsPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    }

    deinit {
        if logs >= 0 { close(logs) }
    }

    /// The size of asset `id`'s access log, nil when there is none.
    func accessLogBytes(of id: String) -> Int? {
        guard logs >= 0 else { return BundleFiles.size(atPath: logsPath + id + "/access.log") }
        var info = stat()
        guard fstatat(logs, id + "/access.log", &info, 0) == 0 else { return nil }
        return Int(info.st_size)
    }
}

/// Writes the assets of a listing as the encoder writes each ``AssetSnapshot`` one level deep
/// in an array (see ``OfflineLibrary/assetsJSON(_:)``).
final class AssetJSONWriter {
    let folders: LibraryFolders
    /// Selections as compact JSON with sorted keys, each encoded once per writer (many assets
    /// share one).
    private var selections: [MediaSelection: [UInt8]] = [:]
    /// The array written so far.
    private var json = PrettyJSON(depth: 1)
    /// The count of assets in it.
    private var count = 0

    init(folders: LibraryFolders) {
        self.folders = folders
    }

    /// The array of the assets written, as the encoder writes an array: each object on its
    /// own lines, and an empty array with a blank line inside.
    func finished() -> Data {
        json.raw(count == 0 ? [UInt8(ascii: "["), 0x0A, 0x0A, UInt8(ascii: "]")] : [0x0A, UInt8(ascii: "]")])
        return Data(json.take())
    }

    /// Writes `snapshot`.
    func write(_ snapshot: AssetSnapshot) {
        startAsset()
        json.raw(Self.encoded(snapshot))
        count += 1
    }

    /// Writes asset `record` from its row alone, as its snapshot reads; false, writing nothing,
    /// when it may not be (see ``mayWriteFromRow(_:ownership:)``), when its figures cannot be
    /// spliced, or when its access log grew since (its snapshot is to be written instead).
    func writeFromRow(_ record: AssetRecord, ownership: TaskOwnership?) -> Bool {
        guard Self.mayWriteFromRow(record, ownership: ownership) else { return false }
        let start = json.count
        startAsset()
        guard spliceRow(record, ownership: ownership) else {
            // What a splice that failed wrote is forgotten.
            json.rollBack(to: start)
            return false
        }
        count += 1
        return true
    }

    /// What comes before an asset: the array's opening, or the comma after the one before.
    private func startAsset() {
        json.raw(count == 0 ? [UInt8(ascii: "["), 0x0A, 0x20, 0x20] : [UInt8(ascii: ","), 0x0A, 0x20, 0x20])
    }

    /// Whether asset `record` may be written from its row: its figures are current, no live
    /// process holds it and its owner wrote no progress, and its paths are the plain ones.
    static func mayWriteFromRow(_ record: AssetRecord, ownership: TaskOwnership?) -> Bool {
        ownership?.holder == nil && ownership?.progress == nil && record.figuresAreCurrent && record.figures != nil
            && record.bytesOnDisk != nil && isPlain(record.id)
    }

    /// Writes asset `record`'s object from its row; false when it cannot be (what was written of
    /// it is then the caller's to roll back).
    private func spliceRow(_ record: AssetRecord, ownership: TaskOwnership?) -> Bool {
        guard var figures = record.figures, let bytesOnDisk = record.bytesOnDisk else { return false }
        let bundle = folders.bundles + record.id
        let logBytes = folders.accessLogBytes(of: record.id)
        return figures.withUTF8 { text -> Bool in
            // The figures' members are in the snapshot's order (both sorted): each is spliced
            // where the snapshot has it, in one pass over them.
            guard var figures = CompactMembers(text) else { return false }
            // The playback summary was read from an access log of this size (see AssetFigures).
            let kept = figures.next(is: "accessLogBytes") ? figures.integer() : nil
            guard kept == logBytes, !figures.failed else { return false }
            let state = ownership?.effectiveState ?? record.state

            // Every member of AssetSnapshot, in sorted order; nil values left out.
            json.beginObject()
            json.key("bundlePath")
            json.string(bundle)
            guard figures.next(is: "bytesByRendition") else { return false }
            json.key("bytesByRendition")
            guard figures.splice(into: &json) else { return false }
            json.key("bytesOnDisk")
            json.number(bytesOnDisk)
            guard figures.next(is: "cache") else { return false }
            json.key("cache")
            guard figures.splice(into: &json) else { return false }
            if let completed = record.completedAt {
                json.key("completedAt")
                json.date(completed)
            }
            json.key("createdAt")
            json.date(record.createdAt)
            if let duration = record.duration {
                json.key("duration")
                json.number(duration)
            }
            if let error = record.errorMessage {
                json.key("error")
                json.string(error)
            }
            json.key("format")
            json.string(record.format)
            json.key("id")
            json.string(record.id)
            if let played = record.lastPlayedAt {
                json.key("lastPlayedAt")
                json.date(played)
            }
            if let live = record.options.live {
                json.key("live")
                guard let compact = compact(live), compact.withUnsafeBufferPointer({ json.splice($0) }) else { return false }
            }
            if record.planned, LocalManifest.manifests(ofFormat: record.format).contains(DASHFormat.localMPD) {
                json.key("mpd")
                json.string(bundle + "/" + DASHFormat.localMPD.path)
            }
            json.key("name")
            json.string(record.name)
            if figures.next(is: "playback") {
                if figures.isNull {
                    guard figures.skip() else { return false }
                } else {
                    json.key("playback")
                    guard figures.splice(into: &json) else { return false }
                }
            }
            if record.planned {
                json.key("playlist")
                json.string(bundle + "/" + LocalManifest.main.path)
            }
            json.key("policy")
            json.beginObject()
            if let expires = record.expiresAt {
                json.key("expiresAt")
                json.date(expires)
            }
            json.key("priority")
            json.string(record.priority.rawValue)
            json.endObject()
            if !record.problems.isEmpty {
                json.key("problems")
                json.beginArray()
                for problem in record.problems {
                    json.element()
                    json.string(problem)
                }
                json.endArray()
            }
            guard figures.next(is: "progress") else { return false }
            json.key("progress")
            guard figures.splice(into: &json), figures.isFinished else { return false }
            if let selection = record.selection {
                json.key("selection")
                guard let compact = compact(selection), compact.withUnsafeBufferPointer({ json.splice($0) }) else { return false }
            }
            json.key("state")
            json.string(state.rawValue)
            if let range = record.options.timeRange {
                json.key("timeRange")
                guard let compact = compact(range), compact.withUnsafeBufferPointer({ json.splice($0) }) else { return false }
            }
            json.key("url")
            json.string(record.url)
            json.endObject()
            return true
        }
    }

    /// `snapshot` as the encoder writes it one level deep: its own pretty form, each line but
    /// the blank ones (inside an empty array or object) indented once more. No string in it
    /// holds a line break: the encoder escapes them.
    static func encoded(_ snapshot: AssetSnapshot) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let pretty = (try? encoder.encode(snapshot)) ?? Data("{}".utf8)
        var indented: [UInt8] = []
        indented.reserveCapacity(pretty.count * 5 / 4)
        var previous: UInt8 = 0
        for byte in pretty {
            if previous == 0x0A, byte != 0x0A { indented.append(contentsOf: [0x20, 0x20]) }
            indented.append(byte)
            previous = byte
        }
        return indented
    }

    /// `range` as the encoder writes it compactly, with sorted keys.
    private func compact(_ range: some Encodable) -> [UInt8]? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(range)).map { [UInt8]($0) }
    }

    private func compact(_ selection: MediaSelection) -> [UInt8]? {
        if let known = selections[selection] { return known }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        guard let encoded = try? encoder.encode(selection) else { return nil }
        selections[selection] = [UInt8](encoded)
        return [UInt8](encoded)
    }

    /// Whether `id` is one plain path component, its paths those of ``LibraryFolders``
    /// with the id appended (every id the library makes is).
    static func isPlain(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }
}
