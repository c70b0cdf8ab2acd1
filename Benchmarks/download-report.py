#!/usr/bin/env python3
"""The report of Benchmarks/download.sh: a table per link (medians of the runs; peak RSS the
largest), the memory check by asset length, and PASS / MISSED per target.

    download-report.py RESULTS MINUTES LATENCY CAP RUNS

RESULTS is the tab-separated file download.sh writes, a row per measured download."""
import os, statistics, sys
path, minutes, latency, cap, runs = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5])
rows = [line.rstrip("\n").split("\t") for line in open(path) if line.strip()]
by = {}
for link, tool, wall, cpu, rss, bytes_, origin in rows:
    by.setdefault(link, {}).setdefault(tool, []).append((float(wall), float(cpu), float(rss), int(bytes_), float(origin)))

def summary(samples):
    return (statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples),
            max(s[2] for s in samples), samples[0][3], statistics.median(s[4] for s in samples))

verdicts = []
def verdict(ok, text):
    verdicts.append(("PASS  " if ok else "MISSED") + " " + text)

order = ["carryon", "yt-dlp", "ffmpeg", "aria2c", "curl"]
for link, tools in by.items():
    if link.startswith("long-"):
        continue
    print("link: %s%s" % (link, {"unthrottled": "", "nginx": " (nginx, sendfile on; curl over one connection)",
                                   "nginx-h2": " (nginx over HTTPS and HTTP/2, a test CA; curl --http2 over one connection)"}.get(
        link, " (latency %s ms, %s kbit/s per connection)" % (latency, cap))))
    carryon = summary(tools["carryon"])
    header = ["tool", "wall s", "CPU s", "peak RSS MiB", "bytes", "MB/s", "origin CPU s", "peer wall / Carryon wall"]
    table = []
    for tool in order:
        if tool not in tools:
            continue
        wall, cpu, rss, bytes_, origin = summary(tools[tool])
        ratio = "-" if tool == "carryon" else "%.2fx" % (wall / carryon[0])
        table.append([tool, "%.2f" % wall, "%.2f" % cpu, "%.1f" % rss, "{:,}".format(bytes_), "%.1f" % (bytes_ / wall / 1e6),
                      "%.2f" % origin, ratio])
    widths = [max(len(r[i]) for r in table + [header]) for i in range(len(header))]
    fmt = lambda cells: "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))
    print("  " + fmt(header))
    print("  " + fmt(["-" * w for w in widths]))
    for row in table:
        print("  " + fmt(row))
    print()
    for peer in ("yt-dlp", "ffmpeg"):
        if peer not in tools:
            continue
        ratio = summary(tools[peer])[0] / carryon[0]
        verdict(ratio >= 2, "%s: %s wall / Carryon wall = %.2fx, target >= 2x" % (link, peer, ratio))
    if "curl" in tools:
        curl = summary(tools["curl"])[0]
        # Run by run as well: the runs are pairs (Carryon, then curl), and a ratio of medians
        # can pass while Carryon was slower in every pair.
        pairs = [c[0] / p[0] for c, p in zip(tools["carryon"], tools["curl"])]
        print("  run by run, Carryon wall / curl wall: %s (Carryon slower in %d of %d)\n"
              % (" ".join("%.2f" % r for r in pairs), sum(r > 1 for r in pairs), len(pairs)))
        verdict(carryon[0] <= curl, "%s: Carryon wall %.2f s vs curl over one connection %.2f s = %.2fx curl's, target <= 1.00x"
                " (run by run %.2f-%.2fx)" % (link, carryon[0], curl, carryon[0] / curl, min(pairs), max(pairs)))
    if "aria2c" not in tools:
        verdict(carryon[2] <= 48, "%s: Carryon peak RSS %.1f MiB, target <= 48 MiB" % (link, carryon[2]))
        continue
    aria = summary(tools["aria2c"])[0]
    verdict(carryon[0] <= 1.1 * aria, "%s: Carryon wall %.2f s vs aria2c %.2f s = %.2fx aria2c's, target <= 1.10x"
            % (link, carryon[0], aria, carryon[0] / aria))
    verdict(carryon[2] <= 48, "%s: Carryon peak RSS %.1f MiB, target <= 48 MiB" % (link, carryon[2]))

long_rows = [(link, summary(tools["carryon"])) for link, tools in by.items() if link.startswith("long-") or link == "unthrottled"]
if len(long_rows) > 1:
    print("memory check: Carryon, unthrottled, playlists of growing length")
    print("  %-12s %9s %8s %8s %14s %10s" % ("asset", "minutes", "wall s", "CPU s", "bytes", "peak RSS"))
    for link, (wall, cpu, rss, bytes_, origin) in long_rows:
        factor = 1 if link == "unthrottled" else int(link.split("x")[1])
        print("  %-12s %9d %8.2f %8.2f %14s %6.1f MiB" % (link, minutes * factor, wall, cpu, "{:,}".format(bytes_), rss))
        if link != "unthrottled":
            verdict(rss <= 48, "%s (%d min): Carryon peak RSS %.1f MiB, target <= 48 MiB" % (link, minutes * factor, rss))
    print()

print("wall, CPU (user+sys) and peak RSS from /usr/bin/time -v; %s; CPU and RSS include child processes;"
      % ("median wall/CPU of %d runs, max RSS" % runs if runs > 1 else "one run each"))
print("the origin serves from the same machine's %d cores; its CPU is not in the tool's, and shown apart" % os.cpu_count())
print()
for line in verdicts:
    print(line)
missed = sum(v.startswith("MISSED") for v in verdicts)
print("\n%d of %d targets met%s" % (len(verdicts) - missed, len(verdicts), "" if not missed else "; %d MISSED" % missed))
