/// What `verify` found in one asset's bundle: how much it read and checked, every resource
/// that is not as it was downloaded, and every manifest that is not as Carryon wrote it (see
/// ``DownloadSession/verify(_:record:)``).
public struct VerificationReport: Sendable, Codable, Hashable {
    /// The asset's id.
    public var id: String
    /// The asset's name.
    public var name: String
    /// The resources on disk that were checked.
    public var resources: Int
    /// The files they are in.
    public var files: Int
    /// The bytes read.
    public var bytes: Int
    /// Of ``resources``: checked against the SHA-256 recorded as they were downloaded; the rest
    /// (downloaded by a release before digests) by their length and structure only.
    public var hashed: Int
    /// Digests recorded by this check (`verify --record`), of resources that had none.
    public var recorded: Int
    /// Seconds the check took.
    public var seconds: Double
    /// Each damaged resource, in playback order.
    public var damage: [Damage]
    /// Each damaged manifest: `main.m3u8`, a rendition's playlist, the format's own (`main.mpd`),
    /// `manifest.json`. Empty in a report of an earlier release, which did not check them.
    public var manifests: [ManifestDamage]
    /// Whether the manifests were checked: not while the asset downloads or records (a run
    /// rewrites them), nor before its playlists were first read; false in a report of an
    /// earlier release.
    public var manifestsChecked: Bool

    /// Whether nothing is damaged.
    public var isIntact: Bool { damage.isEmpty && manifests.isEmpty }

    /// How many things are damaged, resources and manifests.
    public var damageCount: Int { damage.count + manifests.count }

    /// A report of asset `id`, with what was checked and found.
    public init(id: String, name: String, resources: Int = 0, files: Int = 0, bytes: Int = 0, hashed: Int = 0, recorded: Int = 0,
                seconds: Double = 0, damage: [Damage] = [], manifests: [ManifestDamage] = [], manifestsChecked: Bool = false) {
        self.id = id
        self.name = name
        self.resources = resources
        self.files = files
        self.bytes = bytes
        self.hashed = hashed
        self.recorded = recorded
        self.seconds = seconds
        self.damage = damage
        self.manifests = manifests
        self.manifestsChecked = manifestsChecked
    }

    private enum CodingKeys: String, CodingKey {
        case id, name, resources, files, bytes, hashed, recorded, seconds, damage, manifests, manifestsChecked
    }

    /// A report as written, an earlier release's (without `manifests`) too.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        name = try container.decode(String.self, forKey: .name)
        resources = try container.decode(Int.self, forKey: .resources)
        files = try container.decode(Int.self, forKey: .files)
        bytes = try container.decode(Int.self, forKey: .bytes)
        hashed = try container.decode(Int.self, forKey: .hashed)
        recorded = try container.decode(Int.self, forKey: .recorded)
        seconds = try container.decode(Double.self, forKey: .seconds)
        damage = try container.decode([Damage].self, forKey: .damage)
        manifests = try container.decodeIfPresent([ManifestDamage].self, forKey: .manifests) ?? []
        manifestsChecked = try container.decodeIfPresent(Bool.self, forKey: .manifestsChecked) ?? false
    }
}

/// A manifest of a bundle that is not as Carryon wrote it: gone, unreadable, not a manifest of
/// its kind, or not naming every file of its rendition (cut short). `verify --repair` writes the
/// manifests again from the stream's (see ``DownloadSession/beginRepair(_:damage:manifests:)``).
public struct ManifestDamage: Sendable, Codable, Hashable {
    /// The manifest, its path in the bundle (`video/index.m3u8`).
    public var file: String
    /// What is wrong, in words.
    public var message: String

    /// The damage of manifest `file`.
    public init(file: String, message: String) {
        self.file = file
        self.message = message
    }

    /// The damage as a line: the manifest and what is wrong.
    public var line: String { "manifest: \(file): \(message)" }
}

/// One resource of a bundle that is not as it was downloaded.
public struct Damage: Sendable, Codable, Hashable {
    /// What is wrong with a resource.
    public enum Kind: String, Sendable, Codable, Hashable {
        /// Its file is gone.
        case missing
        /// Its file ends before its bytes do.
        case truncated
        /// Its bytes are not those downloaded (the digest differs, or the file grew).
        case altered
        /// Its bytes do not hold together as the player will read them (no digest was recorded
        /// to compare, or the digest differs too).
        case structure
    }

    /// What is wrong.
    public var kind: Kind
    /// The file in the bundle (relative path).
    public var file: String
    /// The rendition it was planned for.
    public var rendition: String
    /// The URI it was fetched from.
    public var uri: String
    /// Where its bytes start in ``file``, when it shares the file with others.
    public var offset: Int?
    /// How many bytes it has in ``file``, when it shares the file with others.
    public var length: Int?
    /// What is wrong, in words.
    public var message: String
    /// The resource's row in the index, which `repair` fetches again.
    public var resource: Int64

    /// The damage of one resource.
    public init(kind: Kind, file: String, rendition: String, uri: String, offset: Int? = nil, length: Int? = nil, message: String,
                resource: Int64) {
        self.kind = kind
        self.file = file
        self.rendition = rendition
        self.uri = uri
        self.offset = offset
        self.length = length
        self.message = message
        self.resource = resource
    }

    /// The damage as a line: the file (and range), the rendition and what is wrong.
    public var line: String {
        let range = offset.map { " bytes \($0)-\($0 + max((length ?? 1) - 1, 0))" } ?? ""
        return "\(kind.rawValue): \(file)\(range) (rendition \(rendition)): \(message)"
    }
}
