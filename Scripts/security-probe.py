#!/usr/bin/env python3
"""Replays the attacks README's security section lists against a `carryon` binary, black-box,
as an attacker and as a careless user would: one line `PASS`/`FAIL` each, the daemon's memory
before, with and after 1,500 held connections, and exit status 1 when anything failed.

    python3 Scripts/security-probe.py [--carryon .build/release/carryon]

Everything listens on and connects to loopback addresses only (127.0.0.1, and 127.0.0.2 standing
for a network address). `SecurityProbeTests` runs it in the test suite, against the release
binary in CI's second pass. Standard library only."""
import argparse, os, resource, shutil, sqlite3, subprocess, sys, tempfile, time

from probe_daemon import Daemon, closed_after, in_parallel, serve_files

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
results = []


def check(name, ok, detail=""):
    results.append((name, bool(ok)))
    print(f"{'PASS' if ok else 'FAIL'}  {name}" + (f": {detail}" if detail else ""), flush=True)


def probe_connections(binary, work):
    """Time limits, the connection cap, Host rules, headers, the API's refusals."""
    library = os.path.join(work, "connections")
    daemon = Daemon(binary, library, ["--head-timeout", "2", "--idle-timeout", "3", "--max-connections", "64"])
    try:
        status, *_ = daemon.raw(f"GET /api/assets HTTP/1.1\r\nHost: {daemon.host}\r\nConnection: close\r\n\r\n")
        check("no token: 403", status == 403, str(status))
        status, *_ = daemon.raw(f"GET {daemon.token_path}/api/assets HTTP/1.1\r\nHost: rebound.example\r\nConnection: close\r\n\r\n")
        check("a foreign Host (DNS rebinding): 403", status == 403, str(status))
        status, head, body = daemon.raw(f"GET {daemon.token_path}/api/assets HTTP/1.1\r\nHost: {daemon.host}\r\nHost: evil.example\r\nConnection: close\r\n\r\n")
        check("two Host lines: 400", status == 400, str(status))
        status, _, parsed, _ = daemon.call("POST", "/api/assets", {"url": "http://127.0.0.1:9/x.m3u8"}, ["Origin: https://evil.example"])
        check("a foreign page's POST (CSRF): 403", status == 403, str(status))
        status, head, body = daemon.raw(f"GET {daemon.token_path}/x/..%2f..%2findex.sqlite HTTP/1.1\r\nHost: {daemon.host}\r\nConnection: close\r\n\r\n")
        check("a path out of the bundle: not served", status in (400, 403, 404) and b"SQLite" not in body, str(status))
        for path in ["/%3Cscript%3Ealert(1)%3C/script%3E/main.m3u8", "/api/%3Cscript%3E", "/api/assets"]:
            status, head, body = daemon.raw(f"GET {daemon.token_path}{path} HTTP/1.1\r\nHost: {daemon.host}\r\nConnection: close\r\n\r\n")
            lower = head.lower()
            check(f"GET {path}: nosniff and a CSP{', the path not echoed' if status >= 400 else ''}",
                  "x-content-type-options: nosniff" in lower and "content-security-policy:" in lower and (status < 400 or b"script" not in body),
                  f"{status} {body[:120]!r}")
        status, *_ = daemon.call("POST", "/api/assets", "{" + " " * 70_000 + "}")
        check("a 70 KB body: 413", status == 413, str(status))
        status, _, parsed, _ = daemon.call("POST", "/api/assets", {"url": "http://127.0.0.1:9/x.m3u8", "minBitrate": -1})
        check("minBitrate -1: 400", status == 400, str(status))
        status, _, parsed, _ = daemon.call("POST", "/api/assets", {"url": "http://127.0.0.1:9/x.m3u8", "maxResolution": "99999999999x720"})
        check("a 99999999999-wide resolution: 400", status == 400, str(status))
        status, _, parsed, text = daemon.call("POST", "/api/assets", {"url": "http://viewer:s3cret@127.0.0.1:9/x.m3u8"})
        check("credentials in a stream URL: kept out of url", status == 201 and "s3cret" not in text, f"{status} {text[:200]}")
        asset = (parsed or {}).get("id", "none")
        for expiry in ["10000-01-01T00:00:00Z", "2026-02-30T00:00:00Z", "+010000-01-01T00:00:00.000Z"]:
            status, _, parsed, text = daemon.call("PUT", f"/api/assets/{asset}/policy", {"expiresAt": expiry})
            check(f"expiresAt {expiry}: 400", status == 400, f"{status} {text[:160]}")
        status, *_ = daemon.call("GET", f"/api/assets/{asset}/logs?limit=0")
        check("logs?limit=0: 400", status == 400, str(status))
        status, _, parsed, _ = daemon.call("GET", f"/api/assets/{asset}/logs?limit=5")
        check("logs?limit=5: a page with totals", status == 200 and "total" in (parsed or {}), str(status))

        # Time limits: the head 2 s, idle 3 s, a body at 1 KB/s after 2 s.
        outcomes = {}

        def silent():
            with daemon.connect() as s:
                outcomes["silent"] = closed_after(s, 20)

        def trickling():
            with daemon.connect() as s:
                opened = time.monotonic()
                for byte in f"GET {daemon.token_path}/api/assets HTTP/1.1\r\nHost: {daemon.host}\r\n\r\n":
                    try:
                        s.sendall(byte.encode())
                    except OSError:
                        break
                    time.sleep(0.3)
                outcomes["trickling"] = closed_after(s, 20, start=opened)

        def idle():
            with daemon.connect() as s:
                s.sendall(f"GET {daemon.token_path}/api/assets HTTP/1.1\r\nHost: {daemon.host}\r\n\r\n".encode())
                outcomes["idle"] = closed_after(s, 20)

        def stalled_body():
            with daemon.connect() as s:
                s.sendall(f"POST {daemon.token_path}/api/assets HTTP/1.1\r\nHost: {daemon.host}\r\nContent-Type: application/json\r\nContent-Length: 52428800\r\n\r\n".encode() + b" " * 1024)
                outcomes["stalled"] = closed_after(s, 20)

        in_parallel(silent, trickling, idle, stalled_body)
        for name, (data, seconds), expected, low, high in [
            ("a connection that sends nothing", outcomes["silent"], b"HTTP/1.1 408", 1.8, 8),
            ("a head trickled a byte each 0.3 s", outcomes["trickling"], b"HTTP/1.1 408", 1.8, 8),
            ("an idle keep-alive connection", outcomes["idle"], b"HTTP/1.1 200", 2.8, 10),
            ("a 50 MB body of which 1 KB comes", outcomes["stalled"], b"HTTP/1.1 408", 2.5, 10),
        ]:
            check(f"{name}: closed within its limit", seconds is not None and low <= seconds <= high and data.startswith(expected),
                  f"{'open' if seconds is None else f'{seconds:.1f} s'}, {data[:40]!r}")

        held = [daemon.connect() for _ in range(64)]
        time.sleep(0.5)
        extra = daemon.connect()
        data, seconds = closed_after(extra, 10)
        check("the 65th connection of 64: 503 at once", data.startswith(b"HTTP/1.1 503") and seconds is not None, f"{data[:60]!r}")
        for sock in held:
            sock.close()
        extra.close()
    finally:
        daemon.stop()


