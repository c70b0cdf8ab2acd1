"""A PostgreSQL cluster of a benchmark's own (Benchmarks/index-latency.py, fleet-scaling.py)."""
import os
import pathlib
import socket
import subprocess
import sys


def run(command, **kwargs):
    return subprocess.run(command, check=True, capture_output=True, text=True, **kwargs)


class Cluster:
    """A PostgreSQL cluster of the benchmark's own, as root runs it: owned by `postgres`."""

    def __init__(self, work: pathlib.Path):
        versions = sorted(pathlib.Path("/usr/lib/postgresql").glob("*/bin/initdb"), reverse=True)
        if not versions:
            sys.exit("PostgreSQL is missing: apt-get install postgresql")
        self.bin = versions[0].parent
        self.folder = work / "pg"
        self.folder.mkdir()
        self.prefix = []
        if os.getuid() == 0:
            if subprocess.run(["id", "postgres"], capture_output=True).returncode != 0:
                run(["useradd", "-r", "-M", "-s", "/bin/sh", "postgres"])
            run(["chown", "-R", "postgres", str(self.folder)])
            self.prefix = ["runuser", "-u", "postgres", "--"]
        data = self.folder / "data"
        run(self.prefix + [str(self.bin / "initdb"), "-D", str(data), "-A", "trust", "-U", "carryon", "-E", "UTF8", "--locale=C.UTF-8"])
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        run(self.prefix + [str(self.bin / "pg_ctl"), "-D", str(data), "-l", str(self.folder / "log"), "-w", "-o",
                           f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1", "start"], stdin=subprocess.DEVNULL)
        self.count = 0

    def database(self, tcp: bool) -> str:
        """A new database's URL; its name is `self.name` until the next."""
        self.count += 1
        name = f"bench{self.count}"
        self.name = name
        run(self.prefix + [str(self.bin / "psql"), "-h", str(self.folder), "-p", str(self.port), "-U", "carryon", "-d", "postgres",
                           "-q", "-c", f"CREATE DATABASE {name}"])
        if tcp:
            return f"postgres://carryon@127.0.0.1:{self.port}/{name}?sslmode=disable"
        return f"postgres://carryon@/{name}?host={self.folder}&port={self.port}"

    def stop(self):
        subprocess.run(self.prefix + [str(self.bin / "pg_ctl"), "-D", str(self.folder / "data"), "-m", "fast", "-w", "stop"],
                       capture_output=True)

    def query(self, database: str, sql: str) -> str:
        """What psql prints for `sql` in `database` (unaligned, tuples only)."""
        return run(self.prefix + [str(self.bin / "psql"), "-h", str(self.folder), "-p", str(self.port), "-U", "carryon", "-d", database,
                                  "-q", "-A", "-t", "-c", sql]).stdout
