/// An error from the Carryon engine: what failed, where, and why.
///
/// Errors carry a ``Code`` for code that handles some of them, a message for people that names
/// the resource involved, and the underlying cause when there is one.
///
/// ```swift
/// do {
///     let inspection = try await Inspector().inspect("https://example.com/main.m3u8")
/// } catch let error as CarryonError where error.code == .http {
///     print(error)   // "https://example.com/main.m3u8: the server answered 404 Not Found"
/// }
/// ```
public struct CarryonError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public var code: Code
    /// What went wrong, in words, naming the resource.
    public var message: String
    /// The error that caused this one, if any.
    public var cause: (any Error & Sendable)?

    /// An error of kind `code`, with a `message` that names the resource involved, and the
    /// underlying error that caused it, if any.
    public init(_ code: Code, _ message: String, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    public var description: String { message }

    /// Kinds of failure. New codes may be added.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A location that is not a URL or path Carryon can read (an unsupported scheme, a
        /// malformed URL).
        public static let invalidLocation = Code(rawValue: "invalid-location")
        /// The server answered with an error status, or the connection failed.
        public static let http = Code(rawValue: "http")
        /// A local file could not be read.
        public static let file = Code(rawValue: "file")
        /// A resource is larger than the limit set for its kind.
        public static let tooLarge = Code(rawValue: "too-large")
        /// The library's index or folders cannot be read or written.
        public static let library = Code(rawValue: "library")
        /// No asset or task has that id.
        public static let unknownAsset = Code(rawValue: "unknown-asset")
        /// The stream is of a kind Carryon does not download (live, encrypted).
        public static let unsupported = Code(rawValue: "unsupported")
        /// A resource could not be fetched after every retry, or its response was wrong.
        public static let transfer = Code(rawValue: "transfer")
        /// Writing to disk failed (for example, the disk is full).
        public static let disk = Code(rawValue: "disk")
        /// The operation does not apply to the task in its current state.
        public static let invalidState = Code(rawValue: "invalid-state")
        /// Another process (or another session) is downloading the asset: only it can suspend
        /// the download, and it must stop before the asset is deleted or changed.
        public static let busy = Code(rawValue: "busy")
        /// The task was stopped (suspended or cancelled) while working.
        public static let cancelled = Code(rawValue: "cancelled")
        /// What was asked for is not in the bundle (not part of the asset, or not downloaded).
        public static let notFound = Code(rawValue: "not-found")
        /// The library's storage rules (quota, free space to keep) leave no room for a download.
        public static let storage = Code(rawValue: "storage")
        /// A content key cannot be obtained, kept or given out (no provider for its scheme, expired,
        /// invalidated, or the master key is wrong).
        public static let keys = Code(rawValue: "keys")
        /// The options select nothing the stream offers.
        public static let selection = Code(rawValue: "selection")
        /// A server stopped sending, or sent too slowly, for every attempt (see
        /// ``DownloadSession/Configuration/stallTimeout``); a download is suspended, its bytes kept.
        public static let stalled = Code(rawValue: "stalled")
        /// A stream names a location Carryon refuses to read: a `file:` URI in a stream fetched
        /// over HTTP, another scheme, or a redirect away from http(s) (see ``LocationRule``).
        public static let refusedLocation = Code(rawValue: "refused-location")
        /// A playlist could not be parsed; the cause is the `PlaylistError` of the `HLS` module.
        public static let playlist = Code(rawValue: "playlist")
        /// The origin refused a resource as no longer allowed (401, 403 or 410, or a status of
        /// ``DownloadSession/Configuration/expiredStatuses``): its signed URL has expired. A
        /// download reads its manifest again and carries on with fresh locations; this is the
        /// error when even a fresh location is refused.
        public static let expired = Code(rawValue: "expired")
        /// A value given to Carryon is out of range or does not exist: a date past what the
        /// library keeps (see ``DateText``), a day like 30 February, a negative bitrate.
        public static let invalidValue = Code(rawValue: "invalid-value")
        /// The origin's TLS certificate did not verify — not trusted (pass its authority with
        /// `--cacert`), expired or not yet valid, or issued for another name — or the TLS
        /// handshake failed. Never retried: it would fail the same way.
        public static let certificate = Code(rawValue: "certificate")
        /// A stream's keys come from a DRM system Carryon cannot open (Widevine, PlayReady,
        /// FairPlay), or from nowhere it was told of (a DASH stream naming no licence server):
        /// nothing was downloaded. A key the user holds (``HeldKeys``), a Clear Key licence server
        /// (``DownloadOptions/licenseURL``) or an app's ``ContentKeyProvider`` for the system
        /// opens it.
        public static let keySystem = Code(rawValue: "key-system")
    }
}
