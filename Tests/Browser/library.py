#!/usr/bin/env python3
"""Uses the web app's library in Debian's Chromium, driven by Playwright, and prints what it saw
as JSON: how long the library's first page took to show, its pages, its search and its filter.

Usage: library.py BASE [SEARCH]
  BASE    the daemon's base URL (http://127.0.0.1:PORT/TOKEN), as `carryon serve` prints it
  SEARCH  text to type in the library's search box; without it, only the first page is timed

Opens BASE and times, from the navigation's start, until the library's table has its first row
(firstPaintMs, by the page's clock; noticedMs, when Playwright saw it); counts its rows; presses Show more (when there is one) and counts again; types
SEARCH and waits until every row's name contains it (ignoring case); picks "Failed" in the state
filter and waits until the rows change. Prints {firstPaintMs, noticedMs, caption, firstRows, parts (each first-page row's part of its
stream, when a download of part), moreRows,
searchRows, searchNames, failedRows, failedStates, errors}.

Exit status 3 with a message saying what to install when Chromium or Playwright is missing;
1 with the step and what the page showed when a step does not happen in time. The library
benchmark (Benchmarks/library.py) runs it for the web app's first paint.
"""
import json
import sys
import time

from chromium import require


def main():
    if len(sys.argv) not in (2, 3):
        raise SystemExit(__doc__)
    base, search = sys.argv[1].rstrip("/") + "/", (sys.argv[2] if len(sys.argv) == 3 else None)
    sync_playwright, chromium = require("this drives the web app in Chromium")
    result = {"errors": []}
    rows = "#library-list tbody tr"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium)
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.on("console", lambda message: message.type == "error" and result["errors"].append(f"console: {message.text}"))
        page.on("pageerror", lambda error: result["errors"].append(f"page error: {error}"))
        # The moment the library's first row is in the page, by the page's own clock (from the
        # navigation's start): Playwright's polling notices it a few hundred ms later here.
        page.add_init_script("""
            new MutationObserver(() => {
              if (window.carryonFirstRow === undefined && document.querySelector('#library-list tbody tr')) {
                window.carryonFirstRow = performance.now();
              }
            }).observe(document, { subtree: true, childList: true });""")
        step = "the library's first page"
        try:
            start = time.perf_counter()
            page.goto(base, wait_until="commit")
            page.wait_for_selector(rows, timeout=60_000)
            result["noticedMs"] = round((time.perf_counter() - start) * 1000, 1)
            result["firstPaintMs"] = round(page.evaluate("() => window.carryonFirstRow"), 1)
            result["caption"] = page.locator("#library-list caption").inner_text()
            result["firstRows"] = page.locator(rows).count()
            result["parts"] = page.locator(f"{rows} th .hint").all_inner_texts()
            if search is None:
                browser.close()
                print(json.dumps(result))
                return
            step = "Show more"
            more = page.locator("#library-list button.more")
            if more.count() > 0:
                more.click()
                # A function, not a string: the page's Content-Security-Policy forbids eval.
                page.wait_for_function("([selector, count]) => document.querySelectorAll(selector).length > count",
                                       arg=[rows, result["firstRows"]], timeout=30_000)
            result["moreRows"] = page.locator(rows).count()
            step = "the search"
            page.locator("#library-search").fill(search)
            page.wait_for_function(
                """([selector, text]) => { const names = [...document.querySelectorAll(selector + ' .name')].map((name) => name.textContent.toLowerCase());
                   return names.length > 0 && names.every((name) => name.includes(text.toLowerCase())); }""",
                arg=[rows, search], timeout=30_000)
            result["searchRows"] = page.locator(rows).count()
            result["searchNames"] = page.locator(f"{rows} .name").all_inner_texts()
            step = "the state filter"
            page.locator("#library-search").fill("")
            page.locator("#library-state").select_option("failed")
            page.wait_for_function(
                """(selector) => { const states = [...document.querySelectorAll(selector + ' td:nth-child(2)')].map((cell) => cell.textContent);
                   return states.length > 0 && states.every((state) => state.startsWith('Failed')); }""", arg=rows, timeout=30_000)
            result["failedRows"] = page.locator(rows).count()
            result["failedStates"] = sorted(set(page.locator(f"{rows} td:nth-child(2)").all_inner_texts()))
        except Exception as error:  # noqa: BLE001 - any failure is reported with the step
            shown = page.locator("main").inner_text(timeout=2000)[:2000]
            print(f"library.py: {step} did not happen: {error}\nThe page showed:\n{shown}\n{result['errors']}", file=sys.stderr)
            sys.exit(1)
        browser.close()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
