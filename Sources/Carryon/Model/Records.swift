import Foundation

/// The life of a download task (and of its asset in the library).
public enum DownloadState: String, Sendable, Codable, CaseIterable {
    /// Queued: will run when the session has room.
    case waiting
    /// Fetching playlists or media.
    case running
    /// Stopped by the user, by an interrupt, or by a process that died mid-download; resumable.
    case suspended
    /// Every selected resource is on disk and checked.
    case completed
    /// Stopped by an error; what is done is kept and `resume` continues.
    case failed
    /// Stopped for good; its data was removed.
    case cancelled

    /// Whether the task can make progress again.
    public var isResumable: Bool { self == .suspended || self == .failed || self == .waiting }
}

/// A request header sent with every request of a task.
public struct HTTPHeader: Sendable, Hashable, Codable {
    /// The header's name (`Authorization`, `Cookie`).
    public var name: String
    /// The header's value, sent as it is.
    public var value: String

    /// Creates a header with a name and a value.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// One asset: a row of the `asset` table.
struct AssetRecord: Codable, Sendable {
    var id: String
    var name: String
    var url: String
    var state: DownloadState
    var errorMessage: String?
    var options: DownloadOptions
    var headers: [HTTPHeader]
    /// The chosen variant and renditions, once the playlists were read.
    var selection: MediaSelection?
    /// Whether the playlists were read and the resources planned.
    var planned: Bool
    var createdAt: Date
    var updatedAt: Date
    var completedAt: Date?
    /// The presentation's duration in seconds, once planned.
    var duration: Double?
    /// When the asset expires: a purge removes it from then on.
    var expiresAt: Date? = nil
    var priority: AssetPriority = .default
    /// When a player last asked the playback server for any of it.
    var lastPlayedAt: Date? = nil
    /// The stream's manifest format (`StreamFormat.name`): `hls` for every asset recorded before
    /// formats were, and until the first plan says otherwise.
    var format: String = "hls"
    /// The stored values that could not be read, in words (see `init(row:)`); never written.
    var problems: [String] = []
    /// How many changes to its plan, resources and bundle the index counted; read, never
    /// written with the record (see ``AssetFigures``).
    var changes: Int64 = 1
    /// The count of changes ``figures`` were computed at; nil when there are none.
    var figuresOf: Int64? = nil
    /// What a listing shows of the asset, as JSON (``AssetFigures``), current while
    /// ``figuresOf`` equals ``changes``.
    var figures: String? = nil
    /// The bundle's bytes on disk and the progress fraction, as ``figures`` says them, for
    /// listings that need no more.
    var bytesOnDisk: Int? = nil
    var fraction: Double? = nil

    /// Whether ``figures`` say how the asset is now.
    var figuresAreCurrent: Bool { figuresOf != nil && figuresOf == changes }

    enum CodingKeys: String, CodingKey {
        case id, name, url, state, errorMessage, options, headers, selection, planned, createdAt, updatedAt, completedAt, duration,
             expiresAt, priority, lastPlayedAt, format
    }
}

/// A rendition being downloaded into a bundle: the variant's video (`video`) or an audio or
/// subtitle rendition (`audio-en`, `subtitles-de`, …).
struct RenditionRecord: Codable, Sendable {
    var assetID: String
    /// The rendition's folder in the bundle, unique within the asset.
    var key: String
    /// `VIDEO` (the variant itself), `AUDIO` or `SUBTITLES` (`MEDIA` for a lone media playlist).
    var type: TrackType
    var name: String
    var language: String?
    /// The media playlist's URL at the origin.
    var uri: String
    var isMain: Bool
    var duration: Double
    /// Position in the selection: main renditions first.
    var position: Int
}

/// Whether a resource is on disk.
enum ResourceState: String, Sendable, Codable {
    case pending
    case done
}

/// What a resource is to the player.
enum ResourceKind: String, Sendable, Codable {
    case segment
    case initSection
}

/// One resource to fetch: a segment or an init section, or one byte range of a shared file.
struct ResourceRecord: Codable, Sendable {
    var id: Int64?
    var assetID: String
    /// The rendition it was planned for (a resource shared by renditions is fetched once).
    var renditionKey: String
    /// Playback order across the selection: what is fetched first.
    var ordinal: Int
    var kind: ResourceKind
    /// The absolute URL at the origin.
    var uri: String
    /// The byte range at the origin, when the resource is part of a file.
    var rangeOffset: Int?
    var rangeLength: Int?
    /// The file in the bundle (relative path). Ranges of one origin file share one local file,
    /// at the same offsets.
    var fileName: String
    var state: ResourceState
    /// Bytes on disk once done.
    var bytes: Int?
    /// The expected size: exact for a byte range, else the estimate.
    var expectedBytes: Int
    /// Whether `expectedBytes` is exact.
    var exactSize: Bool
    var startTime: Double
    var duration: Double
    /// Validators from the first response, for `If-Range` when resuming.
    var etag: String?
    var lastModified: String?
    /// The SHA-256 of the resource's bytes (lowercase hex), computed as they were written; nil
    /// until it is on disk, and for a resource an earlier release fetched (see
    /// ``BundleVerifier``).
    var sha256: String? = nil

    var byteRange: ClosedRange<Int>? {
        guard let rangeOffset, let rangeLength else { return nil }
        return rangeOffset...(rangeOffset + rangeLength - 1)
    }
}

// The index's column is `assetId`, as the first release named it; in Swift an asset's id is
// `assetID`, as everywhere else.
extension RenditionRecord {
    enum CodingKeys: String, CodingKey {
        case assetID = "assetId", key, type, name, language, uri, isMain, duration, position
    }
}

extension ResourceRecord {
    enum CodingKeys: String, CodingKey {
        case id, assetID = "assetId", renditionKey, ordinal, kind, uri, rangeOffset, rangeLength, fileName, state, bytes, expectedBytes,
             exactSize, startTime, duration, etag, lastModified, sha256
    }
}

/// Where a resource stands in an asset's playback order: its ordinal, then its row id (which
/// breaks ties between resources a later plan gave the same ordinal).
struct ResourcePlace: Sendable, Hashable {
    var ordinal: Int
    var id: Int64

    init(ordinal: Int, id: Int64) {
        self.ordinal = ordinal
        self.id = id
    }

    /// The place of `resource`, a row of the index.
    init(_ resource: ResourceRecord) {
        ordinal = resource.ordinal
        id = resource.id ?? 0
    }
}

extension ResourceRecord {
    /// What names a resource on disk: its file, and the offset of its byte range in the file
    /// (`video/file1.mp4@884`) when it is one of several ranges of the file.
    static func onDiskKey(_ fileName: String, offset: Int?) -> String {
        offset.map { "\(fileName)@\($0)" } ?? fileName
    }
}
