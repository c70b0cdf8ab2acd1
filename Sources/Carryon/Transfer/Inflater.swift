import CCarryonZlib
import NIOCore

/// Decodes a body sent with `Content-Encoding: gzip` (or `deflate`, zlib's format), chunk by
/// chunk as it arrives, with zlib. Each decoded piece goes to the caller, who counts it against
/// a limit and may stop: a small body that would decode to gigabytes (a "gzip bomb") costs no
/// more than the limit.
final class Inflater {
    /// Data that is not what its `Content-Encoding` says, or ends before its stream does.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private let stream: OpaquePointer
    /// Whether the last member's end has been read (more input may start another member).
    private var atEnd = false
    private var output = [UInt8](repeating: 0, count: 64 << 10)

    init() throws(Failure) {
        guard let stream = carryon_inflater_create() else { throw Failure(description: "zlib cannot start (out of memory)") }
        self.stream = stream
    }

    deinit {
        carryon_inflater_destroy(stream)
    }

    /// Decodes `input`, handing each decoded piece (up to 64 KiB) to `sink`, which may throw
    /// to stop.
    func decode(_ input: ByteBuffer, into sink: (ArraySlice<UInt8>) throws -> Void) throws {
        var pending = input.readableBytesView[...]
        // Until the input is used up and zlib has nothing more to give (a full output buffer
        // may leave decoded bytes inside it with no input left).
        while true {
            if atEnd {
                guard !pending.isEmpty else { return }
                // Another gzip member follows the last one's end: a body gzip'ed in parts.
                guard carryon_inflater_reset(stream) == 0 else { throw Failure(description: "zlib cannot restart") }
                atEnd = false
            }
            var consumed = 0
            var produced = 0
            let status = pending.withUnsafeBytes { input in
                output.withUnsafeMutableBytes { output in
                    carryon_inflate(stream, input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count, &consumed,
                                    output.baseAddress?.assumingMemoryBound(to: UInt8.self), output.count, &produced)
                }
            }
            if status < 0 {
                let reason = carryon_inflater_message(stream).map { String(cString: $0) } ?? "corrupt data"
                throw Failure(description: "the compressed body cannot be decoded (\(reason))")
            }
            pending = pending.dropFirst(consumed)
            if produced > 0 { try sink(output[..<produced]) }
            if status == 1 { atEnd = true; continue }
            if produced < output.count && (pending.isEmpty || consumed == 0) { return }
        }
    }

    /// Checks that the body ended where its compressed stream does.
    func finish() throws(Failure) {
        guard atEnd else { throw Failure(description: "the compressed body ends before its stream does (truncated)") }
    }
}
