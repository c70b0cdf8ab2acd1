// HLSBenchmark: times `Playlist.parse`, parse + `MediaPlaylist` resolution, and `PlaylistReading`
// (both in one pass) on playlist files.
//
//     swift run -c release HLSBenchmark [--json] [--iterations N] [--budget SECONDS] FILE...
//
// Each file is read fully into memory first (not timed). Then, per file and per measurement, a
// few warm-up runs, followed by N timed runs with `ContinuousClock`; the median and minimum are
// reported. Results are consumed (summed into a checksum that is printed) so that the optimizer
// cannot drop the work. Benchmarks/run.sh drives this and compares with Python's m3u8 package.

import HLS

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

struct Options {
    var json = false
    /// Fixed number of timed runs; nil picks one from the time budget.
    var iterations: Int?
    /// Fixed number of warm-up runs; nil warms up while runs are cheap (at least one).
    var warmup: Int?
    /// Seconds to spend timing each measurement of each file, when `iterations` is nil.
    var budget = 2.0
    var url = "https://cdn.example.com/vod/playlist.m3u8"
    /// Skip the parse + resolve measurement (for profiling the parser alone).
    var parseOnly = false
    /// Time only the resolution of a playlist parsed once (for profiling the resolver alone).
    var resolveOnly = false
    var files: [String] = []
}

func usage() -> Never {
    let text = """
        usage: HLSBenchmark [--json] [--iterations N] [--warmup N] [--budget SECONDS] [--url URL] FILE...
          --json          print one JSON object instead of a table
          --iterations N  timed runs per measurement (default: as many as fit in the budget, 5...1000)
          --warmup N      untimed runs first (default: 1 to 20, while they take under 10% of the budget)
          --budget S      seconds per measurement when --iterations is not given (default 2)
          --url URL       the playlist URL segments are resolved against
          --parse-only    time Playlist.parse only, not parse + MediaPlaylist (for profiling)
          --resolve-only  time MediaPlaylist of a playlist parsed once, reported as +resolve (for profiling)

        """
    printError(text)
    exit(2)
}

/// Writes to standard error (without touching the C `stderr` global, which Swift 6 flags).
func printError(_ text: String) {
    var text = text
    text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}

func parseOptions() -> Options {
    var options = Options()
    var arguments = CommandLine.arguments.dropFirst()
    while let argument = arguments.popFirst() {
        switch argument {
        case "--json": options.json = true
        case "--iterations":
            guard let value = arguments.popFirst().flatMap({ Int($0) }), value > 0 else { usage() }
            options.iterations = value
        case "--warmup":
            guard let value = arguments.popFirst().flatMap({ Int($0) }), value >= 0 else { usage() }
            options.warmup = value
        case "--budget":
            guard let value = arguments.popFirst().flatMap({ Double($0) }), value > 0 else { usage() }
            options.budget = value
        case "--url":
            guard let value = arguments.popFirst() else { usage() }
            options.url = value
        case "--parse-only": options.parseOnly = true
        case "--resolve-only": options.resolveOnly = true
        case "-h", "--help": usage()
        default:
            if argument.hasPrefix("-") { usage() }
            options.files.append(argument)
        }
    }
    if options.files.isEmpty { usage() }
    return options
}

/// Reads a whole file into a String (native, contiguous UTF-8).
func readFile(_ path: String) -> String? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 20)
    while true {
        let read = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
        if read == 0 { break }
        bytes.append(contentsOf: chunk[0..<read])
    }
    if ferror(file) != 0 { return nil }
    return String(decoding: bytes, as: UTF8.self)
}

/// Keeps results observable so that the optimizer cannot remove the work producing them.
nonisolated(unsafe) var checksum = 0

@inline(never)
func blackHole(_ value: Int) {
    checksum &+= value
}

struct Timing {
    var median: Double  // milliseconds
    var min: Double
    var runs: Int
}

func milliseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1000 + Double(attoseconds) / 1e15
}

/// Warms up, then times `body` `iterations` times (or as many as fit in the budget).
func measure(_ options: Options, _ body: () throws -> Int) rethrows -> Timing {
    let clock = ContinuousClock()
    // Warm-up: as asked, or at least one run and more while they are cheap (up to ~10% of the
    // budget). The first run's time sizes the number of timed runs when none is given.
    var warmupSpent = 0.0
    var warmups = 0
    var first = 0.0
    while warmups < (options.warmup ?? 20), options.warmup != nil || warmups == 0 || warmupSpent < options.budget * 100 {
        let start = clock.now
        blackHole(try body())
        let elapsed = milliseconds(clock.now - start)
        if warmups == 0 { first = elapsed }
        warmupSpent += elapsed
        warmups += 1
    }
    let runs = options.iterations ?? max(5, min(1000, Int(options.budget * 1000 / max(first, 0.001))))
    var samples: [Double] = []
    samples.reserveCapacity(runs)
    for _ in 0..<runs {
        let start = clock.now
        let result = try body()
        let elapsed = milliseconds(clock.now - start)
        blackHole(result)
        samples.append(elapsed)
    }
    samples.sort()
    let median = runs % 2 == 1 ? samples[runs / 2] : (samples[runs / 2 - 1] + samples[runs / 2]) / 2
    return Timing(median: median, min: samples[0], runs: runs)
}

/// Peak resident set size of this process so far, in MiB.
func peakRSSMiB() -> Double {
    var usage = rusage()
    #if canImport(Darwin)
    getrusage(RUSAGE_SELF, &usage)
    return Double(usage.ru_maxrss) / (1024 * 1024)
    #else
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_maxrss) / 1024
    #endif
}

struct FileResult {
    var path: String
    var bytes: Int
    var lines: Int
    var segments: Int
    var warnings: Int
    var parse: Timing
    var resolve: Timing
    /// `PlaylistReading`: parse and resolve in one pass, keeping no line (how Carryon reads a
    /// media playlist it downloads).
    var onePass: Timing
    /// Peak resident set size after the parse runs, before any resolution (MiB; the process's
    /// peak so far, so for the first file alone it is the parser's).
    var parsePeakRSS: Double
    var peakRSS: Double
}

func format(_ value: Double, _ digits: Int = 3) -> String {
    // Fixed-point without Foundation.
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let rounded = (value * scale).rounded()
    let integer = Int(rounded / scale)
    let fraction = Int(abs(rounded) - Double(abs(integer)) * scale)
    if digits == 0 { return String(integer) }
    var fractionText = String(fraction)
    while fractionText.count < digits { fractionText = "0" + fractionText }
    return "\(value < 0 && integer == 0 ? "-" : "")\(integer).\(fractionText)"
}

func jsonString(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": result += "\\\""
        case "\\": result += "\\\\"
        case "\n": result += "\\n"
        default:
            if scalar.value < 0x20 {
                result += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
    }
    return result + "\""
}

func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
    let padding = String(repeating: " ", count: max(0, width - text.count))
    return left ? text + padding : padding + text
}

let options = parseOptions()
var results: [FileResult] = []

