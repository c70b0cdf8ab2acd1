@testable import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// The web app in the binary is exactly the one in `WebApp/` (Scripts/webapp.py writes it).
@Suite("The web app's files")
struct WebAppFilesTests {
    @Test("every file of WebApp/ is in the binary as it is on disk, and the binary serves no other")
    func embedded() throws {
        let folder = packageRoot.appendingPathComponent("WebApp")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        let served = Set(WebApp.files.keys.map { $0.isEmpty ? "index.html" : String($0.dropFirst("app/".count)) })
        #expect(Set(names) == served, "WebApp/ holds \(names); the binary serves \(served.sorted())")
        for name in names {
            let disk = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            let key = name == "index.html" ? "" : "app/\(name)"
            #expect(WebApp.files[key]?.text == disk.trimmingTrailingNewlines, "\(name) differs from the binary's copy: run python3 Scripts/webapp.py")
        }
    }
}

private extension String {
    var trimmingTrailingNewlines: String {
        var text = self
        while text.hasSuffix("\n") { text.removeLast() }
        return text
    }
}
