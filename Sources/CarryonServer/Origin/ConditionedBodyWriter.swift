import Hummingbird
import NIOCore

/// Passes a response body on to the connection at the profile's pace, counts what it sends
/// into the request log, and cuts the body where the fault generator said.
///
/// The body arrives in the file reader's chunks (128 KiB); with a bandwidth cap they are sent in
/// slices of about 20 ms each, so a capped response is a steady stream rather than a pause and
/// a burst, and no more than one chunk of a file is in memory at a time.
struct ConditionedBodyWriter: ResponseBodyWriter {
    /// Where a body stops, and how.
    struct Cut {
        /// ``LinkFault/connectionReset`` or ``LinkFault/truncatedBody``.
        var fault: LinkFault
        /// The body bytes sent before it.
        var after: Int
    }

    private var parent: any ResponseBodyWriter
    private var pacer: Pacer?
    private let cut: Cut?
    private let channel: any Channel
    private let record: RequestRecord
    private var sent = 0

    init(parent: any ResponseBodyWriter, bandwidth: Int?, cut: Cut?, channel: any Channel, record: RequestRecord) {
        self.parent = parent
        self.pacer = bandwidth.map(Pacer.init(bytesPerSecond:))
        self.cut = cut
        self.channel = channel
        self.record = record
    }

    mutating func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        while true {
            if let cut, sent >= cut.after { try await inject(cut.fault) }
            guard buffer.readableBytes > 0 else { return }
            var length = buffer.readableBytes
            if let cut { length = min(length, cut.after - sent) }
            if var pacer {
                length = min(length, pacer.sliceLength)
                try await pacer.waitToSend(length)
                self.pacer = pacer
            }
            try await parent.write(buffer.readSlice(length: length)!)
            sent += length
            let sent = self.sent
            record.update { $0.bytesSent = sent }
        }
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        try await parent.finish(trailingHeaders)
    }

    /// Ends the connection the way `fault` says, once the bytes written so far are on their way,
    /// and throws so that the server stops answering on it.
    private func inject(_ fault: LinkFault) async throws -> Never {
        record.update { $0.fault = fault }
        // Both calls below run on the connection's event loop after the writes already queued
        // there, so the part of the body sent so far goes out before the connection ends.
        switch fault {
        case .connectionReset:
            // With SO_LINGER on and a zero timeout, close() sends RST instead of FIN.
            if let socket = channel as? any SocketOptionProvider {
                try? await socket.setSoLinger(NIOLinger(l_onoff: 1, l_linger: 0)).get()
            }
            try? await channel.close()
        case .truncatedBody, .serviceUnavailable:
            // Closing only the output waits for the queued bytes, then sends FIN.
            try? await channel.close(mode: .output)
        }
        throw InjectedFault(fault: fault)
    }
}

/// Thrown out of a response body that the origin cut on purpose.
struct InjectedFault: Error {
    var fault: LinkFault
}

/// Spaces a body's slices so that the connection carries no more than `bytesPerSecond`.
///
/// Each slice takes its share of time on the link, `length / bytesPerSecond`, starting when the
/// previous one's ended or now, whichever is later. The schedule is kept in instants, not in
/// sleeps added up, so the rate does not drift with late wake-ups; and a client that stalls the
/// connection does not bank time for a burst later.
struct Pacer {
    let bytesPerSecond: Int
    /// About 20 ms of data, and at least 512 bytes so that slow rates don't send tiny packets.
    let sliceLength: Int
    private let clock = ContinuousClock()
    private var linkFreeAt: ContinuousClock.Instant?

    init(bytesPerSecond: Int) {
        self.bytesPerSecond = bytesPerSecond
        self.sliceLength = max(512, bytesPerSecond / 50)
    }

    /// Waits until the link is free, then books it for `length` bytes.
    mutating func waitToSend(_ length: Int) async throws {
        let now = clock.now
        let start = max(linkFreeAt ?? now, now)
        if start > now { try await Task.sleep(until: start, clock: clock) }
        linkFreeAt = start + .seconds(Double(length) / Double(bytesPerSecond))
    }
}
