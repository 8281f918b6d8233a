#!/usr/bin/env python3
"""coalcheck bench: the table of bench/gpu-overhead.sh (issue 14) from its OUT folder.
usage: gpu-overhead.py OUT DEVICE COMMAND APP...
Per app: kernel ms native (median of the runs), fast, exact, floor (patched, callbacks
return at once), memcheck; ratios to native; exact / memcheck; the fast mode's largest
relative error against exact per instruction (requests and sectors/wavefronts, over the
instructions exact saw) and whether any verdict differs; the fast mode's own 95% bound;
then the library's breakdown (COALCHECK_GPU_PROFILE) per mode."""
import datetime, glob, json, math, os, re, statistics, sys

out, device, command, apps = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]


def kernel_ms(path):
    try:
        m = re.search(r"kernel_ms=([0-9.]+)", open(path).read())
        return float(m.group(1)) if m else None
    except OSError:
        return None


def profile(path):
    try:
        for line in open(path):
            if line.startswith("coalcheck-gpu-profile:"):
                return dict(kv.split("=", 1) for kv in line.split()[1:])
    except OSError:
        pass
    return None


def insns(path):
    try:
        rep = json.load(open(path))
    except (OSError, ValueError):
        return None, []
    rows, kernels = {}, []
    for k in rep["kernels"]:
        kernels.append(k)
        for i in k["instructions"]:
            fig = i.get("sectors", i.get("wavefronts", 0))
            rows[(k["mangled"], i["sass_offset"])] = (i["requests"], fig, i["verdict"],
                                                    i.get("bound95"))
    return rows, kernels


def compare(fast, exact):
    """largest relative error of fast against exact, verdict changes, instructions"""
    if fast is None or exact is None:
        return None, None, 0
    worst, changed = 0.0, 0
    for key, (req, fig, verdict, _) in exact.items():
        f = fast.get(key)
        if f is None:
            worst = max(worst, 1.0)  # an instruction the fast mode never saw
            changed += 1
            continue
        for a, b in ((f[0], req), (f[1], fig)):
            if b:
                worst = max(worst, abs(a - b) / b)
        changed += f[2] != verdict
    return worst, changed, len(exact)


def fmt(v, unit=""):
    return "-" if v is None else f"{v:.2f}{unit}" if isinstance(v, float) else str(v)


def pct(v):
    return "-" if v is None else "inf" if v == math.inf else f"{100 * v:.1f}%"


def ratio(a, b):
    return a / b if a is not None and b else None


rows, br = [], []
for app in apps:
    nat = [kernel_ms(p) for p in sorted(glob.glob(f"{out}/{app}.native*.out"))]
    nat = [x for x in nat if x is not None]
    native = statistics.median(nat) if nat else None
    t = {m: kernel_ms(f"{out}/{app}.{m}.out") for m in ("fast", "exact", "floor", "memcheck")}
    launches = None
    try:
        launches = int(re.search(r"launches=(\d+)", open(f"{out}/{app}.native1.out").read()).group(1))
    except (OSError, AttributeError):
        pass
    fast, fk = insns(f"{out}/{app}.fast.json")
    exact, _ = insns(f"{out}/{app}.exact.json")
    err, changed, n = compare(fast, exact)
    bound = None
    for k in fk:
        for b in (k.get("bound95") or {}).values():
            if b is None:
                bound = math.inf
            elif bound is None or b > bound:
                bound = b if bound != math.inf else bound
    rows.append(dict(app=app, launches=launches, native=native, **t,
                     fast_x=ratio(t["fast"], native), exact_x=ratio(t["exact"], native),
                     floor_x=ratio(t["floor"], native), mem_x=ratio(t["memcheck"], native),
                     ex_mem=ratio(t["exact"], t["memcheck"]), err=err, changed=changed,
                     n=n, bound=bound))
    for mode in ("fast", "exact"):
        p = profile(f"{out}/{app}.{mode}.err")
        if p:
            br.append((app, mode, p))

print(f"# GPU backend overhead ({datetime.date.today().isoformat()})\n")
print(f"Device: {device}. Command: `{command}` (bench/gpu-overhead.sh, issue 14).")
print("Kernel time = the app's own CUDA events around its timed region (ms); ratios to "
      "native. fast: the default mode (launch sampling, sample.c); exact: `--exact`; "
      "floor: exact mode's instrumentation with callbacks that return at once; memcheck: "
      "`compute-sanitizer --tool memcheck`. err: the fast mode's largest relative error "
      "against exact over the instructions exact saw (requests, sectors/wavefronts); "
      "verdicts: instructions whose verdict differs; bound: the largest relative 95% "
      "bound the fast mode stated for a kernel total (inf: unknown).\n")
print("| app | launches | native | fast | exact | floor | memcheck | fast x | exact x | floor x "
      "| memcheck x | exact/memcheck | err | verdicts | bound |")
print("|" + "---|" * 15)
for r in rows:
    print(f"| {r['app']} | {fmt(r['launches'])} | {fmt(r['native'])} | {fmt(r['fast'])} | "
          f"{fmt(r['exact'])} | {fmt(r['floor'])} | {fmt(r['memcheck'])} | "
          f"{fmt(r['fast_x'], 'x')} | {fmt(r['exact_x'], 'x')} | {fmt(r['floor_x'], 'x')} | "
          f"{fmt(r['mem_x'], 'x')} | {fmt(r['ex_mem'])} | "
          f"{pct(r['err'])} | {fmt(r['changed'])}/{r['n']} | {pct(r['bound'])} |")


def med(key, subset=rows):
    v = [r[key] for r in subset if r[key] is not None]
    return (statistics.median(v), max(v)) if v else (None, None)


single = [r for r in rows if (r["launches"] or 0) <= 4]
many = [r for r in rows if (r["launches"] or 0) > 4]
print()
for name, key in (("fast", "fast_x"), ("exact", "exact_x"), ("floor", "floor_x"),
                  ("memcheck", "mem_x")):
    a, s, m = med(key), med(key, single), med(key, many)
    print(f"- {name}: median {fmt(a[0], 'x')}, max {fmt(a[1], 'x')}; single-launch apps "
          f"median {fmt(s[0], 'x')}, many-launch apps median {fmt(m[0], 'x')}")
worse = [r["app"] for r in rows if r["ex_mem"] is not None and r["ex_mem"] > 1]
print(f"- exact slower than memcheck on: {', '.join(worse) if worse else 'none'}")
print("\n## Breakdown (COALCHECK_GPU_PROFILE=1, ms of host time inside the library)\n")
print("load: module load and patch; switch: patch/unpatch between sampled and unsampled "
      "launches; begin: launch-begin callbacks (switches included); wait: waiting for "
      "the kernel at a read-back (the patched kernel's remaining run time); read: "
      "device-to-host copies and zeroing; merge: host-side sums; finish: exit "
      "(nvdisasm, report).\n")
print("| app | mode | launches | patched | switches | flushes | empty | deferred | load | switch | begin | "
      "wait | read | merge | finish |")
print("|" + "---|" * 15)
for app, mode, p in br:
    print(f"| {app} | {mode} | {p.get('launches')} | {p.get('patched')} | {p.get('switches')} | "
          f"{p.get('flushes')} | {p.get('empty')} | {p.get('deferred')} | {p.get('load_ms')} | {p.get('switch_ms')} | "
          f"{p.get('begin_ms')} | {p.get('wait_ms')} | {p.get('read_ms')} | {p.get('merge_ms')} | "
          f"{p.get('finish_ms')} |")
