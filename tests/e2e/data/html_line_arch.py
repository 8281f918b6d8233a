"""Drives tests/e2e/html_line_arch.sh's page in headless Chromium: the views filtered by a
source line, and the model switch of the grid, block, warp and operation views. argv:
page.html report.json chromium-path tiled.html tiled.json (the second: shared memory). The expected figures are derived by hand in the .sh;
the per-operation figures are also checked against the JSON report's (its totals over the
kernel's 128 executions, every warp alike). Exit 0 when every check holds."""
import json
import sys

from browser import Checks, Watched

page_path, json_path, chromium, tiled_path, tiled_json = sys.argv[1:6]
kernel = json.load(open(json_path))["kernels"][0]
check = Checks()
w = Watched(chromium)
page = w.page
url = w.open(page_path, "#grid .cell")
cells = page.locator("#grid .cell")
check(cells.count() == 16, "grid cells: %d, expected 16" % cells.count())


def grid(attr):
    """attr of every grid cell, as numbers"""
    return [float(x) for x in page.eval_on_selector_all(
        "#grid .cell", "(cs, a) => cs.map(c => c.dataset[a])", attr)]


def backgrounds():
    return page.eval_on_selector_all("#grid .cell", "cs => cs.map(c => c.style.background)")


def expect_grid(execs, excess, what):
    e, x = grid("execs"), grid("excess")
    check(e == [execs] * 16 and x == [excess] * 16,
          "%s: cells execs %s excess %s, expected %d, %d in all 16" %
          (what, sorted(set(e)), sorted(set(x)), execs, excess))


def arch(a):
    page.select_option("#arch", a)


def line(n):
    page.locator('#src .sl[data-line="%d"]' % n).click()


# ---- unfiltered, sm_90 (the default): 24 executions, excess 256 per CTA
check(page.locator("#filter").is_hidden(), "the filter banner shows with no line chosen")
expect_grid(24, 256, "sm_90, all lines")
for a in ("cc1.2", "cc2.0"):
    arch(a)
    expect_grid(24, 256, "%s, all lines" % a)
arch("cc1.0")
expect_grid(24, 448, "cc1.0, all lines")
page.locator('#grid .cell[data-i="0"]').hover()
title = page.locator('#grid .cell[data-i="0"]').get_attribute("title")
check("48 requests" in title, "cc1.0 cell 0 title lacks '48 requests': %r" % title)
arch("sm_90")

# ---- line 5 (the load): every CTA coalesced; line 6 (the store): every CTA uncoalesced
line(5)
check(page.locator("#filter").is_visible(), "no filter banner after choosing line 5")
check("filtered by line 5" in page.locator("#filter").text_content(),
      "banner: %r" % page.locator("#filter").text_content())
expect_grid(8, 0, "sm_90, line 5")
load_bg = backgrounds()
line(6)  # another line replaces the filter
check("filtered by line 6" in page.locator("#filter").text_content(), "banner not line 6")
expect_grid(8, 224, "sm_90, line 6")
store_bg = backgrounds()
check(load_bg[0] != store_bg[0], "line 5 and line 6 cells have the same colour %s" % load_bg[0])

# block view, filtered: every warp of CTA (0,0) has excess 28 (its one line-6 op)
page.locator('#grid .cell[data-i="0"]').click()
wx = [float(x) for x in page.eval_on_selector_all("#block .warpcell", "cs => cs.map(c => c.dataset.excess)")]
check(wx == [28.0] * 8, "block (0,0), line 6: warp excess %s, expected 8 x 28" % wx)
# warp view, filtered: one row (the store) of the warp's three
page.locator("#block .warpcell").first.click()
rows = page.locator("#warp tr.op")
check(rows.count() == 1, "warp view, line 6: %d rows, expected 1" % rows.count())

# ---- the switch on the operation view: the store under sm_90 then cc1.0
rows.first.click()
store = [i for i in kernel["instructions"] if i["source"]["line"] == 6][0]
execs = store["executions"]
check(execs == 128, "the store ran %d times, expected 128" % execs)
note = page.locator("#opnote")
for a, req, tx, by in (("sm_90", 1, 32, 1024), ("cc1.0", 2, 32, 1024), ("cc1.2", 2, 32, 1024),
                       ("cc2.0", 1, 32, 1024)):
    arch(a)
    shown = (int(note.get_attribute("data-requests")), int(note.get_attribute("data-transactions")),
             int(note.get_attribute("data-bytes")))
    m = store["models"][a]
    js = (m["requests"] / execs, m["transactions"] / execs, m["bytes_transferred"] / execs)
    check(shown == (req, tx, by) == js,
          "%s store op: shown %s, JSON / executions %s, by hand %s" % (a, shown, js, (req, tx, by)))
    units = page.locator("#units .unit")
    check(units.count() == 32, "%s store: %d transactions drawn, expected 32" % (a, units.count()))
    reqs = page.eval_on_selector_all("#units .unit", "us => us.map(u => +u.dataset.request)")
    want = [0] * 16 + [1] * 16 if a in ("cc1.0", "cc1.2") else [0] * 32
    check(reqs == want, "%s store: requests of the transactions %s" % (a, reqs))
    check(all(b == "32" for b in page.eval_on_selector_all("#units .unit", "us => us.map(u => u.dataset.bytes)")),
          "%s store: not all transactions of 32 bytes" % a)

