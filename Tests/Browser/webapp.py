#!/usr/bin/env python3
"""Uses the daemon's web app in Debian's Chromium, driven by Playwright, as a person would, and
prints what happened as JSON.

Usage: webapp.py BASE STREAM SCREENSHOTS
  BASE         the daemon's base URL (http://127.0.0.1:PORT/TOKEN), as `carryon serve` prints it
  STREAM       the name of a catalog stream, not yet downloaded
  SCREENSHOTS  a folder for the pictures: webapp-downloading.png, webapp.png, webapp-phone.png

Opens BASE; presses the stream's Download button, takes the chooser's default (best quality,
the default audio; "1:75" typed as the part's start first, refused in the dialog); watches the progress bar until the stream reads "Downloaded"; presses Play
and waits until the video's currentTime passes 3 s; presses Verify (intact), damages a segment on
disk, presses Verify (the damage listed) and Repair, and Verify again (intact); presses Delete and
confirms; then looks at
the page at a phone's width and checks every control has a label. Prints {initialState,
choices, rangeRefusal, assetsAfterRefusal, progressSeen, downloadedState, currentTime, frames, kpis, verifiedIntact,
damageTitle, damageLines, repairedIdentical, verifiedAfterRepair, deletedState, csp,
unlabelled, phoneOverflow, tabStops, errors}.

Exit status 3 with a message saying what to install when Chromium or Playwright is missing;
1 with the step, what the page showed and its console when a step does not happen in time.
"""
import json
import sys
import time
import urllib.request
from pathlib import Path

