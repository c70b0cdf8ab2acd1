import Foundation

/// `bytes` gzip'ed by the system's `gzip` (part of every Debian system), for tests of bodies
/// sent with `Content-Encoding: gzip`.
public func gzipped(_ bytes: [UInt8]) throws -> [UInt8] {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("carryon-gzip-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("body")
    try Data(bytes).write(to: file)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/gzip")
    process.arguments = ["-9", "-n", file.path]
    do { try process.run() } catch {
        throw TestSupportError("gzip is needed to make compressed test bodies (apt-get install -y gzip): \(error)")
    }
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw TestSupportError("gzip failed with status \(process.terminationStatus)") }
    return [UInt8](try Data(contentsOf: folder.appendingPathComponent("body.gz")))
}
