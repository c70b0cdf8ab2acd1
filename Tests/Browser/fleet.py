#!/usr/bin/env python3
"""Queues a catalog stream for the fleet in the daemon's web app, in Debian's Chromium driven by
Playwright, and prints what the page showed as JSON.

Usage: fleet.py BASE STREAM OTHER WORKER_STARTED
  BASE            the daemon's base URL (http://127.0.0.1:PORT/TOKEN), as `carryon serve` prints it
  STREAM          the name of a catalog stream, not yet downloaded
  OTHER           the name of another catalog stream, not to be downloaded
  WORKER_STARTED  a file the caller creates once it has started a worker (`carryon worker`)

Presses the stream's Download button, reads what the chooser says of the fleet's workers (none
yet), ticks "Queue it for the fleet" and starts; reads the announcement and the stream's state,
waits 3 s and reads the state again (no worker yet: it still waits); prints the line "queued"
and waits for WORKER_STARTED to exist; then waits until the library's row for the stream says
which worker downloads it ("by NAME (pid …)") or that it is downloaded, and until the stream
reads Downloaded; then opens OTHER's chooser and reads what it says of the workers now, and
closes it. Prints {fleetBefore, announced, queuedState, laterState, workerSeen,
downloadedState, fleetAfter, errors} on the next line.

Exit status 3 with a message saying what to install when Chromium or Playwright is missing;
1 with the step and what the page showed when a step does not happen in time.
"""
import json
import os
import sys
import time

from chromium import require


def workers_text(dialog):
    """What the chooser says of the fleet's workers, once the daemon has told it."""
    hint = dialog.locator("#fleet-workers")
    hint.filter(has_not_text="Asking who works").wait_for(timeout=10_000)
    return hint.inner_text()


def main():
    if len(sys.argv) != 5:
        raise SystemExit(__doc__)
    base, stream, other, started = sys.argv[1].rstrip("/") + "/", sys.argv[2], sys.argv[3], sys.argv[4]
    sync_playwright, chromium = require("this test drives the web app in Chromium")
    result = {"errors": []}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium)
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.on("console", lambda message: message.type == "error" and result["errors"].append(f"console: {message.text}"))
        page.on("pageerror", lambda error: result["errors"].append(f"page error: {error}"))
        card = page.locator(f'li.card[data-stream="{stream}"]')
        step = "opening the page"
        try:
            page.goto(base)
            card.wait_for(timeout=15_000)

            step = "queueing the stream for the fleet in the chooser"
            # Which worker the library's rows named, as the page changes.
            page.evaluate("""() => {
                window.workersSeen = [];
                new MutationObserver(() => {
                    for (const hint of document.querySelectorAll('#library-list .hint.worker')) {
                        if (!window.workersSeen.includes(hint.textContent)) window.workersSeen.push(hint.textContent);
                    }
                }).observe(document.body, {subtree: true, childList: true, characterData: true});
            }""")
            card.get_by_role("button", name=f"Download {stream}").click()
            dialog = page.locator("dialog#chooser")
            dialog.get_by_label("Queue it for the fleet").check(timeout=30_000)
            result["fleetBefore"] = workers_text(dialog)
            dialog.get_by_role("button", name="Start download").click()
            page.locator("dialog#chooser").wait_for(state="hidden", timeout=30_000)
            card.locator('.state[data-state="waiting"]').wait_for(timeout=30_000)
            result["announced"] = page.locator("#status").inner_text()
            result["queuedState"] = card.locator(".state").inner_text()
            page.wait_for_timeout(3000)
            result["laterState"] = card.locator(".state").inner_text()
            print("queued", flush=True)

            step = "a worker downloading it"
            deadline = time.monotonic() + 60
            while not os.path.exists(started):
                if time.monotonic() > deadline:
                    raise TimeoutError("no worker was started")
                time.sleep(0.1)
            card.locator('.state[data-state="completed"]').wait_for(timeout=120_000)
            result["downloadedState"] = card.locator(".state").inner_text()
            result["workerSeen"] = page.evaluate("window.workersSeen")

            step = "reading the workers in another stream's chooser"
            page.locator(f'li.card[data-stream="{other}"]').get_by_role("button", name=f"Download {other}").click()
            dialog.get_by_label("Queue it for the fleet").wait_for(timeout=30_000)
            result["fleetAfter"] = workers_text(dialog)
            dialog.get_by_role("button", name="Close").click()
        except Exception as error:
            shown = page.locator("main").inner_text(timeout=2000)
            print(f"fleet.py: {step} did not happen: {error}\n--- the page showed:\n{shown[:3000]}\n--- errors:",
                  *result["errors"], sep="\n", file=sys.stderr)
            sys.exit(1)
        browser.close()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
