import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// What every `carryon` command promises a person at a terminal and a script alike: errors that
/// say what to do, documented exit statuses, colour only on a terminal, help with examples,
/// shell completions, and `--json` shapes as README.md documents them.
@Suite("command-line conventions", .heavy)
struct CLIConventionsTests {
    static let commands = [
        "demo", "catalog", "inspect", "download", "list", "show", "resume", "cancel", "delete", "add", "serve", "play",
        "policy", "storage", "purge", "logs", "keys", "origin",
        "keys list", "keys prefetch", "keys fetch", "keys renew", "keys invalidate",
    ]

    // MARK: Errors and exit statuses

    @Test("an error is two lines on stderr: what went wrong, then a hint naming what to run; exit status 1")
    func errorSaysWhatToDo() async throws {
        try await withTemporaryDirectory { folder in
            let result = try await runCarryon(["show", "nosuchid", "--library", folder.path])
            #expect(result.status == 1)
            #expect(result.standardOutput.isEmpty)
            let lines = result.standardError.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
            #expect(lines.count == 2, "\(lines)")
            #expect(lines.first == "carryon: no asset has the id nosuchid")
            #expect(lines.last == "  hint: `carryon list` shows the ids in this library (--library picks another).")
        }
    }

    @Test("a failed download says why in one line and how to continue it, naming the asset")
    func failedDownloadHint() async throws {
        try await withTemporaryDirectory { folder in
            try await Origin(root: sampleMedia.path).withRunning { origin in
                let url = origin.baseURL + "/nosuch/main.m3u8"
                let result = try await runCarryon(["download", url, "--library", folder.path])
                #expect(result.status == 1)
                let id = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
                #expect(id.count == 10, "the id ends stdout: \(result.standardOutput)")
                let lines = result.standardError.split(separator: "\n").map(String.init)
                #expect(lines.suffix(2).first == "carryon: \(id): \(url): the server answered 404 Not Found", "\(lines)")
                #expect(lines.last?.hasPrefix("  hint: ") == true && lines.last?.contains("carryon resume \(id)") == true, "\(lines)")
            }
        }
    }

    /// An app embedding the library, the web app and a player see the engine's messages; only
    /// a person at a terminal can run a command, so commands are named in the CLI's hints.
    @Test("the engine's and the server's error messages name no carryon command; the hints of the command line do")
    func engineMessagesNameNoCommand() throws {
        var offending: [String] = []
        for module in ["Carryon", "CarryonServer", "HLS"] {
            let folder = packageRoot.appendingPathComponent("Sources/\(module)")
            let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?
                .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
            #expect(!files.isEmpty, "no sources under \(folder.path)")
            for file in files {
                let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
                for (number, line) in lines.enumerated() {
                    let code = line.trimmingCharacters(in: .whitespaces)
                    guard !code.hasPrefix("//"), code.contains("\""),
                          code.contains("`carryon ") || code.contains("Ctrl-C") || code.contains("carryon process") else { continue }
                    offending.append("\(module)/\(file.lastPathComponent):\(number + 1): \(code)")
                }
            }
        }
        #expect(offending.isEmpty, "\(offending.joined(separator: "\n"))")
    }

    @Test("usage errors exit 64 and name the problem", arguments: [
        ["download"], ["show"], ["list", "--no-such-flag"], ["origin", "/no/such/folder"], ["serve", "--host", "0.0.0.0"],
    ])
    func usageErrors(arguments: [String]) async throws {
        let result = try await runCarryon(arguments)
        #expect(result.status == 64, "\(arguments): \(result.standardError)")
        #expect(result.standardError.hasPrefix("Error: "), "\(result.standardError)")
    }

