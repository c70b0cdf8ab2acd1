import Carryon
import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// The daemon's API under a fuzzer: schemathesis (PyPI) reads the served OpenAPI document and
/// sends what it allows and what it does not; no request may get a 5xx. The daemon takes
/// loopback streams only, so that nothing the fuzzer names is reached beyond this machine.
@Suite("The daemon's API under a fuzzer", .heavy)
struct APIFuzzTests {
    @Test("schemathesis finds no request that gets a 5xx")
    func noServerErrors() async throws {
        guard let schemathesis = findExecutable("schemathesis") else {
            throw TestSupportError("schemathesis is not installed, and this test fuzzes the daemon's API with it: python3 -m pip install schemathesis==4.32.5")
        }
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(root: folder.appendingPathComponent("library"))
            let session = try await DownloadSession(library: library)
            var server = try PlaybackServer(source: PlaybackSource(library: library, session: session))
            server.api = DaemonAPI(session: session, streams: StreamURLRule(loopbackOnly: true))
            try await server.withRunning { handle in
                // The event stream does not end: it has tests of its own. Run in the temporary
                // folder, where schemathesis and Hypothesis leave their caches.
                let result = try await run(schemathesis, [
                    "run", handle.baseURL + "/api/openapi.json", "--url", handle.baseURL, "--checks", "not_a_server_error",
                    "--max-examples", "8", "--phases", "coverage,fuzzing", "--exclude-path", "/api/events",
                    "--request-timeout", "10", "--seed", "7", "--no-color", "--generation-database", "none",
                ], in: folder)
                let output = result.standardOutput + result.standardError
                #expect(result.status == 0, "\(output.suffix(4000))")
                #expect(output.contains("passed") && !output.contains("failed,"), "\(output.suffix(2000))")
            }
            await session.shutdown()
        }
    }
}
