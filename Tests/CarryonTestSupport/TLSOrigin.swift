import Foundation

/// nginx from Debian serving a folder over HTTPS and HTTP/2, one server per certificate, each on
/// a port of its own on 127.0.0.1 and the same port on ::1: an origin as real CDNs are, with the
/// certificates the test's CA issued (``TestCA``).
public enum TLSOrigin {
    /// What runs: each certificate's base URL (`https://127.0.0.1:PORT`), in the order given,
    /// and nginx's access log (combined format: each request line ends with its protocol, `HTTP/2.0`).
    public struct Running: Sendable {
        public let baseURLs: [String]
        public let accessLog: URL

        /// The access log's lines.
        public func accessLines() -> [String] {
            ((try? String(contentsOf: accessLog, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
    }

    /// Runs nginx serving `root` with each of `certificates` (the test must hold a heavy-work
    /// turn), its files in `folder`, for `body`.
    public static func withRunning<Result: Sendable>(root: URL, certificates: [TestCA.Issued], in folder: URL,
                                                     _ body: (Running) async throws -> Result) async throws -> Result {
        let nginx = try ServerProgram.require("nginx")
        let state = folder.appendingPathComponent("nginx")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        let accessLog = state.appendingPathComponent("access.log")
        return try await ServerProgram.run(nginx, ports: certificates.count, configure: { ports in
            let servers = zip(ports, certificates).map { port, issued in
                """
                 server { listen 127.0.0.1:\(port) ssl http2; listen [::1]:\(port) ssl http2; ssl_certificate \(issued.certificate.path); \
                ssl_certificate_key \(issued.key.path); root \(root.path); }
                """
            }.joined(separator: "\n")
            let temporary = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]
                .map { "\($0)_temp_path \(state.path)/\($0);" }.joined(separator: " ")
            let configuration = """
            daemon off; master_process off; error_log \(state.path)/error.log info; pid \(state.path)/nginx.pid;
            events { worker_connections 256; }
            http {
             access_log \(accessLog.path) combined; \(temporary)
             types { application/vnd.apple.mpegurl m3u8; video/mp2t ts; video/mp4 mp4 m4s; text/vtt vtt; application/dash+xml mpd; }
            \(servers)
            }
            """
            let file = state.appendingPathComponent("nginx.conf")
            try configuration.write(to: file, atomically: true, encoding: .utf8)
            return ["-c", file.path, "-e", state.appendingPathComponent("error.log").path]
        }) { ports in
            try await body(Running(baseURLs: ports.map { "https://127.0.0.1:\($0)" }, accessLog: accessLog))
        }
    }
}

/// The proxies companies and schools put in the way, from Debian: tinyproxy (HTTP CONNECT, with
/// basic authentication when given credentials) and microsocks (SOCKS5).
public enum TestProxy {
    /// Runs tinyproxy on 127.0.0.1 (with `user` and `password` required when given), its log in
    /// `folder`, for `body` with its port and log.
    public static func withTinyproxy<Result: Sendable>(user: String? = nil, password: String? = nil, in folder: URL,
                                                       _ body: (Int, URL) async throws -> Result) async throws -> Result {
        let tinyproxy = try ServerProgram.require("tinyproxy")
        let log = folder.appendingPathComponent("tinyproxy.log")
        return try await ServerProgram.run(tinyproxy, ports: 1, configure: { ports in
            var configuration = """
            Port \(ports[0])
            Listen 127.0.0.1
            Timeout 60
            LogFile "\(log.path)"
            LogLevel Connect
            MaxClients 64

            """
            if let user, let password { configuration += "BasicAuth \(user) \(password)\n" }
            let file = folder.appendingPathComponent("tinyproxy.conf")
            try configuration.write(to: file, atomically: true, encoding: .utf8)
            return ["-d", "-c", file.path]
        }) { ports in
            try await body(ports[0], log)
        }
    }

    /// Runs microsocks (SOCKS5, no authentication) on 127.0.0.1 for `body` with its port.
    public static func withMicrosocks<Result: Sendable>(_ body: (Int) async throws -> Result) async throws -> Result {
        let microsocks = try ServerProgram.require("microsocks")
        return try await ServerProgram.run(microsocks, ports: 1, configure: { ports in ["-i", "127.0.0.1", "-p", "\(ports[0])"] }) { ports in
            try await body(ports[0])
        }
    }
}