    @Test("a mistyped command is named as none, with the commands one or two keys away (a group's too); a word near none gets no guess, a key is hidden; exit 64", arguments: [
        (["wrokers"], "Error: 'wrokers' is not a carryon command. Did you mean 'workers'?", "carryon"),
        (["sho", "7k2m9x4q1b"], "Error: 'sho' is not a carryon command. Did you mean 'show'?", "carryon"),
        (["keys", "lsit"], "Error: 'lsit' is not a carryon keys command. Did you mean 'list'?", "carryon keys"),
        (["frobnicate"], "Error: 'frobnicate' is not a carryon command.", "carryon"),
        // A key pasted where the command belongs is not printed back.
        (["0123456789abcdef0123456789abcdef:00112233445566778899aabbccddeeff"], "Error: '<hidden>' is not a carryon command.", "carryon"),
    ])
    func mistypedCommand(arguments: [String], message: String, group: String) async throws {
        let result = try await runCarryon(arguments)
        #expect(result.status == 64, "\(arguments): \(result.standardError)")
        #expect(result.standardOutput.isEmpty)
        let lines = result.standardError.split(separator: "\n").map(String.init)
        #expect(lines == [message, "Usage: \(group) <subcommand>", "  See '\(group) --help' for more information."], "\(lines)")
    }

    @Test("a command that works on assets the library must hold refuses a library folder that is not there (a typo), naming it, and makes none", arguments: [
        ["resume", "x"], ["suspend", "x"], ["cancel", "x"], ["delete", "x"], ["add", "x", "--audio", "all"], ["play", "x"],
        ["policy", "x", "--priority", "important"], ["keys", "renew", "x"], ["keys", "invalidate", "x"], ["keys", "fetch", "x"],
    ])
    func typoedLibraryRefused(arguments: [String]) async throws {
        try await withTemporaryDirectory { folder in
            let typo = folder.appendingPathComponent("carryon-lbrary").path
            let result = try await runCarryon(arguments + ["--library", typo])
            #expect(result.status == 1 && result.standardError.hasPrefix("carryon: no library at \(typo): there is no such folder"), "\(arguments): \(result.standardError)")
            #expect(!FileManager.default.fileExists(atPath: typo), "\(arguments) made a library at the typo")
        }
    }

    // MARK: Colour

    @Test("colour on a terminal; none with NO_COLOR, with TERM=dumb, or when piped")
    func colourOnlyOnTerminal() async throws {
        let script = try #require(findExecutable("script"), "script(1) (util-linux) gives the test a terminal; apt-get install -y bsdutils")
        try await withTemporaryDirectory { folder in
            let command = "\(carryonBinary.path) show nosuchid --library \(folder.path)"
            let escape = "\u{1B}["
            let terminal = try await run(script, ["-qec", command, "/dev/null"], environment: ["TERM": "xterm", "NO_COLOR": ""])
            #expect(terminal.standardOutput.contains(escape + "31mcarryon:"), "\(terminal.standardOutput.debugDescription)")
            let noColor = try await run(script, ["-qec", command, "/dev/null"], environment: ["TERM": "xterm", "NO_COLOR": "1"])
            #expect(noColor.standardOutput.contains("carryon: no asset has the id nosuchid"))
            #expect(!noColor.standardOutput.contains(escape), "\(noColor.standardOutput.debugDescription)")
            let dumb = try await run(script, ["-qec", command, "/dev/null"], environment: ["TERM": "dumb", "NO_COLOR": ""])
            #expect(dumb.standardOutput.contains("carryon: no asset has the id nosuchid"))
            #expect(!dumb.standardOutput.contains(escape), "\(dumb.standardOutput.debugDescription)")
            let piped = try await runCarryon(["show", "nosuchid", "--library", folder.path], environment: ["TERM": "xterm", "NO_COLOR": ""])
            #expect(!piped.standardError.contains(escape))
        }
    }

    // MARK: Help and completions

