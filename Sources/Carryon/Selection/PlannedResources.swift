/// A plan's resources in playback order, each (URI, byte range) once, with its local file name:
/// a collection of ``ResourceRecord``s, pending, their ordinal their place.
///
/// Kept in columns rather than as records: a plan of a million segments held as
/// `ResourceRecord`s took 216 bytes a row and a heap-allocated file name each (259 MB); here a
/// row is about 70 bytes — the URI (shared with the playlist's segment), the byte range, times
/// and estimate, and the file name as a number in one of the naming styles every format uses
/// (`video/00001.ts`, `video/init1.mp4`, `video/file1.mp4`), written out only when asked for.
/// ``add(uri:range:kind:rendition:start:duration:estimate:)`` finds a resource named twice and
/// names new ones, for every format alike.
struct PlannedResources: RandomAccessCollection, Sendable {
    /// The asset the resources belong to.
    let assetID: String
    /// The ordinal of the first row: 0, or the rows of the plan this one adds to (a round of a
    /// recording that plans only what it appended; see ``DownloadPlan/appendsTo``).
    var firstOrdinal = 0
    /// The renditions' keys (folder names), by the number rows refer to them with.
    private(set) var renditionKeys: [String] = []

    private var uris: [String] = []
    /// The rendition each resource was planned for, and the one whose folder holds its file
    /// (another, for a range of a file an earlier rendition named first).
    private var renditions: [Int32] = []
    private var folders: [Int32] = []
    private var styles: [Style] = []
    /// The number in the file's name, in its style.
    private var numbers: [Int32] = []
    /// The byte range, `offsets` `Int.min` for a whole resource.
    private var offsets: [Int] = []
    private var lengths: [Int] = []
    private var starts: [Double] = []
    private var durations: [Double] = []
    private var estimates: [Int] = []
    /// The extension of each row's file name, by its number in `extensions`: read from the URI
    /// once, when the row is added, not each time the name is written.
    private var extensionNumbers: [Int32] = []
    private var extensions: [String] = []
    /// Names given as they are, by row (a format with its own naming).
    private var givenNames: [Int: String] = [:]

    /// Finds a resource named twice.
    private var slots = ResourceSlots()
    /// Per rendition: the last numbers given in each style.
    private var counters: [Counters] = []
    /// An origin file whose ranges are resources → its folder and number.
    private var rangedFiles: [String: (folder: Int32, number: Int32, namedAsInit: Bool)] = [:]
    /// Set once the rows are in playback order: nothing more is added.
    private var isOrdered = false

    private enum Style: UInt8, Sendable {
        /// `key/00001.ext`, a segment of its own.
        case segment
        /// `key/init1.ext`, an init section of its own.
        case initSection
        /// `key/file1.ext`, a file whose ranges are resources.
        case rangedFile
        /// A name given as it is.
        case given
    }

    private struct Counters: Sendable {
        var segment: Int32 = 0
        var initSection: Int32 = 0
        var file: Int32 = 0
    }

    /// An empty plan's resources for asset `assetID`.
    init(assetID: String) {
        self.assetID = assetID
    }

    /// `records`, in their order, with their names as given.
    init(assetID: String, records: [ResourceRecord]) {
        self.init(assetID: assetID)
        for record in records {
            let rendition = self.rendition(record.renditionKey)
            append(uri: record.uri, offset: record.rangeOffset, length: record.rangeLength, kind: record.kind,
                   rendition: rendition, folder: rendition, style: .given, number: 0, start: record.startTime,
                   duration: record.duration, estimate: record.expectedBytes, exact: record.exactSize)
            givenNames[uris.count - 1] = record.fileName
        }
    }

    /// The number rows use for the rendition `key`, added when new.
    mutating func rendition(_ key: String) -> Int32 {
        if let index = renditionKeys.firstIndex(of: key) { return Int32(index) }
        renditionKeys.append(key)
        counters.append(Counters())
        return Int32(renditionKeys.count - 1)
    }

    /// Makes room for `count` more resources.
    mutating func reserve(_ count: Int) {
        let total = uris.count + count
        uris.reserveCapacity(total)
        renditions.reserveCapacity(total)
        folders.reserveCapacity(total)
        styles.reserveCapacity(total)
        numbers.reserveCapacity(total)
        offsets.reserveCapacity(total)
        lengths.reserveCapacity(total)
        starts.reserveCapacity(total)
        durations.reserveCapacity(total)
        estimates.reserveCapacity(total)
        extensionNumbers.reserveCapacity(total)
        var slots = takeSlots()
        slots.reserve(total, hashOf: { hash(at: $0) })
        self.slots = slots
    }

