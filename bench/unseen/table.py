#!/usr/bin/env python3
"""bench/unseen/table.py RESULTS: the Markdown table of bench/unseen/run.sh's outputs (one
row per launch file: the worst access by excess sectors, its sectors per request, the fix
chosen or the refusal, total global sectors before -> after, verified, wall seconds)."""
import json, os, sys

out = sys.argv[1]
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
    fj = f'{out}/{n}.fix.json'
    after, ver, what = '-', 'no', ''
    if os.path.exists(fj):
        d = json.load(open(fj))
        if d['verified']:
            ver = 'yes' + ('' if d['bitwise_equal'] else ' (reassociated)')
            after = d['after']['kernels'][0]['totals']['sectors']
            what = f"**{d['transform']}**: {d['what']}"
        else:
            what = 'refused: ' + d['reason'].splitlines()[0]
    else:
        err = open(f'{out}/{n}.fix.err').read().strip().splitlines()
        what = 'refused: ' + (err[0] if err else '(no output)')
    what = what.replace('coalcheck: error: ', '').replace('|', '\\|')
    if len(what) > 260:
        what = what[:257] + '...'
    t = open(f'{out}/{n}.time').read().strip()
    print(f"| {n} ({k['name']}) | {where} | {spr} | {what} | {before} -> {after} | {ver} | {t} |")
