#!/usr/bin/env python3
"""coalcheck bench: application mode with inline PTX counters (issue 14), the table of
bench/gpu-overhead.sh's modes ifast / iexact from its OUT folder.
usage: gpu-inline-app.py OUT DEVICE COMMAND APP...   (COALCHECK=BIN: verdicts by
`BIN import`, coalcheck's own analysis; without it the verdict columns say "-")
Per app: kernel ms native (median), inline fast (default: CTA and launch sampling),
inline exact, the Sanitizer library's exact mode and memcheck; ratios to native;
inline exact / memcheck; the fast mode's largest relative error against inline exact
over the PTX instructions exact saw (requests, sectors/wavefronts), its largest stated
bound for a kernel total, and the instructions whose verdict differs; then inline exact
against the Sanitizer's exact counts (equal to ncu): per kernel and space (global,
shared) the requests and sectors/wavefronts, and per source line."""
import json, math, os, re, statistics, subprocess, sys, tempfile

out, device, command, apps = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
COALCHECK = os.environ.get("COALCHECK")


def kernel_ms(path):
    try:
        m = re.search(r"kernel_ms=([0-9.]+)", open(path).read())
        return float(m.group(1)) if m else None
    except OSError:
        return None


def check(path):
    try:
        m = re.search(r"check=(\S+)", open(path).read())
        return m.group(1) if m else None
    except OSError:
        return None


def report(path):
    try:
        return json.load(open(path))
    except (OSError, ValueError):
        return None


def insns(rep):
    rows = {}
    for k in (rep or {}).get("kernels", []):
        for i in k["instructions"]:
            rows[(k["mangled"], i["sass_offset"])] = (
                i["requests"], i.get("sectors", i.get("wavefronts", 0)))
    return rows


