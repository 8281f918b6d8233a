"""tests/e2e/html_views.sh's `fix --html` page in headless Chromium: both frames (before,
after) draw their grid; no console error, no request, no dialog. argv: page.html
chromium-path cells-before cells-after."""
import sys

from browser import Watched

page_path, chromium, want_before, want_after = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
fails = 0
w = Watched(chromium)
page, errors, requests, dialogs = w.page, w.errors, w.requests, w.dialogs
url = "file://" + page_path
page.goto(url)
for frame, want in (("#before", want_before), ("#after", want_after)):
    cells = page.frame_locator(frame).locator("#grid .cell")
    cells.first.wait_for()
    if cells.count() != want:
        print("FAIL: %s: %d grid cells, expected %d" % (frame, cells.count(), want))
        fails += 1
for what, bad in (("console errors", errors), ("dialogs", dialogs),
                  ("requests", [u for u in requests if u not in (url, "about:srcdoc")])):
    if bad:
        print("FAIL: %s: %s" % (what, bad))
        fails += 1
w.close()
sys.exit(1 if fails else 0)
