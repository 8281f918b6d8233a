"""Shared by the html_*.py drivers: headless Chromium (the system's, through Playwright:
no browser is downloaded) with a page that records console errors, requests and dialogs
(dismissed), and the checks' bookkeeping."""
import sys
from playwright.sync_api import sync_playwright


class Watched:
    def __init__(self, chromium):
        self.pw = sync_playwright().start()
        self.browser = self.pw.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        self.page = self.browser.new_page()
        self.errors, self.requests, self.dialogs = [], [], []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))

    def open(self, path, selector):
        """Loads the page file at path and waits for selector; returns its URL."""
        url = "file://" + path
        self.page.goto(url)
        self.page.wait_for_selector(selector)
        return url

    def close(self):
        self.browser.close()
        self.pw.stop()


class Checks:
    """check(cond, what) records and prints a failed check; finish(w, urls) adds the
    checks every page must pass (no console error, no request but urls, no dialog),
    closes the browser and exits 1 when any check failed, else 0."""

    def __init__(self):
        self.fails = []

    def __call__(self, cond, what):
        if not cond:
            self.fails.append(what)
            print("FAIL: " + what)

    def finish(self, w, urls):
        self(not w.errors, "console errors: %s" % w.errors)
        self(all(u in urls for u in w.requests), "requests other than the pages: %s" % w.requests)
        self(not w.dialogs, "dialogs fired: %s" % w.dialogs)
        w.close()
        sys.exit(1 if self.fails else 0)
