"""Drives tests/e2e/html_views.sh's pages in headless Chromium (Debian's, through Playwright;
no browser is downloaded). argv: page.html report.json chromium-path replay.html
replay.json (the second: `report TRACE --arch cc1.0,sm_90 --html`). Exit 0 when every
check holds; prints FAIL lines otherwise. The expected figures are derived in the .sh."""
import json
import sys

from browser import Checks, Watched

page_path, json_path, chromium, replay_path, replay_json = sys.argv[1:6]
report = json.load(open(json_path))
kernel = report["kernels"][0]
check = Checks()
w = Watched(chromium)
page = w.page
url = w.open(page_path, "#grid .cell")

# grid: 2 x 8 CTAs, one cell each
check(page.locator("#grid .cell").count() == 16,
      "grid cells: %d, expected 16" % page.locator("#grid .cell").count())

# the hostile comment is text on line 1 and created no element
line1 = page.locator('#src .sl[data-line="1"] .code').text_content()
check(line1 == "// </script><img src=x onerror=alert(1)>", "line 1 shows %r" % line1)
check(page.locator("img").count() == 0, "an <img> element exists")

# the source line of the transposed store: its figures are the JSON report's
store = [i for i in kernel["instructions"]
         if i["op"] == "store" and i["source"]["line"] == 6][0]
page.locator('#src .sl[data-line="6"]').click()
box = page.locator('#info .insinfo[data-ptx="%d"]' % store["ptx_index"])
for key in ("requests", "sectors", "excess_sectors"):
    shown = box.locator('td[data-key="%s"]' % key).text_content()
    check(shown == str(store[key]), "%s shown %s, JSON %s" % (key, shown, store[key]))
check(store["requests"] == 128 and store["sectors"] == 4096,
      "store: %d requests, %d sectors; expected 128, 4096" % (store["requests"], store["sectors"]))
# the cache model's figures (H100, the default), derived by hand: the store of line 6
# writes its 4096 sectors through to L2 (write-allocate without fetch: no DRAM read; 8 KiB
# of output stays in L2: nothing written); the load of line 6 reads 128 lines once (512
# sectors, no L1 hit, 512 x 32 = 16384 DRAM bytes); line 7's store, 1 request of 4
# sectors in each of 2 CTAs, adds 8 L2 sectors: the kernel's L2 sectors 4616
for key in ("l1_hit_sectors", "l2_sectors", "dram_bytes_read", "dram_bytes_written"):
    shown = box.locator('td[data-key="%s"]' % key).text_content()
    check(shown == str(store[key]), "%s shown %s, JSON %s" % (key, shown, store[key]))
check((store["l2_sectors"], store["dram_bytes_read"]) == (4096, 0),
      "store: L2 %d sectors, DRAM %d read; expected 4096, 0" % (store["l2_sectors"],
                                                             store["dram_bytes_read"]))
totals = kernel["totals"]
for key in ("l1_hit_sectors", "l2_sectors", "dram_bytes_read", "dram_bytes_written"):
    shown = page.locator('#traffic span[data-key="%s"]' % key).text_content()
    check(shown == str(totals[key]), "kernel %s shown %s, JSON %s" % (key, shown, totals[key]))
check((totals["l1_hit_sectors"], totals["l2_sectors"], totals["dram_bytes_read"],
       totals["dram_bytes_written"]) == (0, 4616, 16384, 0),
      "kernel traffic %r; expected L1 hits 0, L2 4616, DRAM 16384 read, 0 written" % (
          [totals[k] for k in ("l1_hit_sectors", "l2_sectors", "dram_bytes_read",
                               "dram_bytes_written")],))
shown = page.locator('#traffic span[data-key="estimate_us"]').text_content()
check(shown == "%.1f" % kernel["time"]["estimate_us"], "estimate shown %s" % shown)
page.locator('#src .sl[data-line="6"]').click()  # unselect: the warp view shows all

# grid -> block: CTA (0,0) has its 8 warps sampled, warp 0 the representative
page.locator('#grid .cell[data-i="0"]').click()
check(page.locator("#block .warpcell").count() == 8,
      "block (0,0): %d warps shown, expected 8" % page.locator("#block .warpcell").count())
check(page.locator("#block .warpcell").first.locator(".mark").text_content().strip() == "R",
      "warp 0 of CTA (0,0) is not marked R")
# CTA (0,7) (row 7, cell 14): warp 7 is an outlier, the only warp sampled there
page.locator('#grid .cell[data-i="14"]').click()
check(page.locator("#block .warpcell").count() == 1, "block (0,7): not one sampled warp")
check("O" in page.locator("#block .warpcell .mark").first.text_content(),
      "warp 7 of CTA (0,7) is not marked O")
# block -> warp: ld, st, st in program order
page.locator("#block .warpcell").first.click()
rows = page.locator("#warp tr.op")
check(rows.count() == 3, "warp view: %d rows, expected 3" % rows.count())
# warp -> operation: the transposed store, 32 active lanes 256 bytes apart: 32 lines
rows.nth(1).click()
check(page.locator("#lanes .lane").count() == 32, "operation view: not 32 lanes")
check(page.locator("#lanes .lane.off").count() == 0, "operation view: inactive lanes")
check(page.locator("#units .unit").count() == 32,
      "operation view: %d lines, expected 32" % page.locator("#units .unit").count())

# the replayed trace under two models: the switch changes the figures to the other
# model's (cc1.0: one request per half-warp, 2 x 128; sm_90: 128)
rkernel = json.load(open(replay_json))["kernels"][0]
rstore = [i for i in rkernel["instructions"]
          if i["op"] == "store" and i["source"]["line"] == 6][0]
rurl = "file://" + replay_path
page.goto(rurl)
page.wait_for_selector("#grid .cell")
check(page.locator("#grid .cell").count() == 16, "replay: not 16 grid cells")
page.locator('#src .sl[data-line="6"]').click()
req = '#info .insinfo[data-ptx="%d"] td[data-key="requests"]' % rstore["ptx_index"]
for arch, want in (("sm_90", 128), ("cc1.0", 256)):
    page.select_option("#arch", arch)
    shown = page.locator(req).text_content()
    check(shown == str(rstore["models"][arch]["requests"]) == str(want),
          "replay, %s: requests shown %s, JSON %s, expected %d" %
          (arch, shown, rstore["models"][arch]["requests"], want))

check.finish(w, (url, rurl))
