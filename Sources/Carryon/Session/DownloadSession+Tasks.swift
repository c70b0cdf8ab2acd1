import Foundation

/// Making, finding and steering tasks: each request is an event of the task's state machine,
/// recorded, then performed.
extension DownloadSession {
    /// Creates a task for the stream at `url` (a multivariant or media playlist; http, https or
    /// file). It does not start until ``DownloadTask/resume()``.
    ///
    /// A user and password in `url` (`https://user:secret@cdn.example/…`) are taken out of it and
    /// sent as the `Authorization: Basic` header they stand for (unless `headers` has one), so
    /// that the URL the library keeps, lists, logs and quotes in errors holds no password.
    public func makeTask(url: String, name: String? = nil, options: DownloadOptions = DownloadOptions(),
                         headers: [HTTPHeader] = []) async throws(CarryonError) -> DownloadTask {
        // Credentials in the URL (`https://user:secret@…`) become the Authorization header they
        // stand for: the URL kept, listed, logged and quoted in errors has none.
        try options.check()
        let (absolute, credentials) = Self.separatingCredentials(try PlaylistFetcher.absoluteURL(for: url))
        var headers = headers
        if let credentials, !headers.contains(where: { $0.name.lowercased() == "authorization" }) { headers.append(credentials) }
        let id = Self.makeID()
        let now = Date()
        let record = AssetRecord(id: id, name: name ?? Self.defaultName(for: absolute), url: absolute, state: .suspended,
                                 errorMessage: nil, options: options, headers: headers, selection: nil, planned: false,
                                 createdAt: now, updatedAt: now, completedAt: nil, duration: nil)
        try await index.insert(record)
        tasks[id] = SessionTask(machine: DownloadTaskStateMachine(state: record.state))
        return DownloadTask(id: id, session: self)
    }

    /// Every task the library knows, oldest first.
    public func tasks() async throws(CarryonError) -> [DownloadTask] {
        try await index.assetIDs().map { DownloadTask(id: $0, session: self) }
    }

    /// The task with `id` (the whole id, or a unique prefix of it).
    public func task(id: String) async throws(CarryonError) -> DownloadTask {
        DownloadTask(id: try await resolveID(id), session: self)
    }

    /// Resolves a full id or a unique prefix.
    func resolveID(_ text: String) async throws(CarryonError) -> String {
        try await library.resolveID(text)
    }

    func resume(_ id: String) async throws(CarryonError) {
        await settle(id)
        if tasks[id]?.run == nil, isDownloadedElsewhere(id) {
            throw CarryonError(.busy, "\(id) is being downloaded by another process already")
        }
        var machine = try await machine(id)
        let action: DownloadTaskStateMachine.Action
        do { action = try machine.resume() } catch { throw CarryonError(.invalidState, "\(id): \(error)") }
        try await setState(id, machine)
        tasks[id]?.lastError = nil
        try await perform(action, for: id)
    }

    func suspend(_ id: String) async throws(CarryonError) {
        await settle(id)
        // Another process's download is its own to suspend: writing its state here would leave
        // it downloading under a state that says it is not.
        if tasks[id]?.run == nil, isDownloadedElsewhere(id) {
            throw CarryonError(.busy, "\(id) is being downloaded by another process; only that process can suspend it")
        }
        var machine = try await machine(id)
        let action = machine.suspend()
        try await setState(id, machine)
        queue.removeAll { $0 == id }
        try await perform(action, for: id)
        if tasks[id]?.run == nil { notifyFinished(id, machine.state) }
    }

    func cancel(_ id: String) async throws(CarryonError) {
        await settle(id)
        if tasks[id]?.run == nil, isDownloadedElsewhere(id) {
            throw CarryonError(.busy, "\(id) is being downloaded by another process; only that process can cancel it")
        }
        var machine = try await machine(id)
        let action: DownloadTaskStateMachine.Action
        do { action = try machine.cancel() } catch { throw CarryonError(.invalidState, "\(id): \(error)") }
        // Recorded first, so that the run, stopping, finds the task no longer running.
        tasks[id]?.machine = machine
        try await perform(action, for: id)
        try await setState(id, machine)
        notifyFinished(id, .cancelled)
    }

