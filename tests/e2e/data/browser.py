"""Shared by html_views.py and html_fix.py: headless Chromium (the system's, through
Playwright: no browser is downloaded) with a page that records console errors, requests
and dialogs (dismissed)."""
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

    def close(self):
        self.browser.close()
        self.pw.stop()
