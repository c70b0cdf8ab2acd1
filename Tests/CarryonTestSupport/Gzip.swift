import Foundation

/// `bytes` gzip'ed by the system's `gzip` (part of every Debian system), for tests of bodies
/// sent with `Content-Encoding: gzip`.
public func gzipped(_ bytes: [UInt8]) throws -> [UInt8] {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("carryon-gzip-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("body")
    try Data(bytes).write(to: file)
    // A small, short program: run without a heavy-work turn.
    let child: ChildProcess
    do { child = try ChildProcess(URL(fileURLWithPath: "/bin/gzip"), ["-9", "-n", file.path], light: true) } catch {
        throw TestSupportError("gzip is needed to make compressed test bodies (apt-get install -y gzip): \(error)")
    }
    // gzip writes to the file, not to its output: the errors are read first, whole, then the
    // (empty) output, and the child is waited for whatever the reads say.
    let errors = Result { try child.readErrors() }
    let output = Result { try child.readOutput { _ in } }
    let termination = child.waitForExit()
    try output.get()
    let message = try errors.get()
    guard termination == .exited(0) else {
        throw TestSupportError("gzip failed (\(termination)): \(String(decoding: message, as: UTF8.self))")
    }
    return [UInt8](try Data(contentsOf: folder.appendingPathComponent("body.gz")))
}