def settled_rss(daemon, seconds=4.0, every=0.25):
    """The least RSS the daemon shows over `seconds` after connections close. One sample can
    catch it mid-way through freeing (on a busy machine the runtime returns pages late, and one
    sample 3 s after the close moved the figure by up to 12 MiB); the least over the window is
    what it settles to, and a leak keeps even that high."""
    time.sleep(1)
    least = daemon.rss()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(every)
        least = min(least, daemon.rss())
    return least


def probe_memory(binary, work, count=1500, bursts=4):
    """The daemon's memory with `count` idle connections held, and after they close, `bursts`
    times. What the daemon settles to after a burst says little: glibc and the runtime keep freed
    pages for later, and how much they keep wanders (38 to 53 MiB between the bursts of one run,
    measured). The figure while connections are held does not: every connection's memory is in
    use then, and what a burst before freed is reused. So the first burst warms up, and a leak
    shows as the held figure growing over the bursts after it. The settled figures are printed,
    not judged: one settled only 0.1 MiB below the figure held in its burst."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = count + 200
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))
    count = min(count, resource.getrlimit(resource.RLIMIT_NOFILE)[0] - 200)
    daemon = Daemon(binary, os.path.join(work, "memory"), ["--max-connections", str(count + 100), "--head-timeout", "60"])
    mib = lambda n: f"{n / 1048576:.1f} MiB"
    try:
        time.sleep(0.5)
        before = daemon.rss()
        held_figures, settled_figures, answered = [], [], []
        for _ in range(bursts):
            held = []
            for _ in range(count):
                sock = daemon.connect()
                sock.sendall(b"GET ")
                held.append(sock)
            time.sleep(1.5)
            held_figures.append(daemon.rss())
            answered.append(daemon.call("GET", "/api/assets")[0])
            for sock in held:
                sock.close()
            settled_figures.append(settled_rss(daemon))
        answered.append(daemon.call("GET", "/api/assets")[0])
        bursts_shown = ", ".join(f"{mib(h)} held, {mib(s)} settled" for h, s in zip(held_figures, settled_figures))
        print(f"INFO  memory of the daemon: {mib(before)} before; with {count} connections held and after they closed: {bursts_shown}", flush=True)
        check(f"{count} held connections: still answering", answered == [200] * (bursts + 1), str(answered))
        # After the first burst the held figure stays within 0.7 MiB (measured over 7 runs, 3 of
        # them beside a CPU hog); a leak of 1.4 KiB a connection adds 4 MiB over two bursts
        # (checked: 2 KiB a connection leaked on purpose failed it, 6.3 MiB more).
        growth = held_figures[-1] - held_figures[1]
        check(f"bursts after the first hold no more (no leak per connection): {bursts - 2} bursts", growth <= 4 * 1048576, f"{mib(growth)} more")
    finally:
        daemon.stop()


def probe_library(binary, work):
    """A typo'd expiry refused; a far-future row written straight into the index breaks nothing."""
    library = os.path.join(work, "library")
    media = os.path.join(ROOT, "Samples", "media", "ts", "180p", "index.m3u8")
    ids = []
    for _ in range(2):
        done = subprocess.run([binary, "download", media, "--library", library], capture_output=True, text=True)
        ids.append(done.stdout.strip().splitlines()[-1] if done.stdout.strip() else "")
    refused = subprocess.run([binary, "policy", ids[0], "--expires", "3000000d", "--library", library], capture_output=True, text=True)
    check("policy --expires 3000000d: refused, naming 9999-12-31", refused.returncode != 0 and "9999-12-31" in refused.stderr,
          refused.stderr.strip()[:160])
    refused = subprocess.run([binary, "policy", ids[0], "--expires", "2026-02-30", "--library", library], capture_output=True, text=True)
    check("policy --expires 2026-02-30: refused", refused.returncode != 0 and "does not exist" in refused.stderr, refused.stderr.strip()[:160])
    index = sqlite3.connect(os.path.join(library, "index.sqlite"))
    index.execute("UPDATE asset SET expiresAt = '10240-08-16 04:00:00.000' WHERE id = ?", (ids[0],))
    index.commit()
    index.close()
    listed = subprocess.run([binary, "list", "--library", library], capture_output=True, text=True)
    check("an unreadable expiry in the index: list still lists every asset and names it",
          listed.returncode == 0 and all(i in listed.stdout for i in ids) and "10240" in listed.stderr, listed.stderr.strip()[:200])
    daemon = Daemon(binary, library, [])
    try:
        status, _, parsed, _ = daemon.call("GET", "/api/assets")
        check("... and serve's asset list answers", status == 200 and len(parsed or []) == 2, str(status))
        status, head, body = daemon.raw(f"GET {daemon.token_path}/{ids[1]}/main.m3u8 HTTP/1.1\r\nHost: {daemon.host}\r\nConnection: close\r\n\r\n")
        check("... and the other asset's playlist is served", status == 200 and body.startswith(b"#EXTM3U"), str(status))
    finally:
        daemon.stop()
    repaired = subprocess.run([binary, "policy", ids[0], "--expires", "never", "--library", library], capture_output=True, text=True)
    listed = subprocess.run([binary, "list", "--library", library], capture_output=True, text=True)
    check("policy repairs it", repaired.returncode == 0 and "10240" not in listed.stderr, repaired.stderr.strip()[:160])


