import Carryon
import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// The storage commands end to end: a quota a download would break fails it before it starts
/// with the sizes, a policy makes an asset expire, and purge removes it.
@Suite("carryon storage, policy, purge and logs", .heavy)
struct StorageCommandTests {
    @Test("a download that would break the quota fails before it starts; purge removes what expired; logs parse")
    func quotaPolicyPurgeLogs() async throws {
        try await withTemporaryDirectory { folder in
            let library = folder.path
            try await Origin(root: sampleMedia.path).withRunning { origin in
                let first = try await runCarryon(["download", origin.baseURL + "/ts/180p/index.m3u8", "--library", library,
                                                  "--expires", "never", "--priority", "important"])
                #expect(first.status == 0, "\(first.standardError)")
                let id = try #require(first.standardOutput.split(separator: "\n").last.map(String.init))
                let settings = try await runCarryon(["storage", "--library", library, "--quota", "1K"])
                #expect(settings.status == 0, "\(settings.standardError)")
                let refused = try await runCarryon(["download", origin.baseURL + "/ts/270p/index.m3u8", "--library", library])
                #expect(refused.status == 1)
                #expect(refused.standardError.contains("quota") && refused.standardError.contains("bytes"), "\(refused.standardError)")

                // Nothing expired and the only other asset is refused: the important one stays until it expires.
                let policy = try await runCarryon(["policy", id, "--library", library, "--expires", "0s", "--json"])
                #expect(policy.status == 0, "\(policy.standardError)")
                let dry = try await runCarryon(["purge", "--library", library, "--dry-run", "--json"])
                let plan = try JSONDecoder().decode(PurgePlan.self, from: Data(dry.standardOutput.utf8))
                #expect(plan.removals.map(\.id).contains(id) && plan.removals.first { $0.id == id }?.reason == .expired)
                #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("bundles/\(id)").path))

                let logs = try await runCarryon(["logs", id, "--library", library, "--access"])
                let log = try W3CLog(parsing: logs.standardOutput)
                #expect(log.version == "1.0" && log.fields.contains("c-observed-bitrate"))
                #expect(log.entries.count >= 3 && log.entries.allSatisfy { $0["x-event"] == "download" && $0["sc-status"] == "200" })

                let purge = try await runCarryon(["purge", "--library", library])
                #expect(purge.status == 0 && purge.standardOutput.contains("removed  \(id)"), "\(purge.standardOutput)")
                #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("bundles/\(id)").path))
                #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("logs/\(id)").path))
            }
        }
    }
}
