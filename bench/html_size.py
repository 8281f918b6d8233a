"""bench/html_size.sh's browser half: opens PAGE in headless Chromium (Debian's, through
Playwright; executable given) and prints the page's first contentful paint and load
time in ms, the time of its script (parse the data, draw every view), and the grid cells
drawn. argv: page.html chromium-path."""
import sys
import time

from playwright.sync_api import sync_playwright

page_path, chromium = sys.argv[1:3]
with sync_playwright() as p:
    browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
    page = browser.new_page()
    t0 = time.monotonic()
    page.goto("file://" + page_path, wait_until="load")
    wall = (time.monotonic() - t0) * 1000
    page.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    fcp = page.evaluate("(performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime")
    load = page.evaluate("performance.timing.loadEventEnd - performance.timing.navigationStart")
    script = page.evaluate("performance.getEntriesByName('cc-drawn').length ? "
                           "performance.measure('cc', 'cc-start', 'cc-drawn').duration : -1")
    cells = page.locator("#grid .cell").count()
    print("first_contentful_paint_ms %s load_ms %s goto_wall_ms %.0f script_ms %.0f grid_cells %d" %
          (fcp, load, wall, script, cells))
    browser.close()
