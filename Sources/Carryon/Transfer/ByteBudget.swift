/// What a session may still write before a storage rule breaks: bytes are counted against the
/// library's quota and the free space to keep as they arrive, chunk by chunk, not against an
/// estimate made before the start — a response that never ends stops at the rule, not at a
/// full disk.
///
/// One budget serves every transfer of a session (the quota is the library's, the disk is
/// shared). ``measure(_:)`` sets it from the bundles on disk and the settings when a transfer
/// starts; ``take(_:for:)`` charges each chunk before it is written and refuses the one that
/// would pass a rule, with the sizes involved; ``giveBack(_:)`` returns bytes a restart
/// discarded. The free space is read again every few megabytes, and at every chunk within a
/// few megabytes of the reserve, so that other writers on the same disk count too.
final class ByteBudget: Sendable {
    /// The rules in force.
    struct Rules: Sendable, Equatable {
        /// The most bytes the library's bundles may take; nil: no quota.
        var quotaBytes: Int?
        /// The free bytes to keep on the disk.
        var reserveBytes: Int
        /// Whether ``reserveBytes`` is the default reserve (the library sets no minimum).
        var reserveIsDefault: Bool
        /// Room kept beyond the reserve for what a session writes besides media — the index, a
        /// log line, a manifest — which is not charged here, so that the reserve still holds
        /// once a download has stopped at it.
        var bookkeepingBytes = 0

        /// The room the session keeps for its bookkeeping when a reserve is in force.
        static let bookkeeping = 64 << 10
    }

    private struct State {
        var rules: Rules
        var libraryBytes: Int
        var freeBytes: Int
        /// Bytes taken since `freeBytes` was read.
        var sinceMeasure: Int
    }

    /// How often, in bytes taken, the free space is read again.
    static let remeasureEvery = 4 << 20

    private let disk: DiskSpace
    private let state: Locked<State>

    /// A budget over `disk`; until ``measure(_:)`` no rule is in force.
    init(disk: DiskSpace) {
        self.disk = disk
        state = Locked(State(rules: Rules(quotaBytes: nil, reserveBytes: 0, reserveIsDefault: true),
                             libraryBytes: 0, freeBytes: Int.max, sinceMeasure: 0))
    }

    /// Sets the rules and what the library holds now (its bundles' bytes on disk).
    func measure(_ rules: Rules, libraryBytes: Int) {
        let free = disk.free()
        state.withLock { state in
            state = State(rules: rules, libraryBytes: libraryBytes, freeBytes: free, sinceMeasure: 0)
        }
    }

    /// Charges `bytes` about to be written for `uri`.
    ///
    /// - Throws: ``CarryonError/Code/storage`` naming the rule, the sizes and what makes room,
    ///   when writing them would pass the quota or leave less free than the reserve; nothing
    ///   is charged then.
    func take(_ bytes: Int, for uri: String) throws(CarryonError) {
        let disk = self.disk
        let refusal: CarryonError? = state.withLock { state in
            // Read again every few megabytes, and at every chunk once the reserve is that
            // close: what others write meanwhile — and the index and logs, which are not
            // charged here — then counts before the reserve is reached, not after.
            let keep = state.rules.reserveBytes + state.rules.bookkeepingBytes
            let near = state.freeBytes - state.sinceMeasure - bytes < keep + Self.remeasureEvery
            if state.sinceMeasure >= Self.remeasureEvery || (near && state.rules.reserveBytes > 0) {
                state.freeBytes = disk.free()
                state.sinceMeasure = 0
            }
            if let quota = state.rules.quotaBytes, state.libraryBytes + bytes > quota {
                return CarryonError(.storage, """
                    \(uri): \(bytes) more bytes would pass the library's quota: it holds \(state.libraryBytes) bytes \
                    of its \(quota); what arrived is kept
                    """)
            }
            let free = state.freeBytes - state.sinceMeasure
            if free - bytes < keep {
                let which = state.rules.reserveIsDefault
                    ? "the default reserve of 1 GiB, or 5 % of a smaller disk"
                    : "the library's minimum"
                return CarryonError(.storage, """
                    \(uri): \(bytes) more bytes would leave less than \(state.rules.reserveBytes) bytes free on the \
                    library's disk (\(max(0, free)) are free; \(which)); what arrived is kept
                    """)
            }
            state.libraryBytes += bytes
            state.sinceMeasure += bytes
            return nil
        }
        if let refusal { throw refusal }
    }

    /// Returns `bytes` that were written and then discarded (a partial file started over).
    func giveBack(_ bytes: Int) {
        guard bytes > 0 else { return }
        state.withLock { state in
            state.libraryBytes -= bytes
            state.sinceMeasure -= bytes
        }
    }

    /// The bytes the library holds by this budget's count.
    var libraryBytes: Int {
        state.withLock { $0.libraryBytes }
    }
}

extension ResourceRecord {
    /// The most bytes a response for this resource may bring before it is refused as wrong,
    /// when its length is not known ahead (a byte range or a `Content-Length` bounds it
    /// otherwise): 16 times its estimate from the variant's bandwidth and the segment's
    /// duration (at least 32 MiB), or 2 GiB when nothing bounds it — `bandwidthKnown` is false
    /// for a media playlist read on its own, and init sections and other resources have no
    /// duration to scale by.
    func growthLimit(bandwidthKnown: Bool) -> Int {
        let unbounded = 2 << 30
        guard bandwidthKnown, kind == .segment, duration > 0, !exactSize else { return unbounded }
        let (scaled, overflow) = expectedBytes.multipliedReportingOverflow(by: 16)
        return overflow ? unbounded : min(unbounded, max(32 << 20, scaled))
    }
}
