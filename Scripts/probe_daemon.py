"""The daemon and the origin `security-probe.py` works with: `carryon serve` driven over raw
sockets (so that a request can be as malformed as an attacker makes it), a socket read until
the server closes it, jobs run at once, and a plain HTTP origin for a folder. Standard library
only; every socket is on a loopback address."""
import json, os, socket, subprocess, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Daemon:
    """`carryon serve` with `args`, its base URL read from its first line."""

    def __init__(self, binary, library, args, address="127.0.0.1"):
        self.process = subprocess.Popen([binary, "serve", "--library", library] + args,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.process.stdout.readline().strip()
        if not line.startswith("http://"):
            raise RuntimeError(f"serve printed {line!r}: {self.process.stderr.read()[:2000]}")
        self.base = line
        hostport = line.split("/")[2]
        self.port = int(hostport.rsplit(":", 1)[1])
        self.token_path = "/" + line.split("/", 3)[3]
        self.address = address
        self.host = f"{address}:{self.port}"

    def connect(self):
        return socket.create_connection((self.address, self.port), timeout=30)

    def raw(self, request, timeout=30):
        """Sends the request text, reads until the server closes: (status, head, body)."""
        with self.connect() as s:
            s.settimeout(timeout)
            s.sendall(request.encode())
            data = b""
            while True:
                try:
                    chunk = s.recv(65536)
                except socket.timeout:
                    break
                if not chunk:
                    break
                data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        status = int(head.split(b" ")[1]) if head.startswith(b"HTTP/") else 0
        return status, head.decode("latin-1"), body

    def call(self, method, path, body=None, headers=()):
        request = f"{method} {self.token_path}{path} HTTP/1.1\r\nHost: {self.host}\r\nConnection: close\r\n"
        for header in headers:
            request += header + "\r\n"
        if body is not None:
            data = json.dumps(body) if not isinstance(body, str) else body
            request += f"Content-Type: application/json\r\nContent-Length: {len(data.encode())}\r\n\r\n{data}"
        else:
            request += "\r\n"
        status, head, raw = self.raw(request)
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = None
        return status, head, parsed, raw.decode("utf-8", "replace")

    def rss(self):
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        return 0

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def closed_after(sock, seconds, start=None):
    """Reads until the server closes: (what came, seconds from `start` (now by default) until
    it closed, or None)."""
    start = time.monotonic() if start is None else start
    sock.settimeout(0.2)
    data = b""
    while time.monotonic() - start < seconds:
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            continue
        except OSError:
            return data, time.monotonic() - start
        if not chunk:
            return data, time.monotonic() - start
        data += chunk
    return data, None


def in_parallel(*jobs):
    threads = [threading.Thread(target=job) for job in jobs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def serve_files(folder):
    """A plain HTTP origin on 127.0.0.1 for `folder`, and the paths it was asked for."""
    asked = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            asked.append(self.path)
            path = os.path.join(folder, self.path.lstrip("/").split("?")[0])
            if not os.path.isfile(path):
                self.send_error(404)
                return
            data = open(path, "rb").read()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, asked