    @Test("every command names itself in its configuration, so that starting does not derive 20 names from type names by reflection (4 ms of each run of `carryon list`)")
    func commandsNameThemselves() throws {
        let folder = packageRoot.appendingPathComponent("Sources/CarryonCLI")
        var unnamed: [String] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasSuffix(".swift") {
            let lines = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8).split(separator: "\n")
            for (number, line) in lines.enumerated() where line.contains("CommandConfiguration(") {
                let next = number + 1 < lines.count ? lines[number + 1] : ""
                if !line.contains("commandName:"), !next.contains("commandName:") { unnamed.append("\(file):\(number + 1)") }
            }
        }
        #expect(unnamed.isEmpty, "CommandConfiguration without commandName: \(unnamed)")
    }

    @Test("every command's --help has examples", arguments: commands)
    func helpHasExamples(command: String) async throws {
        let result = try await runCarryon(command.split(separator: " ").map(String.init) + ["--help"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("Example"), "\(command) --help:\n\(result.standardOutput)")
        #expect(result.standardOutput.contains("  carryon \(command) "), "\(command) --help lacks an example of itself:\n\(result.standardOutput)")
    }

    @Test("the bash completion script is valid bash and completes commands, subcommands and options")
    func bashCompletion() async throws {
        let bash = try #require(findExecutable("bash"))
        let generated = try await runCarryon(["--generate-completion-script", "bash"])
        #expect(generated.status == 0)
        try await withTemporaryDirectory { folder in
            let script = try folder.write(generated.standardOutput, to: "carryon.bash")
            let syntax = try await run(bash, ["-n", script.path])
            #expect(syntax.status == 0, "\(syntax.standardError)")
            func complete(_ words: [String]) async throws -> Set<String> {
                let line = words.joined(separator: " ")
                let program = """
                    source '\(script.path)'
                    COMP_WORDS=(\(words.map { "'\($0)'" }.joined(separator: " ")))
                    COMP_CWORD=\(words.count - 1); COMP_LINE='\(line)'; COMP_POINT=\(line.utf8.count)
                    _carryon carryon '\(words[words.count - 1])' '\(words[words.count - 2])'; printf '%s\\n' "${COMPREPLY[@]}"
                    """
                let result = try await run(bash, ["-c", program])
                return Set(result.standardOutput.split(separator: "\n").map(String.init))
            }
            let commands = try await complete(["carryon", ""])
            #expect(commands.isSuperset(of: ["demo", "download", "play", "keys", "catalog"]), "\(commands)")
            #expect(try await complete(["carryon", "de"]) == ["demo", "delete"])
            let keys = try await complete(["carryon", "keys", ""])
            #expect(keys.isSuperset(of: ["list", "prefetch", "fetch", "renew", "invalidate"]), "\(keys)")
            let options = try await complete(["carryon", "download", "--"])
            #expect(options.isSuperset(of: ["--audio", "--subtitles", "--json", "--library", "--catalog"]), "\(options)")
        }
    }

    @Test("zsh and fish completion scripts name every command (syntax-checked when the shell is installed)",
          arguments: ["zsh", "fish"])
    func otherCompletions(shell: String) async throws {
        let generated = try await runCarryon(["--generate-completion-script", shell])
        #expect(generated.status == 0)
        for command in ["demo", "catalog", "download", "play", "prefetch", "invalidate", "keep-serving", "no-prefetch-keys"] {
            #expect(generated.standardOutput.contains(command), "\(shell) completion lacks \(command)")
        }
        if let program = findExecutable(shell) {
            try await withTemporaryDirectory { folder in
                let script = try folder.write(generated.standardOutput, to: "carryon.\(shell)")
                let syntax = try await run(program, ["-n", script.path])
                #expect(syntax.status == 0, "\(syntax.standardError)")
            }
        }
    }

    // MARK: JSON shapes (README.md, "JSON output")

    /// The keys README.md documents for one asset (`show`, `list`, `cancel`): always present,
    /// and present once known.
    static let assetKeys: Set<String> = ["id", "name", "url", "state", "progress", "bytesOnDisk", "bytesByRendition", "bundlePath", "format",
                                         "createdAt", "policy", "cache"]
    static let assetOptionalKeys: Set<String> = ["error", "selection", "duration", "playlist", "mpd", "completedAt", "lastPlayedAt", "playback"]
    /// Each event's keys besides `event` and `id`.
    static let eventKeys: [String: Set<String>] = [
        "state": ["state"], "selection": ["selection"], "location": ["location"],
        "progress": ["bytesDone", "bytesExpected", "fraction", "bytesPerSecond", "secondsRemaining", "connections"],
        "time-range": ["rendition", "start", "end"], "rendition-completed": ["rendition"], "finished": ["location"],
        "failed": ["error"], "warnings": ["warnings"], "done": ["state", "bytesDone", "bytesExpected", "location", "playlist"],
    ]
    static var eventNames: Set<String> { Set(eventKeys.keys) }
    /// The keys always there (a rate and a time left are unknown at first; an error only on failure).
    static let requiredEventKeys: [String: Set<String>] = [
        "state": ["state"], "selection": ["selection"], "progress": ["bytesDone", "bytesExpected", "fraction"],
        "finished": ["location"], "done": ["state", "bytesDone", "bytesExpected", "location", "playlist"],
    ]

    @Test("each command's --json output has the shape README.md documents")
    func jsonShapes() async throws {
        try await withTemporaryDirectory { folder in
            let library = ["--library", folder.appendingPathComponent("library").path]
            try await Origin(root: sampleMedia.path).withRunning { origin in
                let url = origin.baseURL + "/fmp4/main.m3u8"

                let inspect = try Self.object(try await runCarryon(["inspect", url, "--json"]))
                #expect(Set(inspect.keys).isSuperset(of: ["type", "url", "variants", "renditions"]), "\(inspect.keys)")

                let download = try await runCarryon(["download", url, "--json", "--audio", "all"] + library)
                #expect(download.status == 0, "\(download.standardError)")
                var id = ""
                for line in download.standardOutput.split(separator: "\n") {
                    let event = try Self.object(String(line))
                    let name = event["event"] as? String ?? ""
                    #expect(Self.eventNames.contains(name), "\(line)")
                    #expect(Set(event.keys).isSubset(of: Set(["event", "id"]).union(Self.eventKeys[name] ?? [])), "\(line)")
                    #expect(Set(event.keys).isSuperset(of: Self.requiredEventKeys[name] ?? []), "\(line)")
                    if name == "done" {
                        #expect(event["playlist"] as? String == (event["location"] as? String).map { $0 + "/main.m3u8" }, "\(line)")
                    }
                    id = event["id"] as? String ?? id
                }
                #expect(download.standardOutput.split(separator: "\n").last.map { (try? Self.object(String($0)))?["event"] as? String } == "done")

                let show = try Self.object(try await runCarryon(["show", id, "--json"] + library))
                #expect(Set(show.keys).isSuperset(of: Self.assetKeys), "missing: \(Self.assetKeys.subtracting(show.keys))")
                #expect(Set(show.keys).isSubset(of: Self.assetKeys.union(Self.assetOptionalKeys)),
                        "undocumented: \(Set(show.keys).subtracting(Self.assetKeys.union(Self.assetOptionalKeys)))")
                #expect(Self.keys(show["progress"]).isSuperset(of: ["bytesDone", "bytesExpected", "isExact", "loadedTimeRanges"]))

                let list = try JSONSerialization.jsonObject(with: Data(try await runCarryon(["list", "--json"] + library).standardOutput.utf8)) as? [[String: Any]]
                #expect(list?.count == 1 && Self.keys(list?.first) == Set(show.keys))

                let storage = try Self.object(try await runCarryon(["storage", "--json"] + library))
                #expect(Set(storage.keys).isSuperset(of: ["libraryBytes", "freeBytes", "settings"]), "\(storage.keys)")
                let purge = try Self.object(try await runCarryon(["purge", "--dry-run", "--json"] + library))
                #expect(Set(purge.keys) == ["removals", "kept", "bytesFreed", "libraryBytesAfter", "freeBytesAfter", "satisfied", "shortfall"], "\(purge.keys)")
                let policy = try Self.object(try await runCarryon(["policy", id, "--priority", "important", "--expires", "30d", "--json"] + library))
                #expect(Set(policy.keys) == ["expiresAt", "priority"] && policy["priority"] as? String == "important", "\(policy)")
                let logs = try Self.object(try await runCarryon(["logs", id, "--json"] + library))
                #expect(Set(logs.keys) == ["access", "error"])
                let access = try #require(logs["access"] as? [[String: String]])
                #expect(!access.isEmpty && access.allSatisfy { $0["x-event"] == "download" && $0["cs-uri"] != nil && $0["sc-status"] == "200" })
                let verify = try Self.object(try await runCarryon(["verify", id, "--json"] + library))
                #expect(Set(verify.keys) == ["assets", "repairs"], "\(verify.keys)")
                #expect(Self.keys((verify["assets"] as? [Any])?.first) == ["id", "name", "resources", "files", "bytes", "hashed", "recorded", "seconds", "damage", "manifests", "manifestsChecked"])
                let keys = try JSONSerialization.jsonObject(with: Data(try await runCarryon(["keys", "list", id, "--json"] + library).standardOutput.utf8))
                #expect((keys as? [Any])?.isEmpty == true, "the sample is not encrypted")

                let prefetched = try Self.object(try await runCarryon(["keys", "prefetch", url, "--json"] + library))
                #expect(Set(prefetched.keys) == ["id", "keys"] && (prefetched["keys"] as? [Any])?.isEmpty == true, "\(prefetched)")
                _ = try await runCarryon(["delete", prefetched["id"] as? String ?? "", "--json"] + library)

                let catalogFile = try folder.write(#"[{"name": "Sample", "playlist_url": "\#(url)"}]"#, to: "catalog.json")
                let catalog = try JSONSerialization.jsonObject(with: Data(try await runCarryon(["catalog", catalogFile.path, "--json"] + library).standardOutput.utf8)) as? [[String: Any]]
                #expect(Self.keys(catalog?.first) == ["name", "url", "state", "id", "fraction", "bytesOnDisk", "playableOffline"])
                #expect(catalog?.first?["state"] as? String == "completed")

                let delete = try Self.object(try await runCarryon(["delete", id, "--json"] + library))
                #expect(delete["id"] as? String == id && delete["deleted"] as? Bool == true)
            }

            let serve = try RunningProcess(carryon: ["serve", "--json"] + library)
            var serveLine: String?
            for await line in serve.lines { serveLine = line; break }
            serve.kill(SIGINT)
            _ = await serve.wait()
            let served = try Self.object(try #require(serveLine))
            #expect(Set(served.keys) == ["event", "url"] && served["event"] as? String == "listening", "\(served)")

            let origin = try RunningProcess(carryon: ["origin", sampleMedia.path, "--json", "--profile", "3g"])
            var first: String?
            for await line in origin.lines { first = line; break }
            origin.kill(SIGINT)
            _ = await origin.wait()
            let listening = try Self.object(try #require(first))
            #expect(listening["event"] as? String == "listening" && (listening["url"] as? String)?.hasPrefix("http://127.0.0.1:") == true)
            #expect(Self.keys(listening["profile"]).isSuperset(of: ["latencyMilliseconds", "failRate", "seed"]))
        }
    }

    /// The keys of a JSON object (none for anything else).
    static func keys(_ value: Any?) -> Set<String> {
        Set((value as? [String: Any])?.keys.map { $0 } ?? [])
    }

    static func object(_ result: ProcessResult) throws -> [String: Any] {
        guard result.status == 0 else { throw TestSupportError("exit \(result.status): \(result.standardError)") }
        return try object(result.standardOutput)
    }

    static func object(_ text: String) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw TestSupportError("not a JSON object: \(text)")
        }
        return object
    }
}
