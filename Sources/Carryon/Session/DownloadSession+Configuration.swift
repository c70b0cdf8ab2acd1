extension DownloadSession {
    /// How a session runs its tasks.
    public struct Configuration: Sendable {
        /// Tasks downloading at once; others wait.
        public var maximumConcurrentTasks: Int
        /// Requests in flight at once, across all tasks.
        public var maximumConcurrentRequests: Int
        /// Requests in flight at once for one task: where adaptive concurrency starts (8 by
        /// default). A number set here — in the initializer, or on the property — is kept fixed:
        /// ``adaptsConcurrency`` becomes false, for the user's number is never exceeded.
        public var maximumRequestsPerTask: Int {
            didSet { adaptsConcurrency = false }
        }
        /// Connections to one host at once.
        public var maximumConnectionsPerHost: Int
        /// Redirects followed before a request fails.
        public var maximumRedirects: Int
        /// Retries with backoff for each request.
        public var retry: RetryPolicy
        /// How long one request may take.
        public var requestTimeout: Duration
        /// The largest playlist accepted.
        public var maximumPlaylistBytes: Int
        /// App code that supplies keys Carryon cannot fetch itself, by URI scheme (`skd`) or
        /// by `KEYFORMAT`.
        public var keyProviders: [String: any ContentKeyProvider] = [:]
        /// The lifetime given to keys whose provider does not say.
        public var keyLifetime = KeyLifetime()
        /// How long a request may receive nothing, or less than 1 KB/s on average, before it is
        /// a failed attempt (30 s by default, as aria2c's and yt-dlp's timeouts). It is retried
        /// like any other; when every attempt stalls the task is suspended with a message that
        /// names the resource, and ``DownloadTask/resume()`` continues from the bytes on disk.
        public var stallTimeout: Duration = .seconds(30)
        /// The most bytes a second each task downloads, over all its connections (a metered
        /// link, WWDC's guidance on cellular data); nil (the default): no limit. A task's own
        /// ``DownloadOptions/maximumBytesPerSecond`` applies too: the lower of the two wins.
        public var maximumBytesPerSecond: Int?
        /// Whether each task's requests in flight follow the link (the default, unless
        /// ``maximumRequestsPerTask`` was set): from 8 up to ``maximumConnections`` while
        /// throughput rises, halved when the server pushes back (see `ConcurrencyController`).
        /// False keeps ``maximumRequestsPerTask`` fixed.
        public var adaptsConcurrency = true
        /// The most requests in flight — and connections to one host — adaptive concurrency may
        /// reach (32 by default).
        public var maximumConnections = 32
        /// How long each measurement of throughput lasts for adaptive concurrency.
        var concurrencyWindow: Duration = .seconds(1)
        /// The statuses that say a media URL has expired (401, 403 and 410 by default; CDNs
        /// sign URLs for a while): answered with one, the task reads its manifest again, gives
        /// every resource not yet on disk its fresh location, and carries on (see
        /// ``manifestURLProvider`` for a manifest URL that expires too).
        public var expiredStatuses: Set<Int> = Configuration.defaultExpiredStatuses
        /// Where a fresh manifest URL comes from when the stored one no longer answers (an app's
        /// own API that signs it); nil: the stored URL only.
        public var manifestURLProvider: (any ManifestURLProvider)?

        /// The HTTP client's connections to one host: room for every request adaptive
        /// concurrency may put in flight.
        var connectionsPerHost: Int {
            adaptsConcurrency ? max(maximumConnectionsPerHost, maximumConnections) : maximumConnectionsPerHost
        }

        /// 401, 403 and 410.
        public static let defaultExpiredStatuses: Set<Int> = ResourceFetcher.defaultExpiredStatuses
        /// Whether a new task obtains its content keys before any media (the default: a key
        /// that cannot be had fails the task at once), or leaves them for
        /// ``DownloadSession/renewKeys(_:lifetime:onlyMissing:)`` after the download, as
        /// PRESTOplay offers both.
        public var prefetchKeys = true
        /// The disk the library lives on, for the storage rules that every written chunk is
        /// counted against; nil (the default): the library folder's file system. Tests give a
        /// disk of any size here without filling one.
        public var diskSpace: DiskSpace?
        /// Where every task's streams may lead, before each stream narrows it (a stream read
        /// over HTTP names no local file): ``LocationRule/anyLocation`` by default. A daemon
        /// that takes streams from others confines local files to folders with
        /// ``LocationRule/init(filesWithin:)``: every location a local stream names — variant,
        /// rendition, segment, init section, key, XLink — is checked, after `..`,
        /// percent-encoding and symbolic links are resolved, and read from its checked path.
        public var locationRule: LocationRule = .anyLocation
        /// Which certificate authorities the session trusts and which proxies its requests go
        /// through: the system's store and the environment's proxies by default (see
        /// ``NetworkSettings``). Never stored with an asset.
        public var network = NetworkSettings()
        /// How long a claim on a running task holds without renewal (30 seconds by default):
        /// the session renews it every third of that while the task runs. A task whose owner
        /// stopped renewing (paused, partitioned, killed) may be claimed by another process once
        /// its lease has run out; every write its old run makes from then on is refused.
        public var lease: Duration = .seconds(30)
        /// Whether an owner on this host whose process is gone counts as gone at once (the
        /// default), so that `resume` after a `kill -9` does not wait for its lease to run out.
        /// Off, only the lease decides, as it does for owners on other hosts.
        public var checksOwnerProcesses = true
        /// What the session is called in the index, where other processes see it as the one
        /// running a download (`list`, `show`, the API's `worker`): the command that opened it by
        /// default (`carryon worker`); `carryon worker --name` sets it.
        public var name: String?
        /// The manifest formats the session reads, tried in order on a new asset's first
        /// manifest (see `StreamFormat`); the first is also the one that reads what none
        /// recognises. HLS and MPEG-DASH by default.
        var formats: [any StreamFormat] = [HLSFormat(), DASHFormat()]

        /// A configuration with the given limits; each parameter sets the property of the same name.
        /// The defaults run 2 tasks at once with up to 8 requests in flight (8 for one task, 8
        /// connections to one host), follow 5 redirects, give a request 60 seconds, accept playlists
        /// up to 64 MiB, and retry with ``RetryPolicy``'s defaults. The key settings keep their
        /// defaults; set them on the value.
        public init(maximumConcurrentTasks: Int = 2, maximumConcurrentRequests: Int = 8, maximumRequestsPerTask: Int = 8,
                    maximumConnectionsPerHost: Int = 8, maximumRedirects: Int = 5, retry: RetryPolicy = RetryPolicy(),
                    requestTimeout: Duration = .seconds(60), maximumPlaylistBytes: Int = 64 << 20) {
            self.maximumConcurrentTasks = maximumConcurrentTasks
            self.maximumConcurrentRequests = maximumConcurrentRequests
            self.maximumRequestsPerTask = maximumRequestsPerTask
            // Only the default number of requests is the link's to change.
            self.adaptsConcurrency = maximumRequestsPerTask == 8
            self.maximumConnectionsPerHost = maximumConnectionsPerHost
            self.maximumRedirects = maximumRedirects
            self.retry = retry
            self.requestTimeout = requestTimeout
            self.maximumPlaylistBytes = maximumPlaylistBytes
        }
    }
}
