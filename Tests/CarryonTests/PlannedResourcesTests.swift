@testable import Carryon
import Testing

/// How a plan names its resources' files: in the rendition's folder, numbered in the order they
/// are added, with the extension their URI gives (or their kind's, when it gives none).
@Suite("PlannedResources naming")
struct PlannedResourcesTests {
    @Test("segments, init sections and ranged files are named in their styles, the URI's extension lowercased")
    func styles() {
        var resources = PlannedResources(assetID: "a")
        let video = resources.rendition("video")
        resources.add(uri: "https://cdn.example/v/init.MP4", range: nil, kind: .initSection, rendition: video, start: 0, duration: 0, estimate: 1)
        resources.add(uri: "https://cdn.example/v/s1.m4s?token=1", range: nil, kind: .segment, rendition: video, start: 0, duration: 6, estimate: 1)
        resources.add(uri: "https://cdn.example/v/s2", range: nil, kind: .segment, rendition: video, start: 6, duration: 6, estimate: 1)
        resources.add(uri: "https://cdn.example/v/all.ts", range: (offset: 0, length: 10), kind: .segment, rendition: video, start: 12, duration: 6, estimate: 10)
        #expect(resources.map(\.fileName) == ["video/init1.mp4", "video/00001.m4s", "video/00002.bin", "video/file1.ts"])
    }

    @Test("every range of one file names the same file, whichever kind named it first, when its URI gives no extension")
    func rangesOfOneFileShareAName() {
        var resources = PlannedResources(assetID: "a")
        let video = resources.rendition("video")
        resources.add(uri: "https://cdn.example/v/media", range: (offset: 100, length: 50), kind: .segment, rendition: video, start: 0, duration: 6, estimate: 50)
        resources.add(uri: "https://cdn.example/v/media", range: (offset: 0, length: 100), kind: .initSection, rendition: video, start: 0, duration: 0, estimate: 100)
        resources.add(uri: "https://cdn.example/w/other", range: (offset: 0, length: 100), kind: .initSection, rendition: video, start: 0, duration: 0, estimate: 100)
        resources.add(uri: "https://cdn.example/w/other", range: (offset: 100, length: 50), kind: .segment, rendition: video, start: 0, duration: 6, estimate: 50)
        #expect(resources.map(\.fileName) == ["video/file1.bin", "video/file1.bin", "video/file2.mp4", "video/file2.mp4"])
    }
}
