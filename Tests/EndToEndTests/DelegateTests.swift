import Carryon
import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// The AVAssetDownloadDelegate-style callbacks, in the order a ported app expects them.
@Suite("Delegate callbacks")
struct DelegateTests {
    final class Recorder: DownloadSessionDelegate {
        let calls = Locked<[String]>([])
        let loaded = Locked<[String: [DownloadProgress.TimeRange]]>([:])
        let expected = Locked<[String: DownloadProgress.TimeRange]>([:])
        let finished = Locked<(CheckedContinuation<Void, Never>?, Bool)>((nil, false))

        func downloadTask(_ task: DownloadTask, didLoad timeRange: DownloadProgress.TimeRange,
                          totalTimeRangesLoaded: [DownloadProgress.TimeRange],
                          timeRangeExpectedToLoad: DownloadProgress.TimeRange, for rendition: String) {
            calls.withLock { $0.append("didLoad \(rendition)") }
            loaded.withLock { $0[rendition] = totalTimeRangesLoaded }
            expected.withLock { $0[rendition] = timeRangeExpectedToLoad }
        }
        func downloadTask(_ task: DownloadTask, didResolve mediaSelection: MediaSelection) {
            calls.withLock { $0.append("didResolve") }
        }
        func downloadTask(_ task: DownloadTask, didCompleteFor rendition: String) {
            calls.withLock { $0.append("didCompleteFor \(rendition)") }
        }
        func downloadTask(_ task: DownloadTask, willDownloadTo location: URL) {
            calls.withLock { $0.append("willDownloadTo") }
        }
        func downloadTask(_ task: DownloadTask, didFinishDownloadingTo location: URL) {
            calls.withLock { $0.append("didFinishDownloadingTo") }
        }
        func downloadTask(_ task: DownloadTask, didCompleteWithError error: CarryonError?) {
            calls.withLock { $0.append(error == nil ? "didComplete" : "didCompleteWithError") }
            let continuation = finished.withLock { state -> CheckedContinuation<Void, Never>? in
                state.1 = true
                return state.0
            }
            continuation?.resume()
        }

        func waitForCompletion() async {
            await withCheckedContinuation { continuation in
                let done = finished.withLock { state -> Bool in
                    if state.1 { return true }
                    state.0 = continuation
                    return false
                }
                if done { continuation.resume() }
            }
        }
    }

    @Test("a download reports selection, location, every segment's time range, each rendition and the end, in order",
          .timeLimit(.minutes(1)))
    func callbacks() async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(root: folder)
            try await Origin(root: sampleMedia.path).withRunning { origin in
                let session = try await DownloadSession(library: library)
                let recorder = Recorder()
                await session.setDelegate(recorder)
                let task = try await session.makeTask(url: origin.baseURL + "/ts/main.m3u8",
                                                      options: DownloadOptions(audio: .languages(["en"]), subtitles: .none))
                try await task.resume()
                await recorder.waitForCompletion()
                await session.shutdown()

                let calls = recorder.calls.withLock { $0 }
                #expect(calls.first == "didResolve")
                #expect(calls.firstIndex(of: "willDownloadTo") == 1)
                #expect(calls.suffix(2) == ["didFinishDownloadingTo", "didComplete"])
                #expect(calls.filter { $0 == "didLoad video" }.count == 3)
                #expect(calls.filter { $0 == "didLoad audio-en" }.count == 4)
                // Once each: resources finishing together must not each report their rendition.
                #expect(calls.filter { $0.hasPrefix("didCompleteFor") }.sorted() == ["didCompleteFor audio-en", "didCompleteFor video"])
                // At the end, each rendition's loaded ranges are one range covering all of it.
                for rendition in ["video", "audio-en"] {
                    let ranges = recorder.loaded.withLock { $0[rendition] } ?? []
                    let expected = try #require(recorder.expected.withLock { $0[rendition] })
                    #expect(ranges.count == 1)
                    #expect(abs((ranges.first?.end ?? 0) - expected.end) < 0.001)
                    #expect(ranges.first?.start == 0)
                }
            }
        }
    }
}
