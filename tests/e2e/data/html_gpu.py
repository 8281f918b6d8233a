"""Drives tests/e2e/html_gpu.sh's page (a GPU run without per-warp records) in headless
Chromium. argv: page.html report.json chromium-path. Expected figures derived in the .sh;
the page's must also equal the JSON report's. Exit 0 when every check holds."""
import json
import sys

from browser import Checks, Watched

page_path, json_path, chromium = sys.argv[1:4]
report = json.load(open(json_path))
check = Checks()


w = Watched(chromium)
page = w.page
url = "file://" + page_path
page.goto(url)
page.wait_for_selector("#insns tr.op")

# what is missing is said, with the way to get it; the views are not drawn
un = page.locator("#unavail")
check(un.is_visible(), "no notice of the missing views")
check("grid, block, warp and operation views" in un.text_content() and "--trace" in un.text_content(),
      "the notice does not name the views and --trace: %r" % un.text_content())
check(page.locator("#views").is_hidden(), "the grid/block/warp/operation sections show")
check(page.locator("#grid .cell").count() == 0, "grid cells without records")
check(page.locator("#archbox").is_hidden(), "a model switch for a GPU run (sm_90 only)")

# the hostile comment is text, nothing ran
line1 = page.locator('#src .sl[data-line="1"] .code').text_content()
check(line1 == "// </script><img src=x onerror=alert(1)>", "line 1 shows %r" % line1)
check(page.locator("img").count() == 0, "an <img> element exists")

# kernel totals: the JSON's, derived in the .sh
k0 = report["kernels"][0]
for key, want in (("requests", 8), ("sectors", 144), ("excess_sectors", 112)):
    shown = page.locator('#totals td[data-key="%s"]' % key).text_content()
    check(shown == str(k0["totals"][key]) == str(want),
          "totals %s: shown %s, JSON %s, by hand %d" % (key, shown, k0["totals"][key], want))

# the instruction table: two rows, the store first (worst first), its figures the JSON's
rows = page.locator("#insns tr.op")
check(rows.count() == 2, "instruction rows: %d, expected 2" % rows.count())
check(rows.first.get_attribute("data-ptx") == "16", "the first row is not the store (ptx 16)")
cells = [c.text_content() for c in rows.first.locator("td").all()]
check(cells[3:6] == ["4", "128", "112"], "store row requests/sectors/excess: %s" % cells[3:6])

# a source line: its instructions' figures and the banner
page.locator('#src .sl[data-line="6"]').click()
check("filtered by line 6" in page.locator("#filter").text_content(), "no banner for line 6")
store = [i for i in k0["instructions"] if i["ptx_index"] == 16][0]
for key in ("requests", "sectors", "excess_sectors"):
    shown = page.locator('#info .insinfo[data-ptx="16"] td[data-key="%s"]' % key).text_content()
    check(shown == str(store[key]), "line 6 %s: shown %s, JSON %s" % (key, shown, store[key]))
page.locator("#unfilter").click()
check(page.locator("#filter").is_hidden(), "the banner stays after 'show all lines'")

# the second kernel: its totals (4 wavefronts, ideal 2) and its one instruction
page.select_option("#kern", "1")
check(page.locator('#totals td[data-key="wavefronts"]').text_content() == "4",
      "reduce: wavefronts not 4")
check(page.locator("#insns tr.op").count() == 1, "reduce: not one instruction row")

check.finish(w, (url,))
