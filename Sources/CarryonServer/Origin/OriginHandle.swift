/// A running ``Origin``: where it listens, the link it simulates, and what it has been asked.
///
/// ```swift
/// try await Origin(root: folder, profile: .lossy).withRunning { origin in
///     let playlist = origin.baseURL + "/main.m3u8"
///     // … download through it …
///     let faults = await origin.requests().compactMap(\.fault)
/// }
/// ```
public struct OriginHandle: Sendable {
    /// `http://host:port`, without a trailing slash: append a path that starts with `/`.
    public let baseURL: String
    /// The link profile the origin serves with.
    public let profile: LinkProfile
    let log: RequestLog

    init(baseURL: String, profile: LinkProfile, log: RequestLog) {
        self.baseURL = baseURL
        self.profile = profile
        self.log = log
    }

    /// Every request answered so far, in order of arrival, with its status, bytes sent and
    /// fault (the most recent 100 000, if there were more).
    ///
    /// Waits first for the responses that are still being sent to end (or fail), so that a
    /// client that has read its responses finds them here with every byte counted; requests
    /// arriving while it waits are not waited for. Calling it from inside a response that is
    /// still being read would wait for that response, so read bodies to their end first.
    public func requests() async -> [OriginRequest] {
        await log.requests()
    }
}
