import ArgumentParser
import CarryonServer
import Foundation

/// `carryon origin`: serve a folder of HLS media over HTTP on loopback.
struct OriginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "origin",
        abstract: "Serve a folder of HLS media over HTTP, as a CDN would, to test downloads and players.",
        discussion: """
            Serves every file below FOLDER with byte ranges (suffix ranges included), If-Range, \
            HEAD, ETag and the HLS content types, on 127.0.0.1 unless --host says otherwise. \
            Nothing outside FOLDER can be read. The first line of output is the base URL; the \
            server runs until interrupted (Ctrl-C).

            Examples:
              carryon origin ./media
              carryon origin ./media --port 8080
            """
    )

    @Argument(help: "The folder to serve.")
    var folder: String

    @Option(help: "The port to listen on (0 picks a free one).")
    var port: Int = 0

    @Option(help: "The address to listen on.")
    var host: String = "127.0.0.1"

    func validate() throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("\(folder) is not a folder")
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
    }

    func run() async throws {
        do {
            try await Origin(root: folder, host: host, port: port).run { url in
                print(url)
                fflush(nil)
            }
        } catch {
            throw fail("the origin stopped: \(error)")
        }
    }
}
