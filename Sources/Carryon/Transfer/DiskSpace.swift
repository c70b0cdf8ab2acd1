#if canImport(Glibc)
import Glibc
#endif

/// The space of the file system a library lives on: how much is free and how big it is. Both
/// are closures, so that the storage rules are tested against a disk of any size without
/// filling one.
public struct DiskSpace: Sendable {
    /// The bytes free for an unprivileged user now.
    public var free: @Sendable () -> Int
    /// The file system's size in bytes.
    public var total: @Sendable () -> Int

    /// A disk whose free and total bytes the closures give.
    public init(free: @escaping @Sendable () -> Int, total: @escaping @Sendable () -> Int) {
        self.free = free
        self.total = total
    }

    /// The file system holding `path`, as statvfs(3) reports it (a path that cannot be read
    /// reports `Int.max`: no rule can be enforced on what cannot be measured).
    public static func fileSystem(at path: String) -> DiskSpace {
        DiskSpace(free: { Self.freeBytes(at: path) }, total: { Self.totalBytes(at: path) })
    }

    /// The size of the file system holding `path`.
    public static func totalBytes(at path: String) -> Int {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return Int.max }
        let (bytes, overflow) = Int(info.f_blocks).multipliedReportingOverflow(by: Int(info.f_frsize))
        return overflow ? Int.max : bytes
    }

    /// The free bytes for an unprivileged user on the file system holding `path` (statvfs).
    static func freeBytes(at path: String) -> Int {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return Int.max }
        let (bytes, overflow) = Int(info.f_bavail).multipliedReportingOverflow(by: Int(info.f_frsize))
        return overflow ? Int.max : bytes
    }

    /// The free space a download keeps when the library sets no minimum of its own: 1 GiB, or
    /// 5 % of a disk smaller than 20 GiB. A downloader must never be the process that fills
    /// the disk.
    public var defaultReserve: Int {
        min(1 << 30, total() / 20)
    }
}