    /// The slots, moved out of `self`, so that growing them can read the rows without a copy of
    /// every column (a closure over `self` while `self` is changed would copy them each time).
    private mutating func takeSlots() -> ResourceSlots {
        var taken = ResourceSlots()
        swap(&taken, &slots)
        return taken
    }

    /// Adds the resource at `uri` (its `range` of offset and length, or all of it) for the
    /// rendition numbered `rendition`, named in the rendition's folder in the order resources
    /// are added — unless the same URI and range were added before, whose row is returned.
    ///
    /// `number`, when given, is the number in the file's name instead of the next in order (of
    /// a ranged file: the number of the file, for a URI named first): a plan of part of a
    /// stream (a ``TimeRange``) numbers each file by its place in the whole stream, so that a
    /// wider part of it names the files it shares with a narrower one alike.
    ///
    /// - Returns: The resource's row.
    @discardableResult
    mutating func add(uri: String, range: (offset: Int, length: Int)?, kind: ResourceKind, rendition: Int32,
                      start: Double, duration: Double, estimate: Int, number given: Int32? = nil) -> Int {
        let hash = ResourceSlots.hash(uri: uri, offset: range?.offset, length: range?.length)
        if let row = slots.find(hash: hash, isMatch: { row in
            uris[row] == uri && offset(at: row) == range?.offset && length(at: row) == range?.length
        }) {
            return row
        }
        precondition(!isOrdered, "a resource added to a plan after its resources were put in playback order")
        let folder: Int32, style: Style, number: Int32
        var namedAsInit = kind == .initSection
        if range != nil {
            if let file = rangedFiles[uri] {
                (folder, number, namedAsInit) = file
            } else {
                counters[Int(rendition)].file += 1
                (folder, number) = (rendition, given ?? counters[Int(rendition)].file)
                rangedFiles[uri] = (folder, number, namedAsInit)
            }
            style = .rangedFile
        } else if kind == .initSection {
            counters[Int(rendition)].initSection += 1
            (folder, style, number) = (rendition, .initSection, given ?? counters[Int(rendition)].initSection)
        } else {
            counters[Int(rendition)].segment += 1
            (folder, style, number) = (rendition, .segment, given ?? counters[Int(rendition)].segment)
        }
        append(uri: uri, offset: range?.offset, length: range?.length, kind: kind, rendition: rendition, folder: folder,
               style: style, number: number, start: start, duration: duration, estimate: estimate, exact: range != nil,
               namedAsInit: namedAsInit)
        var slots = takeSlots()
        slots.insert(uris.count - 1, hash: hash, hashOf: { self.hash(at: $0) })
        self.slots = slots
        return uris.count - 1
    }

    private mutating func append(uri: String, offset: Int?, length: Int?, kind: ResourceKind, rendition: Int32, folder: Int32,
                                 style: Style, number: Int32, start: Double, duration: Double, estimate: Int, exact: Bool,
                                 namedAsInit: Bool = false) {
        uris.append(uri)
        renditions.append(rendition)
        folders.append(folder)
        styles.append(style)
        kinds.append((kind == .initSection ? 1 : 0) | (exact ? 2 : 0) | (namedAsInit ? 4 : 0))
        numbers.append(number)
        offsets.append(offset ?? .min)
        lengths.append(length ?? .min)
        starts.append(start)
        durations.append(duration)
        estimates.append(estimate)
        // A file whose ranges are resources takes the extension of the kind that named it first,
        // so that all its ranges name the same file.
        let namingKind: ResourceKind = style == .rangedFile ? (namedAsInit ? .initSection : .segment) : kind
        extensionNumbers.append(style == .given ? -1 : extensionNumber(DownloadPlan.fileExtension(of: uri, kind: namingKind)))
    }

    /// The number of `ext` in `extensions`, added when new.
    private mutating func extensionNumber(_ ext: String) -> Int32 {
        if let last = extensions.indices.last, extensions[last] == ext { return Int32(last) }
        if let index = extensions.firstIndex(of: ext) { return Int32(index) }
        extensions.append(ext)
        return Int32(extensions.count - 1)
    }

    /// Bit 0: an init section; bit 1: the size is exact; bit 2: its file's extension is an init
    /// section's (a range of a file an init section named first).
    private var kinds: [UInt8] = []

    private func hash(at row: Int) -> Int {
        ResourceSlots.hash(uri: uris[row], offset: offset(at: row), length: length(at: row))
    }

    private func offset(at row: Int) -> Int? { offsets[row] == .min ? nil : offsets[row] }
    private func length(at row: Int) -> Int? { lengths[row] == .min ? nil : lengths[row] }