for path in options.files {
    guard let text = readFile(path) else {
        printError("HLSBenchmark: cannot read \(path)\n")
        exit(1)
    }
    let bytes = text.utf8.count

    // One untimed parse to check the file parses and to count what it holds.
    let lines: Int
    var segments: Int
    var warnings: Int
    do {
        let parsed = try Playlist.parse(text)
        lines = parsed.playlist.lines.count
        segments = parsed.playlist.lines.count { if case .uri = $0.content { true } else { false } }
        warnings = parsed.warnings.count
    } catch {
        printError("HLSBenchmark: \(path): \(error)\n")
        exit(1)
    }

    let parse = try measure(options) {
        let parsed = try Playlist.parse(text)
        // Touch the result: the line count and the kind of the last line.
        var sum = parsed.playlist.lines.count &+ parsed.warnings.count
        if case .uri(let uri)? = parsed.playlist.lines.last?.content { sum &+= uri.utf8.count }
        return sum
    }
    let parsePeakRSS = peakRSSMiB()
    var resolve = Timing(median: 0, min: 0, runs: 0)
    if !options.parseOnly {
        do {
            let once = options.resolveOnly ? try Playlist.parse(text) : nil
            resolve = try measure(options) {
                let parsed = try once ?? Playlist.parse(text)
                let media = try MediaPlaylist(parsed.playlist, url: options.url, warnings: parsed.warnings)
                // The resolved counts (a segment is a URI line, but say what the resolver found).
                segments = media.segments.count
                warnings = media.warnings.count
                return media.segments.count &+ (media.segments.last?.uri.utf8.count ?? 0)
            }
        } catch {
            printError("HLSBenchmark: \(path): resolving: \(error)\n")
            exit(1)
        }
    }
    var onePass = Timing(median: 0, min: 0, runs: 0)
    if !options.parseOnly && !options.resolveOnly {
        let utf8 = Array(text.utf8)
        do {
            onePass = try measure(options) {
                guard case .media(let media) = try PlaylistReading(bytes: utf8, url: options.url) else { return 0 }
                return media.segments.count &+ (media.segments.last?.uri.utf8.count ?? 0)
            }
        } catch {
            printError("HLSBenchmark: \(path): reading in one pass: \(error)\n")
            exit(1)
        }
    }
    results.append(FileResult(path: path, bytes: bytes, lines: lines, segments: segments, warnings: warnings,
                              parse: parse, resolve: resolve, onePass: onePass, parsePeakRSS: parsePeakRSS, peakRSS: peakRSSMiB()))
}

if options.json {
    var entries: [String] = []
    for r in results {
        entries.append("""
            {"path":\(jsonString(r.path)),"bytes":\(r.bytes),"lines":\(r.lines),"segments":\(r.segments),\
            "warnings":\(r.warnings),\
            "parse_ms":{"median":\(format(r.parse.median, 4)),"min":\(format(r.parse.min, 4)),"runs":\(r.parse.runs)},\
            "resolve_ms":{"median":\(format(r.resolve.median, 4)),"min":\(format(r.resolve.min, 4)),"runs":\(r.resolve.runs)},\
            "one_pass_ms":{"median":\(format(r.onePass.median, 4)),"min":\(format(r.onePass.min, 4)),"runs":\(r.onePass.runs)},\
            "parse_peak_rss_mib":\(format(r.parsePeakRSS, 1)),"peak_rss_mib":\(format(r.peakRSS, 1))}
            """)
    }
    print("{\"checksum\":\(checksum),\"files\":[\n" + entries.joined(separator: ",\n") + "\n]}")
} else {
    print(pad("file", 28, left: true) + pad("bytes", 12) + pad("segments", 10)
          + pad("parse med", 12) + pad("parse min", 12) + pad("+resolve med", 14) + pad("+resolve min", 14)
          + pad("1-pass med", 12) + pad("runs", 7) + pad("peak RSS", 11))
    for r in results {
        let name = r.path.split(separator: "/").last.map(String.init) ?? r.path
        print(pad(name, 28, left: true) + pad(String(r.bytes), 12) + pad(String(r.segments), 10)
              + pad(format(r.parse.median) + " ms", 12) + pad(format(r.parse.min) + " ms", 12)
              + pad(format(r.resolve.median) + " ms", 14) + pad(format(r.resolve.min) + " ms", 14)
              + pad(format(r.onePass.median) + " ms", 12) + pad(String(r.parse.runs), 7) + pad(format(r.peakRSS, 0) + " MiB", 11))
    }
    print("checksum \(checksum)")
}
