#!/usr/bin/env python3
"""Watches a live recording in the web app's library in Debian's Chromium, driven by Playwright,
and prints what it saw as JSON.

Usage: recording.py BASE NAME
  BASE  the daemon's base URL (http://127.0.0.1:PORT/TOKEN), as `carryon serve` prints it
  NAME  the recording's name in the library

Opens BASE, waits for NAME's row to show a recording in progress (`.progress.recording`), reads
its figures, then waits until the recorded duration they give has grown by at least 4 s. Prints
{first, later, firstSeconds, laterSeconds, hint, progressMax, errors}: the figures as first and
later seen, the seconds each says, the row's hint, and the bar's maximum (the duration asked
for, when one was).

Exit status 3 with a message saying what to install when Chromium or Playwright is missing;
1 with the step and what the page showed when a step does not happen in time.
"""
import json
import re
import sys

from chromium import require


def seconds(figures):
    """The seconds `recording M:SS` (or H:MM:SS) says, or None."""
    match = re.search(r"recording (\d+(?::\d\d)+)", figures or "")
    if not match:
        return None
    total = 0
    for part in match.group(1).split(":"):
        total = total * 60 + int(part)
    return total


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    base, name = sys.argv[1].rstrip("/") + "/", sys.argv[2]
    sync_playwright, chromium = require("this drives the web app in Chromium")
    result = {"errors": []}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("console", lambda message: message.type == "error" and result["errors"].append(f"console: {message.text}"))
        page.on("pageerror", lambda error: result["errors"].append(f"page error: {error}"))
        row = page.locator("#library-list tbody tr", has=page.locator(".name", has_text=name))
        figures = row.locator(".progress.recording .figures")
        step = "the recording's row"
        try:
            page.goto(base)
            figures.wait_for(timeout=60_000)
            # Until it says a duration recorded (the first progress may say 0:00).
            page.wait_for_function(
                """(name) => [...document.querySelectorAll('#library-list tbody tr')].some((row) =>
                     row.querySelector('.name')?.textContent === name && /recording \\d+:\\d\\d/.test(row.querySelector('.progress.recording .figures')?.textContent ?? ''))""",
                arg=name, timeout=30_000)
            result["first"] = figures.inner_text()
            result["firstSeconds"] = seconds(result["first"])
            result["hint"] = row.locator("th .hint").inner_text()
            result["progressMax"] = row.locator(".progress.recording progress").get_attribute("max")
            step = "the recording growing by 4 s"
            # A function, not a string: the page's Content-Security-Policy forbids eval.
            page.wait_for_function(
                """([name, from]) => [...document.querySelectorAll('#library-list tbody tr')].some((row) => {
                     if (row.querySelector('.name')?.textContent !== name) return false;
                     const match = /recording (\\d+):(\\d\\d)/.exec(row.querySelector('.progress.recording .figures')?.textContent ?? '');
                     return match && Number(match[1]) * 60 + Number(match[2]) >= from + 4; })""",
                arg=[name, result["firstSeconds"] or 0], timeout=60_000)
            result["later"] = figures.inner_text()
            result["laterSeconds"] = seconds(result["later"])
        except Exception as error:  # noqa: BLE001 - any failure is reported with the step
            shown = page.locator("main").inner_text(timeout=2000)[:2000]
            print(f"recording.py: {step} did not happen: {error}\nThe page showed:\n{shown}\n{result['errors']}", file=sys.stderr)
            sys.exit(1)
        browser.close()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
