#!/usr/bin/env python3
# table.py DIR LAUNCH...: the Markdown table of bench/results/unseen-rodinia-*.md from
# `coalcheck fix --json DIR/NAME.json` and DIR/NAME.time (wall seconds) of each launch.
import json, os, sys

def worst(k):
    """the instruction with the most excess (sectors, or wavefronts for shared)"""
    def ex(i):
        if i["space"] == "shared":
            return i.get("wavefronts", 0) - i.get("ideal_wavefronts", 0)
        return i["sectors"] - i["ideal_sectors"]
    best = max(k["instructions"], key=ex, default=None)
    if best is None or ex(best) <= 0:
        return "-", "none"
    loc = "%s:%d" % (os.path.basename(best["source"]["file"] or "?"), best["source"]["line"])
    if best["space"] == "shared":
        return loc, "%.2f wavefronts/req (%d-way)" % (best["wavefronts"] / best["requests"],
                                                     best.get("bank_conflict_ways", 0))
    return loc, "%.2f sectors/req (ideal %.2f)" % (best["sectors"] / best["requests"],
                                                  best["ideal_sectors"] / best["requests"])

def short(reasons):
    """each transformation's reason, its folder dropped, cut to 70 characters"""
    def one(r):
        t = r["reason"].replace("bench/unseen/rodinia/", "").replace("|", "\\|")
        return "%s: %s" % (r["transform"], t if len(t) <= 70 else t[:67] + "...")
    return "<br>".join(one(r) for r in reasons)

print("| kernel | worst access | per request | fix (or refusal) | sectors before -> after "
      "| wavefronts before -> after | verified | wall s |")
print("|---|---|---|---|---|---|---|---|")
out = sys.argv[1]
for launch in sys.argv[2:]:
    name = os.path.basename(launch)[:-len(".launch")]
    try:
        d = json.load(open(os.path.join(out, name + ".json")))
    except (OSError, ValueError):
        print("| %s | - | - | no JSON (see the log) | - | - | no | - |" % name)
        continue
    t = open(os.path.join(out, name + ".time")).read().strip()
    kb = d["before"]["kernels"][0]
    loc, per = worst(kb)
    tb = kb["totals"]
    if d.get("transform"):
        ta = d["after"]["kernels"][0]["totals"]
        fix = "**%s**: %s" % (d["transform"], d["what"][:140].replace("|", "\\|"))
        sec = "%d -> %d" % (tb["sectors"], ta["sectors"])
        wav = "%d -> %d" % (tb.get("wavefronts", 0), ta.get("wavefronts", 0))
    else:
        fix = "refused: " + (short(d.get("refusals") or []) or (d.get("reason") or "")[:200])
        sec = "%d" % tb["sectors"]
        wav = "%d" % tb.get("wavefronts", 0)
    print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
        "%s (%s)" % (d["kernel"], name), loc, per, fix, sec, wav,
        "yes" if d.get("verified") else "no", t))