    /// The bundle-relative file of the resource at `row`.
    func fileName(at row: Int) -> String {
        if styles[row] == .given { return givenNames[row] ?? "" }
        let folder = renditionKeys[Int(folders[row])]
        return "\(folder)/\(fileNameInFolder(at: row))"
    }

    /// The file name of the resource at `row` within its rendition's folder (`00001.ts`,
    /// `init1.mp4`, `file1.mp4`); a given name whole.
    private func fileNameInFolder(at row: Int) -> String {
        let style = styles[row]
        if style == .given { return givenNames[row] ?? "" }
        let ext = extensions[Int(extensionNumbers[row])]
        switch style {
        case .segment: return "\(DownloadPlan.zeroPadded(Int(numbers[row]), to: 5)).\(ext)"
        case .initSection: return "init\(numbers[row]).\(ext)"
        case .rangedFile, .given: return "file\(numbers[row]).\(ext)"
        }
    }


    /// The estimated or exact size of the resource at `row`.
    func estimate(at row: Int) -> Int { estimates[row] }

    /// The bytes planned for each rendition (by key): exact sizes and estimates.
    var estimatedBytesByRendition: [String: Int] {
        var bytes = [Int](repeating: 0, count: renditionKeys.count)
        for row in uris.indices { bytes[Int(renditions[row])] += estimates[row] }
        return Dictionary(uniqueKeysWithValues: zip(renditionKeys, bytes))
    }

    /// Sets the estimate of every resource of `rendition` whose size is not exact to
    /// `estimate(duration)`, for a format that learns the bitrate only after adding them.
    mutating func reestimate(rendition: Int32, _ estimate: (ResourceKind, Double) -> Int) {
        for row in uris.indices where renditions[row] == rendition && kinds[row] & 2 == 0 {
            estimates[row] = estimate(kinds[row] & 1 == 1 ? .initSection : .segment, durations[row])
        }
    }

    /// Puts the resources in the order they are fetched: the main selection's renditions
    /// (`mainKeys`) first, interleaved by time, each init section before the segments it starts,
    /// ties broken by the renditions' `positions`; then the extra selections likewise.
    mutating func putInPlaybackOrder(mainKeys: Set<String>, positions: [String: Int]) {
        let isMain = renditionKeys.map(mainKeys.contains)
        let position = renditionKeys.map { positions[$0, default: 0] }
        var order = Array(uris.indices)
        order.sort { lhs, rhs in
            let lhsMain = isMain[Int(renditions[lhs])], rhsMain = isMain[Int(renditions[rhs])]
            if lhsMain != rhsMain { return lhsMain }
            if starts[lhs] != starts[rhs] { return starts[lhs] < starts[rhs] }
            let lhsInit = kinds[lhs] & 1 == 1, rhsInit = kinds[rhs] & 1 == 1
            if lhsInit != rhsInit { return lhsInit }
            return position[Int(renditions[lhs])] < position[Int(renditions[rhs])]
        }
        isOrdered = true
        // Found by row no more: the rows move.
        slots = ResourceSlots()
        rangedFiles = [:]
        guard order != Array(uris.indices) else { return }
        func reordered<T>(_ column: [T]) -> [T] { order.map { column[$0] } }
        uris = reordered(uris)
        renditions = reordered(renditions)
        folders = reordered(folders)
        styles = reordered(styles)
        kinds = reordered(kinds)
        numbers = reordered(numbers)
        offsets = reordered(offsets)
        lengths = reordered(lengths)
        starts = reordered(starts)
        durations = reordered(durations)
        estimates = reordered(estimates)
        extensionNumbers = reordered(extensionNumbers)
        var names: [Int: String] = [:]
        for (row, old) in order.enumerated() { if let name = givenNames[old] { names[row] = name } }
        givenNames = names
    }

    // MARK: RandomAccessCollection

    var startIndex: Int { 0 }
    var endIndex: Int { uris.count }

    /// The resource at `row`, as the index stores it: pending, its ordinal its row (after
    /// ``firstOrdinal``).
    subscript(row: Int) -> ResourceRecord {
        ResourceRecord(id: nil, assetID: assetID, renditionKey: renditionKeys[Int(renditions[row])], ordinal: firstOrdinal + row,
                       kind: kinds[row] & 1 == 1 ? .initSection : .segment, uri: uris[row],
                       rangeOffset: offset(at: row), rangeLength: length(at: row), fileName: fileName(at: row),
                       state: .pending, bytes: nil, expectedBytes: estimates[row], exactSize: kinds[row] & 2 == 2,
                       startTime: starts[row], duration: durations[row], etag: nil, lastModified: nil)
    }
}