# the load (line 5) under cc1.0: two 64-byte segments, one per half-warp; cc1.2 the same
# (shrunk from 128); cc2.0 one 128-byte line; sm_90: 4 sectors
arch("cc1.0")
line(5)
page.locator("#warp tr.op").first.click()
sizes = page.eval_on_selector_all("#units .unit", "us => us.map(u => u.dataset.bytes + '/' + u.dataset.request)")
check(sizes == ["64/0", "64/1"], "cc1.0 load: transactions %s, expected 64/0, 64/1" % sizes)
check(page.locator("#lanes .lane").nth(17).text_content().endswith("64 B at " +
      page.locator("#units .unit").nth(1).text_content().split(" at ")[1].split(":")[0]),
      "lane 17 not in the second segment: %r" % page.locator("#lanes .lane").nth(17).text_content())
for a, want in (("cc1.2", ["64/0", "64/1"]), ("cc2.0", ["128/0"]), ("sm_90", ["32/0"] * 4)):
    arch(a)
    sizes = page.eval_on_selector_all("#units .unit", "us => us.map(u => u.dataset.bytes + '/' + u.dataset.request)")
    check(sizes == want, "%s load: transactions %s, expected %s" % (a, sizes, want))

# ---- line 7 (stride 2): the grid's colour follows the model
line(7)
expect_grid(8, 32, "sm_90, line 7")
bg90 = backgrounds()
arch("cc1.0")
expect_grid(8, 224, "cc1.0, line 7")
check(backgrounds()[0] != bg90[0], "line 7: the same colour under sm_90 and cc1.0")
for a in ("cc1.2", "cc2.0"):
    arch(a)
    expect_grid(8, 32, "%s, line 7" % a)
    check(backgrounds()[0] == bg90[0], "line 7: %s's colour is not sm_90's (same excess)" % a)
arch("cc1.0")

# ---- the way back: "show all lines" clears the filter
page.locator("#unfilter").click()
check(page.locator("#filter").is_hidden(), "the banner stays after 'show all lines'")
expect_grid(24, 448, "cc1.0 after show all")
page.locator("#block .warpcell").first.click()
check(page.locator("#warp tr.op").count() == 3, "warp view after show all: not 3 rows")

# ---- shared memory under both models: the tiled transpose's column read
turl = "file://" + tiled_path
tk = json.load(open(tiled_json))["kernels"][0]
lds = [i for i in tk["instructions"] if i["space"] == "shared" and i["op"] == "load"][0]
page.goto(turl)
page.wait_for_selector("#grid .cell")
page.locator('#grid .cell[data-i="0"]').click()
page.locator("#block .warpcell").first.click()
rows = page.locator("#warp tr.op")
k = [i for i in range(rows.count()) if "ld.shared" in rows.nth(i).locator("td").nth(2).text_content()]
check(len(k) == 4, "tiled: %d ld.shared rows in warp 0, expected 4 (one per row j)" % len(k))
rows.nth(k[0]).click()
for a, req, units, lanes in (("sm_90", 1, 1, 32), ("cc1.0", 2, 2, 16)):
    page.select_option("#arch", a)
    shown = int(page.locator("#opnote").get_attribute("data-requests"))
    m = lds["models"][a]
    check(shown == req == m["requests"] / lds["executions"],
          "tiled %s ld.shared: %d requests shown, JSON / executions %s, by hand %d" %
          (a, shown, m["requests"] / lds["executions"], req))
    check(m["wavefronts"] / lds["executions"] == 32, "tiled %s: JSON wavefronts per execution %s" %
          (a, m["wavefronts"] / lds["executions"]))
    wf = page.locator("#warp tr.op").nth(k[0]).locator("td").nth(6).text_content()
    check(wf == "32", "tiled %s: warp view wavefronts %s, expected 32" % (a, wf))
    u = [x.text_content() for x in page.locator("#units .unit").all()]
    check(len(u) == units and all(("lanes " + ",".join(str(h * lanes + l) for l in range(lanes))) in x and
                                  "%d words: conflict" % lanes in x for h, x in enumerate(u)),
          "tiled %s banks drawn: %s" % (a, u))

check.finish(w, (url, turl))
