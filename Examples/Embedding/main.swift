// Embedding Carryon: download a stream, watch it, pick it up again after a restart, and play it.
//
//     swift run CarryonExample URL LIBRARY [PLAYER ARGUMENT...]
//
// Run it twice: the second run finds the first run's task in the library (finished, or stopped
// part way by Ctrl-C or a crash) instead of starting over. With a player, the player is given the
// offline playback URL as its last argument, e.g. `... ffprobe -v error -show_format`.
import Carryon
import CarryonServer
import Foundation
import HLS

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count >= 2 else {
    print("usage: CarryonExample URL LIBRARY [PLAYER ARGUMENT...]")
    exit(64)
}
let url = arguments[arguments.startIndex]
let player = Array(arguments.dropFirst(2))

let library = try OfflineLibrary(root: URL(fileURLWithPath: arguments[arguments.startIndex + 1]))
let session = try await DownloadSession(library: library)

// After a restart, the library knows every task with its state and progress.
var task: DownloadTask?
for candidate in try await session.tasks() {
    let asset = try await candidate.snapshot()
    if asset.url == url, asset.state != .cancelled {
        print("restored \(asset.id): \(asset.state.rawValue), \(Int(asset.progress.fraction * 100))%")
        task = candidate
    }
}

// A new task otherwise: 720p at most, English audio and subtitles.
if task == nil {
    var options = DownloadOptions()
    options.maximumResolution = Resolution(width: 1280, height: 720)
    options.audio = .languages(["en"])
    options.subtitles = .languages(["en"])
    task = try await session.makeTask(url: url, name: "Example", options: options)
}
guard let task else { exit(1) }

// Events arrive as they happen; a UI would update from them.
let events = await session.events()
let watcher = Task {
    for await event in events where event.taskID == task.id {
        switch event {
        case .mediaSelectionResolved(_, let selection):
            print("selected \(selection.variant.resolution ?? "audio only") with \(selection.renditions.count) renditions")
        case .renditionCompleted(_, let rendition):
            print("completed \(rendition)")
        case .finished(_, let location):
            print("bundle at \(location.path)")
        case .failed(_, let error):
            print("failed: \(error)")
        default:
            break   // .progress and .timeRangeLoaded come often: bytes, rate, ETA, loaded time ranges
        }
    }
}

// resume() starts a new task and continues a stopped one where it stopped.
if try await task.snapshot().state != .completed {
    try await task.resume()
}
let state = await task.waitUntilFinished()
watcher.cancel()
print("state \(state.rawValue)")
guard state == .completed else {
    await session.shutdown()   // a running task is suspended, to be resumed by the next run
    exit(1)
}

// Managing it (Managing.swift): another language, what plays offline, storage rules.
try await manage(task, in: session, library: library)

// Playing offline: the playback server on loopback gives any HLS player a URL.
let server = try PlaybackServer(source: PlaybackSource(library: library, session: session))
let played: Int32 = try await server.withRunning { handle in
    let playlist = handle.playlistURL(for: task.id)
    print("play \(playlist)")
    guard let program = player.first else { return 0 }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [program] + player.dropFirst() + [playlist]
    try process.run()
    // Wait off Swift's cooperative threads, which the server needs to answer the player.
    return await withCheckedContinuation { continuation in
        Thread.detachNewThread {
            process.waitUntilExit()
            continuation.resume(returning: process.terminationStatus)
        }
    }
}
await session.shutdown()
exit(played)
