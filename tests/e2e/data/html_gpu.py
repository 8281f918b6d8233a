"""Drives tests/e2e/html_gpu.sh's pages in headless Chromium: a GPU run without per-warp
records, and one from a GPU trace's records. argv: page.html report.json chromium-path
trace-page.html. Expected figures derived in the .sh; the page's must also equal the
JSON report's. Exit 0 when every check holds."""
import json
import sys

from browser import Checks, Watched

page_path, json_path, chromium, trace_path = sys.argv[1:5]
report = json.load(open(json_path))
check = Checks()
w = Watched(chromium)
page = w.page
url = w.open(page_path, "#insns tr.op")

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

# ---- the page of the GPU trace's records: every view
turl = "file://" + trace_path
page.goto(turl)
page.wait_for_selector("#grid .cell")
check(page.locator("#unavail").is_hidden(), "the trace page says views are missing")
check(page.locator("#grid .cell").count() == 1, "trace page: not one grid cell")
page.locator('#grid .cell[data-i="0"]').click()
check(page.locator("#block .warpcell").count() == 1, "trace page: not one warp")
page.locator("#block .warpcell").first.click()
check(page.locator("#warp tr.op").count() == 1, "trace page: not one warp instruction")
page.locator("#warp tr.op").first.click()
note = page.locator("#opnote")
check((note.get_attribute("data-requests"), note.get_attribute("data-transactions")) == ("1", "4"),
      "trace page op: %s requests, %s transactions; expected 1, 4" %
      (note.get_attribute("data-requests"), note.get_attribute("data-transactions")))
units = [u.text_content() for u in page.locator("#units .unit").all()]
want = ["32 B at 0x%x: lanes %s" % (0x1000 + 32 * s, ",".join(str(8 * s + l) for l in range(8)))
        for s in range(4)]
check(units == want, "trace page sectors: %s" % units)
# the records' report: the PTX (SASS) list selects the line, its figures shown
page.locator("#ptxbtn").click()
page.locator("#ptx tr.op").first.click()
got = [page.locator('#info .insinfo[data-ptx="3"] td[data-key="%s"]' % k).text_content()
       for k in ("requests", "sectors")]
check(got == ["1", "4"], "trace page, copy.cu:7: requests, sectors %s; expected 1, 4" % got)

check.finish(w, (url, turl))
