"""What every Chromium judge here needs: Playwright from PyPI, driving Debian's Chromium (no
browser download), or exit status 3 with a message saying what to install."""
import os
import shutil
import sys


def require(purpose):
    """Playwright's `sync_playwright` and the Chromium to launch (`CARRYON_CHROMIUM`, else
    `chromium` on the PATH); `purpose` ends the message when one is missing ("this test plays in
    Chromium")."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print(f"Playwright is not installed, and {purpose} with it: "
              "python3 -m pip install playwright (no browser download: it drives Debian's chromium)", file=sys.stderr)
        sys.exit(3)
    chromium = os.environ.get("CARRYON_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not os.access(chromium, os.X_OK):
        print(f"Chromium is not installed, and {purpose}: apt-get install -y chromium", file=sys.stderr)
        sys.exit(3)
    return sync_playwright, chromium
