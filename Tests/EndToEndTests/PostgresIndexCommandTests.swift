import Carryon
import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// The commands on a library whose index is a PostgreSQL database (`--index`, `CARRYON_INDEX`),
/// as a fleet's machines use it: the real binary, a cluster of the test's own over TCP.
@Suite("carryon on a PostgreSQL index", .heavy)
struct PostgresIndexCommandTests {
    @Test("download with --index, then list, show, serve and delete with CARRYON_INDEX: the rows are in PostgreSQL, the folder has no index.sqlite, ffmpeg decodes every frame")
    func commandsOnPostgres() async throws {
        let server = try PostgresServer()
        defer { server.stop() }
        try server.createDatabase("fleet")
        let index = server.url(database: "fleet")
        let environment = ["CARRYON_INDEX": index]
        try await withTemporaryDirectory { folder in
            let library = folder.path
            let id = try await Origin(root: sampleMedia.path).withRunning { origin in
                let result = try await runCarryon(["download", origin.baseURL + "/ts/270p/index.m3u8", "--library", library, "--index", index])
                #expect(result.status == 0, "\(result.standardError)")
                return try #require(result.standardOutput.split(separator: "\n").last.map(String.init))
            }
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("index.sqlite").path))
            #expect(try server.psql("SELECT id || ' ' || state FROM asset", database: "fleet") == "\(id) completed\n")

            let list = try await runCarryon(["list", "--library", library, "--json"], environment: environment)
            #expect(list.status == 0, "\(list.standardError)")
            let assets = try JSONDecoder.iso8601.decode([AssetSnapshot].self, from: Data(list.standardOutput.utf8))
            #expect(assets.map(\.id) == [id] && assets.first?.state == .completed)
            // Without the index, the folder is an empty library of its own: nothing is listed.
            let elsewhere = try await runCarryon(["list", "--library", library, "--json", "--index", "sqlite"])
            #expect(elsewhere.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "[\n\n]" || elsewhere.standardOutput.contains("[]"),
                    "\(elsewhere.standardOutput)")

            let serve = try RunningProcess(carryon: ["serve", "--library", library], environment: environment)
            var lines = serve.lines.makeAsyncIterator()
            let base = try #require(await lines.next())
            let served = try await decodedVideoFrames("\(base)/\(id)/main.m3u8")
            let original = try await decodedVideoFrames(sampleMedia.appendingPathComponent("ts/270p/index.m3u8").path)
            #expect(served == original && original > 0, "served \(served) frames of \(original)")
            serve.kill(SIGINT)
            #expect(await serve.wait() == 0)

            let delete = try await runCarryon(["delete", id, "--library", library], environment: environment)
            #expect(delete.status == 0, "\(delete.standardError)")
            #expect(try server.psql("SELECT count(*) FROM asset", database: "fleet") == "0\n")
        }
    }

    @Test("an index URL that cannot be read, or a server that does not answer: the error names it, never the password")
    func badIndex() async throws {
        try await withTemporaryDirectory { folder in
            let typo = try await runCarryon(["list", "--library", folder.path, "--index", "postgress://fleet:hunter2@db/carryon"])
            #expect(typo.status != 0 && typo.standardError.contains("postgress") && !typo.standardError.contains("hunter2"), "\(typo.standardError)")
            let port = try ServerProgram.freePort()
            let down = try await runCarryon(["list", "--library", folder.path],
                                            environment: ["CARRYON_INDEX": "postgres://fleet:hunter2@127.0.0.1:\(port)/carryon?sslmode=disable"])
            #expect(down.status != 0 && down.standardError.contains("127.0.0.1:\(port)") && !down.standardError.contains("hunter2"),
                    "\(down.standardError)")
            // The hint is about the index, not the library folder.
            #expect(down.standardError.contains("hint: Check --index or CARRYON_INDEX"), "\(down.standardError)")
        }
    }
}