from chromium import require


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    base, stream, shots = sys.argv[1].rstrip("/") + "/", sys.argv[2], Path(sys.argv[3])
    sync_playwright, chromium = require("this test drives the web app in Chromium")
    shots.mkdir(parents=True, exist_ok=True)
    result = {"errors": []}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--autoplay-policy=no-user-gesture-required"])
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.on("console", lambda message: message.type == "error" and result["errors"].append(f"console: {message.text}"))
        page.on("pageerror", lambda error: result["errors"].append(f"page error: {error}"))
        card = page.locator(f'li.card[data-stream="{stream}"]')

        def wait_until(expression, timeout):
            """Polls `expression` in the page until it is true. (Playwright's wait_for_function
            evaluates strings, which the page's Content-Security-Policy rightly forbids.)"""
            deadline = time.monotonic() + timeout
            while not page.evaluate(expression):
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{timeout} s passed waiting for {expression}")
                page.wait_for_timeout(100)
        step = "opening the page"

        def fail(error):
            shown = page.locator("main").inner_text(timeout=2000) if page else ""
            seen = page.evaluate("window.progressSeen")
            result["errors"].append(f"progress values seen: {seen}")
            print(f"webapp.py: {step} did not happen: {error}\n--- the page showed:\n{shown[:3000]}\n--- errors:",
                  *result["errors"], sep="\n", file=sys.stderr)
            sys.exit(1)

        try:
            response = page.goto(base)
            result["csp"] = response.headers.get("content-security-policy")
            card.wait_for(timeout=15_000)
            result["initialState"] = card.locator(".state").inner_text()

            step = "choosing tracks in the chooser"
            # Every value the progress bar takes, recorded as the page changes.
            page.evaluate("""() => {
                window.progressSeen = [];
                new MutationObserver(() => {
                    for (const bar of document.querySelectorAll('li.card progress')) {
                        const value = Number(bar.value);
                        if (!window.progressSeen.includes(value)) window.progressSeen.push(value);
                    }
                }).observe(document.body, {subtree: true, childList: true, attributes: true});
            }""")
            card.get_by_role("button", name=f"Download {stream}").click()
            dialog = page.locator("dialog#chooser")
            start = dialog.get_by_role("button", name="Start download")
            wait_until("!document.querySelector('dialog#chooser button[value=start]').disabled", 30)
            result["choices"] = dialog.locator("label.choice").all_inner_texts()
            # A part of the stream typed wrong is refused in the dialog, nothing started.
            dialog.get_by_label("From").fill("1:75")
            start.click()
            result["rangeRefusal"] = dialog.get_by_role("alert").inner_text(timeout=10_000)
            result["assetsAfterRefusal"] = page.evaluate("document.querySelectorAll('li.card .state[data-state=\"running\"]').length")
            dialog.get_by_label("From").fill("")
            start.click()

            step = "the download showing progress"
            wait_until("""(() => {
                const bar = document.querySelector('li.card progress');
                return !!(bar && bar.value >= 0.1 && bar.value < 0.95 && document.querySelector('li.card .track .loaded'));
            })()""", 60)
            page.screenshot(path=str(shots / "webapp-downloading.png"), full_page=True)

            step = "the download completing"
            card.locator('.state[data-state="completed"]').wait_for(timeout=120_000)
            result["downloadedState"] = card.locator(".state").inner_text()
            result["progressSeen"] = page.evaluate("window.progressSeen")

            step = "playing"
            card.get_by_role("button", name=f"Play {stream}").click()
            wait_until("document.getElementById('video').currentTime > 3", 60)
            wait_until("/Segments served\\s*[1-9]/.test(document.getElementById('kpis').innerText)", 30)
            result["currentTime"] = page.evaluate("document.getElementById('video').currentTime")
            result["frames"] = page.evaluate("document.getElementById('video').getVideoPlaybackQuality().totalVideoFrames")
            result["kpis"] = page.locator("#kpis").inner_text()
            page.screenshot(path=str(shots / "webapp.png"), full_page=True)

            step = "checking labels and keyboard reach"
            result["unlabelled"] = page.evaluate("""() => [...document.querySelectorAll('button, input, select, video')]
                .filter((control) => control.offsetParent !== null)
                .filter((control) => !(control.labels?.length || control.getAttribute('aria-label') || control.textContent.trim()))
                .map((control) => control.outerHTML.slice(0, 120))""")
            # From the top of the page, as a keyboard user starts.
            stops = []
            page.evaluate("document.activeElement?.blur()")
            for _ in range(40):
                page.keyboard.press("Tab")
                stops.append(page.evaluate("""() => { const e = document.activeElement;
                    return e.getAttribute('aria-label') || e.labels?.[0]?.innerText || e.innerText || e.tagName; }"""))
            result["tabStops"] = stops

            step = "verifying, a file damaged, and repairing"
            page.locator("#close-player").click()
            card.get_by_role("button", name=f"Verify {stream}").click()
            wait_until("/is intact/.test(document.getElementById('status').innerText)", 30)
            result["verifiedIntact"] = page.locator("#status").inner_text()
            with urllib.request.urlopen(base + "api/assets") as answer:
                bundle = Path(next(asset for asset in json.load(answer) if asset["name"] == stream)["bundlePath"])
            segment = sorted(bundle.glob("*/*.m4s"))[0]
            damaged = bytearray(segment.read_bytes())
            original = bytes(damaged)
            damaged[len(damaged) // 2] ^= 0xFF
            segment.write_bytes(damaged)
            card.get_by_role("button", name=f"Verify {stream}").click()
            confirm = page.locator("dialog#confirm")
            confirm.get_by_role("button", name="Repair").wait_for(timeout=30_000)
            result["damageTitle"] = confirm.locator("h2").inner_text()
            result["damageLines"] = confirm.locator("ul.damage li").all_inner_texts()
            confirm.get_by_role("button", name="Repair").click()
            wait_until("/Repairing/.test(document.getElementById('status').innerText)", 30)
            card.locator('.state[data-state="completed"]').wait_for(timeout=60_000)
            # The card may still read completed from before the repair: the segment tells.
            deadline = time.monotonic() + 30
            while segment.read_bytes() != original and time.monotonic() < deadline:
                page.wait_for_timeout(100)
            result["repairedIdentical"] = segment.read_bytes() == original
            card.get_by_role("button", name=f"Verify {stream}").click()
            wait_until("/is intact/.test(document.getElementById('status').innerText)", 30)
            result["verifiedAfterRepair"] = page.locator("#status").inner_text()

            step = "deleting"
            card.get_by_role("button", name=f"Delete {stream}").click()
            page.locator("dialog#confirm").get_by_role("button", name="Delete").click()
            card.locator('.state[data-state="not-downloaded"]').wait_for(timeout=30_000)
            result["deletedState"] = card.locator(".state").inner_text()

            step = "looking at a phone's width"
            page.set_viewport_size({"width": 390, "height": 844})
            page.wait_for_timeout(300)
            result["phoneOverflow"] = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
            page.screenshot(path=str(shots / "webapp-phone.png"), full_page=True)
        except Exception as error:
            fail(error)
        finally:
            browser.close()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