    /// Removes an asset: its bundle and its rows. A running task is stopped first.
    ///
    /// - Throws: ``CarryonError/Code/busy`` when another process is downloading the asset (its
    ///   files are in use there: it must stop first). A player reading it through a
    ///   playback server gets 404s from then on.
    public func delete(_ id: String) async throws(CarryonError) {
        let id = try await resolveID(id)
        await settle(id)
        if tasks[id]?.run == nil, isDownloadedElsewhere(id) {
            throw CarryonError(.busy, "\(id) is being downloaded by another process; it must stop before the asset is deleted")
        }
        var machine = try await machine(id)
        // A completed asset has no transfer to stop; any other is cancelled on its way out.
        let action = (try? machine.cancel()) ?? .stopAndRemoveData
        tasks[id]?.machine = machine
        try await perform(action == .none ? .stopAndRemoveData : action, for: id)
        try await index.deleteAsset(id)
        AssetLogs(library: library).remove(id)
        tasks[id] = nil
        notifyFinished(id, .cancelled)
    }

    /// Whether another process (or session) holds the asset's bundle lock, downloading it.
    func isDownloadedElsewhere(_ id: String) -> Bool {
        tasks[id]?.run?.lock == nil && FileLock.isHeld(path: library.bundleURL(for: id).appending(path: ".lock", directoryHint: .notDirectory).path)
    }

    /// Waits, when task `id`'s run has ended and its end is still being recorded, until it is:
    /// what the user asks of the task then (suspend, cancel, delete, resume) applies to the
    /// state it ended in, and is not undone by the end being written after it.
    func settle(_ id: String) async {
        if finishing.contains(id) { _ = await waitUntilFinished(id) }
    }

    func waitUntilFinished(_ id: String) async -> DownloadState {
        if tasks[id]?.run == nil && !queue.contains(id) && !finishing.contains(id) {
            return (try? await machine(id).state) ?? .cancelled
        }
        return await withCheckedContinuation { continuation in
            finishWaiters[id, default: []].append(continuation)
        }
    }

    func notifyFinished(_ id: String, _ state: DownloadState) {
        guard tasks[id]?.run == nil, !queue.contains(id), !finishing.contains(id) else { return }
        for waiter in finishWaiters.removeValue(forKey: id) ?? [] { waiter.resume(returning: state) }
    }

    /// Forgets a task's plan and removes its bundle (off the actor: a long asset's bundle has
    /// tens of thousands of files).
    func removeData(_ id: String) async throws(CarryonError) {
        tasks[id]?.run?.lock = nil
        try await index.forgetPlan(of: id)
        try await BundleWriter(library: library).remove(id)
    }

    static func makeID() -> String {
        let alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz")
        var generator = SystemRandomNumberGenerator()
        return String((0..<10).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
    }

    /// `url` without the user and password it names, and the `Authorization: Basic` header
    /// they stand for (nil when it names none).
    static func separatingCredentials(_ url: String) -> (url: String, header: HTTPHeader?) {
        guard var components = URLComponents(string: url), components.user != nil || components.password != nil else { return (url, nil) }
        let user = components.user ?? ""
        let password = components.password ?? ""
        components.user = nil
        components.password = nil
        guard let stripped = components.string else { return (url, nil) }
        return (stripped, HTTPHeader(name: "Authorization", value: "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()))
    }

    static func defaultName(for url: String) -> String {
        var path = Substring(url)
        if let end = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<end] }
        let parts = path.split(separator: "/").filter { !$0.isEmpty }
        guard let last = parts.last else { return url }
        // A name for people: `my%20show` is `my show`.
        func decoded(_ part: Substring) -> String { String(part).removingPercentEncoding ?? String(part) }
        if ["main.m3u8", "master.m3u8", "index.m3u8", "playlist.m3u8", "prog_index.m3u8"].contains(last.lowercased()), parts.count >= 2 {
            return decoded(parts[parts.count - 2])
        }
        return last.hasSuffix(".m3u8") ? decoded(last.dropLast(5)) : decoded(last)
    }
}
