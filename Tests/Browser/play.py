#!/usr/bin/env python3
"""Plays an MPD in Debian's Chromium, driven by Playwright, and prints what it played as JSON.

Usage: play.py BASE MPD
  BASE  the playback server's base URL (http://127.0.0.1:PORT/TOKEN)
  MPD   the MPD's path under BASE (ID/main.mpd)

mse-player.html (beside this file) is served as BASE/player.html by Playwright itself, so the
page is on the playback server's origin as an app of its own would be, and plays the MPD with
Chromium's Media Source Extensions and, for Clear Key, its Encrypted Media Extensions. Prints
{frames, dropped, currentTime, duration, licenceRequests, licenceStatuses, error}.

Exit status 3 with a message saying what to install when Chromium or Playwright is missing.
"""
import json
import sys
from pathlib import Path

from chromium import require


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    base, mpd = sys.argv[1].rstrip("/"), sys.argv[2]
    sync_playwright, chromium = require("this test plays in Chromium")
    page_text = (Path(__file__).parent / "mse-player.html").read_text()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium,
                                             args=["--autoplay-policy=no-user-gesture-required"])
        try:
            page = browser.new_page()
            console = []
            page.on("console", lambda message: console.append(f"console {message.type}: {message.text}"))
            page.on("pageerror", lambda error: console.append(f"page error: {error}"))
            page.on("requestfailed", lambda request: console.append(f"request failed: {request.url} {request.failure}"))
            page.route(lambda url: url.startswith(f"{base}/player.html?"),
                       lambda route: route.fulfill(body=page_text, content_type="text/html; charset=utf-8"))
            page.goto(f"{base}/player.html?mpd={mpd}")
            try:
                page.wait_for_function("window.result !== undefined", timeout=60_000)
            except Exception as error:
                state = page.evaluate("(v => v && {currentTime: v.currentTime, readyState: v.readyState})"
                                      "(document.querySelector('video'))")
                print(f"play.py: no result from the page in 60 s ({error.__class__.__name__}); video: {state}",
                      *console, sep="\n  ", file=sys.stderr)
                sys.exit(1)
            print(json.dumps(page.evaluate("window.result")))
        finally:
            browser.close()


if __name__ == "__main__":
    main()