def probe_files(binary, work):
    """--allow-files DIR: a playlist inside naming a file outside is refused, and the file never copied."""
    outside = os.path.join(work, "outside")
    allowed = os.path.join(outside, "allowed")
    os.makedirs(allowed)
    canary = "CANARY-PROBE-NOT-TO-BE-READ"
    open(os.path.join(outside, "canary.ts"), "w").write(canary)
    os.symlink(os.path.join(outside, "canary.ts"), os.path.join(allowed, "link.ts"))
    escapes = {"dotdot.m3u8": "../canary.ts", "absolute.m3u8": "file://" + os.path.join(outside, "canary.ts"),
               "percent.m3u8": "%2e%2e/canary.ts", "link.m3u8": "link.ts"}
    for name, uri in escapes.items():
        open(os.path.join(allowed, name), "w").write(f"#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\n{uri}\n#EXT-X-ENDLIST\n")
    library = os.path.join(work, "files")
    daemon = Daemon(binary, library, ["--allow-files", allowed])
    try:
        for name, uri in escapes.items():
            status, _, parsed, text = daemon.call("POST", "/api/assets", {"url": os.path.join(allowed, name)})
            asset, state, error = (parsed or {}).get("id"), "", ""
            for _ in range(100):
                _, _, shown, _ = daemon.call("GET", f"/api/assets/{asset}")
                state, error = (shown or {}).get("state", ""), (shown or {}).get("error", "")
                if state in ("failed", "completed", "suspended"):
                    break
                time.sleep(0.1)
            check(f"--allow-files: a segment {uri}: refused", state == "failed" and "outside the folders allowed" in error, f"{state}: {error[:160]}")
    finally:
        daemon.stop()
    leaked = [path for folder, _, files in os.walk(library) for path in (os.path.join(folder, f) for f in files) if canary.encode() in open(path, "rb").read()]
    check("--allow-files: no canary byte in the library", not leaked, ", ".join(leaked))