def verdicts(path):
    """(mangled, ptx_index) -> verdict, by coalcheck's import (None without it)"""
    if not COALCHECK or not os.path.exists(path):
        return None
    with tempfile.TemporaryDirectory() as d:
        r = subprocess.run([COALCHECK, "import", path, "--json", f"{d}/r.json", "-q"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            return None
        rep = json.load(open(f"{d}/r.json"))
    return {(k["mangled_name"], i["ptx_index"]): i.get("verdict")
            for k in rep["kernels"] for i in k["instructions"]}


def largest_error(fast, exact):
    worst = 0.0
    for key, (req, fig) in exact.items():
        f = fast.get(key)
        if f is None:
            return 1.0
        for a, b in ((f[0], req), (f[1], fig)):
            if b:
                worst = max(worst, abs(a - b) / b)
    return worst


def largest_bound(rep):
    worst = None
    for k in (rep or {}).get("kernels", []):
        for b in (k.get("bound95") or {}).values():
            worst = math.inf if b is None else max(worst or 0.0, b)
    return worst


def sums(rep, by_line):
    """(kernel, space[, file:line]) -> [requests, sectors or wavefronts]; global, shared"""
    s = {}
    for k in (rep or {}).get("kernels", []):
        for i in k["instructions"]:
            if i["space"] not in ("global", "shared"):
                continue
            key = (k["mangled"], i["space"])
            if by_line:
                src = i.get("source") or {}
                key += (f"{os.path.basename(src.get('file', '?'))}:{src.get('line', 0)}",)
            v = s.setdefault(key, [0, 0])
            v[0] += i["requests"]
            v[1] += i.get("sectors", i.get("wavefronts", 0))
    return s


def agree(a, b):
    """equal keys, largest relative difference over requests and units"""
    keys = set(a) | set(b)
    equal, worst = 0, 0.0
    for key in keys:
        x, y = a.get(key, [0, 0]), b.get(key, [0, 0])
        equal += x == y
        for u, v in zip(x, y):
            if u != v:
                worst = max(worst, abs(u - v) / max(u, v))
    return equal, len(keys), worst


def fmt(v, unit=""):
    return "-" if v is None else f"{v:.2f}{unit}" if isinstance(v, float) else str(v)


def pct(v):
    return "-" if v is None else "inf" if v == math.inf else f"{100 * v:.1f}%"


def ratio(a, b):
    return a / b if a is not None and b else None


rows = []
for app in apps:
    nat = [kernel_ms(f"{out}/{app}.native{r}.out") for r in range(1, 10)]
    nat = [x for x in nat if x is not None]
    native = statistics.median(nat) if nat else None
    t = {m: kernel_ms(f"{out}/{app}.{m}.out") for m in ("ifast", "iexact", "exact", "memcheck")}
    same = all(check(f"{out}/{app}.{m}.out") in (None, check(f"{out}/{app}.native1.out"))
               for m in ("ifast", "iexact"))
    try:
        launches = int(re.search(r"launches=(\d+)", open(f"{out}/{app}.native1.out").read()).group(1))
    except (OSError, AttributeError):
        launches = None
    fast, exact, san = (report(f"{out}/{app}.{m}.json") for m in ("ifast", "iexact", "exact"))
    err = largest_error(insns(fast), insns(exact)) if fast and exact else None
    vf, ve = verdicts(f"{out}/{app}.ifast.json"), verdicts(f"{out}/{app}.iexact.json")
    changed = None if vf is None or ve is None else sum(vf.get(k) != v for k, v in ve.items())
    kt = agree(sums(exact, False), sums(san, False)) if exact and san else None
    lt = agree(sums(exact, True), sums(san, True)) if exact and san else None
    rows.append(dict(app=app, launches=launches, native=native, **t, same=same,
                     fx=ratio(t["ifast"], native), ex=ratio(t["iexact"], native),
                     sx=ratio(t["exact"], native), mx=ratio(t["memcheck"], native),
                     em=ratio(t["iexact"], t["memcheck"]), err=err, bound=largest_bound(fast),
                     changed=changed, n=len(ve) if ve else len(insns(exact)), kt=kt, lt=lt))

print(f"# Application mode with inline PTX counters: overhead and exactness\n")
print(f"Device: {device}. Command: `{command}` (bench/gpu-overhead.sh, modes ifast and "
      "iexact; this table: bench/gpu-inline-app.py).")
print("Kernel time = the app's own CUDA events around its timed region (ms); ratios to "
      "native. inline fast: `coalcheck ./app` (libcoalcheck_inline.so: 1 CTA in 8 counted, "
      "the pick salted per launch; launches after a kernel's first 4 sampled 1 in 64); "
      "inline exact: `--exact`; "
      "sanitizer exact: `--gpu-mode sanitizer --exact` (libcoalcheck_gpu.so, equal to "
      "ncu); memcheck: `compute-sanitizer --tool memcheck`. check: the app printed the "
      "native run's check value under both inline modes. err: inline fast's largest "
      "relative error against inline exact over the instructions exact saw (requests, "
      "sectors/wavefronts); bound: the largest relative 95% bound inline fast stated for "
      "a kernel total (inf: unknown); verdicts: instructions whose verdict (coalcheck "
      "import) differs.\n")
print("| app | launches | native | inline fast | inline exact | sanitizer exact | memcheck | "
      "fast x | exact x | sanitizer x | memcheck x | exact/memcheck | check | err | bound | "
      "verdicts |")
print("|" + "---|" * 16)
for r in rows:
    print(f"| {r['app']} | {fmt(r['launches'])} | {fmt(r['native'])} | {fmt(r['ifast'])} | "
          f"{fmt(r['iexact'])} | {fmt(r['exact'])} | {fmt(r['memcheck'])} | "
          f"{fmt(r['fx'], 'x')} | {fmt(r['ex'], 'x')} | {fmt(r['sx'], 'x')} | "
          f"{fmt(r['mx'], 'x')} | {fmt(r['em'])} | {'same' if r['same'] else 'DIFFERS'} | "
          f"{pct(r['err'])} | {pct(r['bound'])} | {fmt(r['changed'])}/{r['n']} |")


def med(key):
    v = [r[key] for r in rows if r[key] is not None]
    return (statistics.median(v), max(v)) if v else (None, None)


print()
for name, key in (("inline fast", "fx"), ("inline exact", "ex"), ("sanitizer exact", "sx"),
                  ("memcheck", "mx")):
    a = med(key)
    print(f"- {name}: median {fmt(a[0], 'x')}, max {fmt(a[1], 'x')}")
above = [r["app"] for r in rows if r["fx"] is not None and r["fx"] > 10]
worse = [r["app"] for r in rows if r["em"] is not None and r["em"] > 1]
print(f"- inline fast above 10x native on: {', '.join(above) if above else 'none'}")
print(f"- inline exact slower than memcheck on: {', '.join(worse) if worse else 'none'}")
print("\n## Inline exact against the Sanitizer library's exact counts (= ncu)\n")
print("Global and shared accesses (the inline pass counts no local ones); requests and "
      "sectors (global) or wavefronts (shared) summed per kernel and space, and per kernel, "
      "space and source line (both builds have -lineinfo). equal: keys with both figures "
      "equal, of all keys; diff: the largest relative difference.\n")
print("| app | kernel x space equal | diff | kernel x space x line equal | diff |")
print("|---|---|---|---|---|")
for r in rows:
    kt, lt = r["kt"], r["lt"]
    print(f"| {r['app']} | {f'{kt[0]}/{kt[1]}' if kt else '-'} | {pct(kt[2]) if kt else '-'} | "
          f"{f'{lt[0]}/{lt[1]}' if lt else '-'} | {pct(lt[2]) if lt else '-'} |")
