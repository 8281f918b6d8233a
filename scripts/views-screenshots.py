"""Takes docs/views-naive.png and docs/views-tiled.png: the --html page of the bundled
transposes (examples/transpose) in headless Chromium (Debian's, through Playwright), with
the worst source line selected (the views filtered by it) and the first warp's worst
instruction opened.
Usage: python3 scripts/views-screenshots.py BUILD_DIR   (from the repository root)"""
import os
import shutil
import subprocess
import sys
import tempfile

from playwright.sync_api import sync_playwright

build = sys.argv[1] if len(sys.argv) > 1 else "build"
tmp = tempfile.mkdtemp()
with sync_playwright() as p:
    browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=["--no-sandbox"])
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    for name, line in (("naive", 26), ("tiled", 43)):
        html = os.path.join(tmp, name + ".html")
        subprocess.run([os.path.join(build, "coalcheck"), "--launch",
                        "examples/transpose/%s.launch" % name, "--html", html, "-q"],
                       check=True, stdout=subprocess.DEVNULL)
        page.goto("file://" + html)
        page.locator('#src .sl[data-line="%d"]' % line).click()
        page.locator('#src .sl[data-line="%d"]' % line).click()  # unselect: the warp shows all
        page.locator('#grid .cell[data-i="0"]').click()
        page.locator("#block .warpcell").first.click()
        rows = page.locator("#warp tr.op")
        worst = max(range(rows.count()), key=lambda k: float(
            rows.nth(k).locator("td").nth(8).text_content() or 0))  # the excess column
        rows.nth(worst).click()
        page.locator('#src .sl[data-line="%d"]' % line).click()
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path="docs/views-%s.png" % name, full_page=False)
    browser.close()
shutil.rmtree(tmp)