def probe_private_origins(binary, work):
    """Bound beyond loopback: no stream on this machine or its link is fetched for an API caller."""
    server, asked = serve_files(os.path.join(ROOT, "Samples", "media"))
    port = server.server_address[1]
    daemon = Daemon(binary, os.path.join(work, "private"), ["--bind", "127.0.0.2", "--allow-plain-http"], address="127.0.0.2")
    try:
        for url in [f"http://127.0.0.1:{port}/ts/180p/index.m3u8", f"http://2130706433:{port}/ts/180p/index.m3u8",
                    f"http://[::1]:{port}/x.m3u8", "http://169.254.169.254/latest/meta-data/", "http://0.0.0.0:22/",
                    f"http://127.0.0.2:{daemon.port}{daemon.token_path}/api/storage"]:
            status, _, parsed, text = daemon.call("POST", "/api/assets", {"url": url})
            check(f"bound beyond loopback: {url}: 400", status == 400 and "url-refused" in text and "quotaBytes" not in text, f"{status} {text[:120]}")
        check("bound beyond loopback: the origin was asked for nothing", not asked, str(asked))
    finally:
        daemon.stop()
    daemon = Daemon(binary, os.path.join(work, "private-allowed"), ["--bind", "127.0.0.2", "--allow-plain-http", "--allow-private-origins"], address="127.0.0.2")
    try:
        status, _, parsed, text = daemon.call("POST", "/api/assets", {"url": f"http://127.0.0.1:{port}/ts/180p/index.m3u8"})
        check("--allow-private-origins: taken", status == 201, f"{status} {text[:120]}")
    finally:
        daemon.stop()
        server.shutdown()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--carryon", default=os.path.join(ROOT, ".build", "release", "carryon"), help="the binary to probe")
    parser.add_argument("--connections", type=int, default=1500, help="connections held for the memory figures")
    arguments = parser.parse_args()
    binary = os.path.abspath(arguments.carryon)
    if not os.access(binary, os.X_OK):
        sys.exit(f"security-probe: no carryon binary at {binary}: build it with `swift build -c release --product carryon`, or give --carryon")
    work = tempfile.mkdtemp(prefix="carryon-probe-")
    started = time.monotonic()
    try:
        for probe in [probe_connections, probe_library, probe_files, probe_private_origins]:
            try:
                probe(binary, work)
            except Exception as error:  # a probe that breaks is a failure, named
                check(f"{probe.__name__} ran to its end", False, repr(error))
        try:
            probe_memory(binary, work, arguments.connections)
        except Exception as error:
            check("probe_memory ran to its end", False, repr(error))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    failed = [name for name, ok in results if not ok]
    print(f"security-probe: {len(results) - len(failed)} of {len(results)} passed in {time.monotonic() - started:.0f} s against {binary}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
