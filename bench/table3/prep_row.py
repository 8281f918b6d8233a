#!/usr/bin/env python3
"""One row of bench/table3.sh's prepare TSV: a case of the manifest (bench/table3/cases.tsv)
and what `coalcheck fix` made of it.

    prep_row.py header
    prep_row.py row MANIFEST CASE FIX_JSON FIX_LOG EXIT DECIDE_S

The row: the manifest's columns (shape, expected transformation, the paper's speed-up,
bound), the ideal bytes (the manifest's expression evaluated over the launch file's scalars
and buffer element counts), the vendor SPEC with the launch's scalars filled in, and from
the fix: exit code, status ("fixed" or "no fix: REASON"), the transformation chosen and
what it did, the emulated global sectors before and after, verified, how the outputs
compare ("bitwise", or "not bitwise: reassociated"), and the time `coalcheck fix` took."""
import json
import os
import re
import shlex
import sys

COLUMNS = ["case", "kernel", "shape", "expected", "paper", "bound", "ideal_bytes", "ideal_expr",
           "vendor",
           "exit", "status", "transform", "choice", "sectors_before", "sectors_after",
           "verified", "compare", "decide_s", "reason", "candidates"]


def manifest(path):
    """The manifest's rows as dicts (comment lines skipped)."""
    with open(path) as f:
        lines = [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#")]
    head = lines[0].split("\t")
    return [dict(zip(head, l.split("\t"))) for l in lines[1:]]


def evaluate(expr, names, c_division=False):
    """An arithmetic expression over integer literals and names (each replaced by its value
    first, so a name may be a Python keyword such as `in`); with c_division, `/` truncates
    as in C (the launch SIZE rule; sizes are never negative)."""
    if not re.fullmatch(r"[\w\s.+\-*/%()]*", expr):
        raise ValueError(f"unexpected characters in '{expr}'")

    def value(m):
        if m.group(0) not in names:
            raise ValueError(f"unknown name '{m.group(0)}' in '{expr}'")
        return repr(names[m.group(0)])
    text = re.sub(r"\b[A-Za-z_]\w*\b", value, expr)
    return eval(text.replace("/", "//") if c_division else text, {"__builtins__": {}}, {})


def launch_info(path):
    """(kernel name, {scalar or buffer name: value or element count}) of a launch file."""
    words = []
    with open(path) as f:
        for line in f:
            if not line.lstrip().startswith("#"):
                words += shlex.split(line)
    kernel, scalars, buffers = "-", {}, {}
    for i, w in enumerate(words[:-1]):
        nxt = words[i + 1]
        if w == "--kernel":
            kernel = nxt
        elif w == "--arg" and "=" in nxt:
            name, val = nxt.split("=", 1)
            m = re.fullmatch(r"\w+\[(.*)\]:.*", val)
            if m:
                buffers[name] = m.group(1)
            else:
                try:
                    scalars[name] = int(val, 0)
                except ValueError:
                    scalars[name] = float(val)
    names = dict(scalars)
    for name, size in buffers.items():
        names[name] = int(evaluate(size, scalars, c_division=True))
    return kernel, names


def one_line(s):
    return " ".join(str(s).split()).replace("\t", " ") or "-"


def find_compare(d, log):
    """'bitwise', or 'not bitwise: reassociated' with the terms summed and the largest error
    as a fraction of the verified bound (fix report schema 2: bitwise_equal, terms,
    max_error_of_bound; the summary's wording for older reports), '-' when unknown."""
    if "bitwise_equal" in d:
        if d["bitwise_equal"]:
            return "bitwise"
        extra = [f"{d['terms']:.0f} terms" if "terms" in d else "",
                 f"error {d['max_error_of_bound']:.2g} of the bound"
                 if "max_error_of_bound" in d else ""]
        return "not bitwise: reassociated" + "".join(f", {x}" for x in extra if x)
    if "reassociated" in log:
        return "not bitwise: reassociated"
    return "bitwise" if "bitwise equal" in log else "-"


def refusal(d, expected, fallback):
    """Why the case was not fixed, one line: the expected transformation's refusal or its
    candidate's failed verification when the report has them, else the report's reason."""
    for c in d.get("source_candidates") or []:
        if c.get("transform") == expected and c.get("failure"):
            return f"{expected}: candidate not verified: {c['failure']}"
    for r in d.get("refusals") or []:
        if r.get("transform") == expected:
            return f"{expected}: {r.get('reason', '?')}"
    return fallback


def candidates(d):
    """The source transformations' candidates, '; '-separated: 'TRANSFORM[/VARIANT] SECTORS
    verified|not verified[ (alternate)]' (VARIANT: the parenthesis ending the candidate's
    `what`, e.g. "warp shuffle", after "V=8 " when the `what` says "over 8 lanes, 4
    threads a warp", redistribute's sub-warp form; alternate: left by the
    transformation's own rule without a GPU), '-' when none."""
    out = []
    for c in d.get("source_candidates") or []:
        sect = f" {c['measured_sectors']:.0f}" if "measured_sectors" in c else ""
        what = c.get("what") or ""
        variant = re.search(r"\(([^()]*)\)\s*$", what)
        lanes = re.search(r"over (\d+) lanes, \d+ threads a warp", what)
        label = (f"V={lanes.group(1)} " if lanes else "") + (variant.group(1) if variant else "")
        out.append(f"{c.get('transform', '?')}{'/' + label if label else ''}{sect} "
                   + ("verified" if c.get("verified") else "not verified")
                   + (" (alternate)" if c.get("alternate") else ""))
    return "; ".join(out) or "-"


def fix_fields(json_path, log_path, rc, expected):
    """The fix's columns (status .. reason) from its JSON report and its log."""
    log = open(log_path, errors="replace").read() if os.path.exists(log_path) else ""
    try:
        d = json.load(open(json_path))
    except (OSError, ValueError):
        d = {}
    errors = [l[len("coalcheck: error: "):] for l in log.splitlines()
              if l.startswith("coalcheck: error: ")]
    reason = one_line(refusal(d, expected, d.get("reason") or
                              (errors[-1] if errors else f"exit {rc}")))

    def sectors(which):
        try:
            return str(d[which]["kernels"][0]["totals"]["sectors"])
        except (KeyError, IndexError, TypeError):
            return "-"
    verified = bool(d.get("verified")) and rc == 0
    ch = d.get("chosen") or {}
    if verified:
        transform = d.get("transform") or "-"
        if "permutation" in ch:
            choice = ch["permutation"] + (" +reshape" if ch.get("reshaped") else "")
        else:
            choice = one_line(d.get("what") or ch.get("what") or "-")
        status, reason = "fixed", "-"
    else:
        transform, choice = "-", "-"
        status = "no fix: " + reason if rc == 11 else "error: " + reason
    return {"exit": str(rc), "status": status, "transform": transform, "choice": choice,
            "sectors_before": sectors("before"),
            "sectors_after": sectors("after") if verified else "-",
            "verified": "yes" if verified else "no",
            "compare": find_compare(d, log) if verified else "-", "reason": reason,
            "candidates": candidates(d)}


def row(manifest_path, case, json_path, log_path, rc, decide_s):
    entry = [r for r in manifest(manifest_path) if r["case"] == case]
    if not entry:
        sys.exit(f"prep_row: error: no case '{case}' in {manifest_path}")
    e = entry[0]
    kernel, names = launch_info(os.path.join(os.path.dirname(manifest_path), e["launch"]))
    ideal = int(evaluate(e["ideal_bytes"], names))
    vendor = e["vendor"].format(**names) if e["vendor"] != "-" else "-"
    out = {"case": case, "kernel": kernel, "shape": e["shape"], "expected": e["expected"],
           "paper": e["paper"], "bound": e["bound"], "ideal_bytes": str(ideal), "ideal_expr": e["ideal_bytes"],
           "vendor": vendor, "decide_s": f"{float(decide_s):.1f}"}
    out.update(fix_fields(json_path, log_path, int(rc), e["expected"]))
    return "\t".join(out[c] for c in COLUMNS)


def sort_rows(manifest_path, tsv):
    """Rewrites the prepare TSV with its rows in the manifest's order (cases the manifest
    does not name last), so that re-prepared cases keep their place in the table."""
    order = {r["case"]: i for i, r in enumerate(manifest(manifest_path))}
    with open(tsv) as f:
        head, *rows = f.read().splitlines()
    rows.sort(key=lambda l: order.get(l.split("\t")[0], len(order)))
    with open(tsv + ".tmp", "w") as f:
        f.write("\n".join([head] + rows) + "\n")
    os.replace(tsv + ".tmp", tsv)


def main():
    if sys.argv[1:2] == ["header"]:
        print("\t".join(COLUMNS))
    elif sys.argv[1:2] == ["row"] and len(sys.argv) == 8:
        print(row(*sys.argv[2:8]))
    elif sys.argv[1:2] == ["sort"] and len(sys.argv) == 4:
        sort_rows(sys.argv[2], sys.argv[3])
    elif sys.argv[1:2] == ["cases"] and len(sys.argv) == 3:
        print(" ".join(r["case"] for r in manifest(sys.argv[2])))
    elif sys.argv[1:2] == ["launch"] and len(sys.argv) == 4:
        e = [r for r in manifest(sys.argv[2]) if r["case"] == sys.argv[3]]
        if not e:
            sys.exit(f"prep_row: error: no case '{sys.argv[3]}' in {sys.argv[2]}")
        print(os.path.join(os.path.dirname(sys.argv[2]), e[0]["launch"]))
    else:
        sys.exit("usage: prep_row.py header | row MANIFEST CASE FIX_JSON FIX_LOG EXIT DECIDE_S"
                 " | sort MANIFEST TSV | cases MANIFEST | launch MANIFEST CASE")


if __name__ == "__main__":
    main()
