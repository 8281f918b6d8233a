#!/usr/bin/env python3
"""bench/unseen/table.py RESULTS: the Markdown table of bench/unseen/run.sh's outputs (one
row per launch file: the worst access by excess sectors, its sectors per request, the fix
chosen or the refusal, total global sectors before -> after, verified, wall seconds)."""
import json, os, re, sys

out = sys.argv[1]


def short(r, n=150):
    """r without the folder of its file, cut to n characters."""
    here = os.path.dirname(os.path.abspath(__file__))
    for d in ('polybench', 'rodinia', 'parboil', 'samples'):
        r = r.replace(f'{here}/{d}/', '').replace(f'bench/unseen/{d}/', '').replace(f'{d}/', '')
    r = re.sub(r'no permutation of the thread geometry lowers the excess sectors of \w+; '
               r'its worst access, ', 'worst access: ', r)
    return r if len(r) <= n else r[:n - 3] + '...'

names = sorted(f[:-5] for f in os.listdir(out) if f.endswith('.json') and not f.endswith('.fix.json'))
print('| kernel (launch) | worst access | sectors/request (ideal) | fix chosen, or refusal | '
      'sectors before -> after | verified | wall s |')
print('| --- | --- | --- | --- | --- | --- | --- |')
for n in names:
    k = json.load(open(f'{out}/{n}.json'))['kernels'][0]
    g = [i for i in k['instructions'] if i['space'] == 'global' and i['requests']]
    w = max(g, key=lambda i: (i['sectors'] - i['ideal_sectors'], i['sectors']))
    src = w['source']
    where = f"{os.path.basename(src['file'] or '?')}:{src['line']}:{src['column']} {w['op']}"
    spr = f"{w['sectors'] / w['requests']:.2f} ({w['ideal_sectors'] / w['requests']:.2f})"
    before = k['totals']['sectors']
    shared = k['totals'].get('wavefronts', 0) > 0
    fj = f'{out}/{n}.fix.json'
    after, ver, what = '-', 'no', ''
    if os.path.exists(fj):
        d = json.load(open(fj))
        if d['verified']:
            ver = 'yes' + ('' if d['bitwise_equal'] else ' (reassociated)')
            after = d['after']['kernels'][0]['totals']['sectors']
            what = f"**{d['transform']}**: {d['what']}"
        elif d['reason'].startswith('no transformation improves'):
            # the refusals that matter for the kernel (a loop kernel: permute, lift,
            # redistribute; with shared memory or structures: soa, pad too), each cut short
            keep = ('permute', 'lift', 'redistribute', 'soa', 'pad') if shared else \
                ('permute', 'lift', 'redistribute')
            parts = [f"{r['transform']}: {short(r['reason'])}" for r in d['refusals']
                     if r['transform'] in keep]
            what = 'refused: ' + '; '.join(parts)
        else:
            what = 'refused: ' + d['reason'].splitlines()[0]
    else:
        err = open(f'{out}/{n}.fix.err').read().strip().splitlines()
        what = 'refused: ' + (err[0] if err else '(no output)')
    what = what.replace('coalcheck: error: ', '').replace('|', '\\|')
    if not what.startswith('refused: permute'):
        what = short(what, 300)
    t = open(f'{out}/{n}.time').read().strip()
    print(f"| {n} ({k['name']}) | {where} | {spr} | {what} | {before} -> {after} | {ver} | {t} |")
