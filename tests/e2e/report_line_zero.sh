#!/bin/bash
# nvcc gives line 0 (`.loc 1 0 0`) to code merged from several source lines (srad's
# north[ty][tx] / temp[ty - 1][tx], one load for both). A report never names line 0: an
# instruction after a real .loc of its function takes the nearest preceding one (src/ptx/
# ptx_parse.c); one with none before it is reported "line unknown" in the text, without a
# region in SARIF, and keeps line 0 (documented as unknown) in JSON. No nvcc needed: the
# PTX is hand-written.
#
# Expected figures, derived by hand: grid 1 x block 32, in = 1024 floats. Insn 1 (after the
# first .loc, of line 0) reads in[32 tid]: lanes 128 bytes apart, 32 sectors. Insn 2
# (line 7) reads in[tid]: 128 contiguous bytes, 4 sectors. Insn 3 (after `.loc 1 0 0`,
# nearest real .loc 7) reads in[32 tid + 1]: 32 sectors, on line 7. The store (line 8)
# writes out[tid]: 4 sectors.
. "$(dirname "$0")/data/common.bash"

cat > "$TMP/z.ptx" <<'PTX'
.version 8.0
.target sm_90
.address_size 64

.visible .entry lz(.param .u64 in, .param .u64 out)
{
	.reg .b32 %r<3>;
	.reg .b64 %rd<8>;
	.reg .f32 %f<5>;
	.loc	1 0 0
	ld.param.u64 	%rd1, [in];
	ld.param.u64 	%rd2, [out];
	cvta.to.global.u64 	%rd3, %rd1;
	cvta.to.global.u64 	%rd4, %rd2;
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd5, %r1, 128;
	add.s64 	%rd6, %rd3, %rd5;
	ld.global.f32 	%f1, [%rd6];
	.loc	1 7 3
	mul.wide.u32 	%rd7, %r1, 4;
	add.s64 	%rd5, %rd3, %rd7;
	ld.global.f32 	%f2, [%rd5];
	.loc	1 0 0
	ld.global.f32 	%f3, [%rd6+4];
	.loc	1 8 3
	add.f32 	%f4, %f1, %f2;
	add.f32 	%f4, %f4, %f3;
	add.s64 	%rd5, %rd4, %rd7;
	st.global.f32 	[%rd5], %f4;
	ret;
}
	.file	1 "z.cu"
PTX
RUN=("$COALCHECK" "$TMP/z.ptx" --kernel lz --grid 1 --block 32 --arg 'in=f32[1024]:iota'
     --arg 'out=f32[32]:zero')

expect 0 "" "${RUN[@]}" --json "$TMP/z.json" --sarif "$TMP/z.sarif"
# text: the line-0 load is "line unknown", the merged one is on line 7; never ":0"
grep -q "z.cu, line unknown  *ld  *global" "$TMP/out" || fail "text: no 'z.cu, line unknown' row"
grep -q "(line unknown: nvcc gave this instruction line 0)" "$TMP/out" || fail "text: source row"
! grep -q "z.cu:0" "$TMP/out" || fail "text: line 0 named"
# JSON: (line, op, sectors) per instruction in PTX order
jcheck "$TMP/z.json" '[(i["source"]["line"], i["op"], i["sectors"]) for i in sorted(d["kernels"][0]["instructions"], key=lambda i: i["ptx_index"])] == [(0, "load", 32), (7, "load", 4), (7, "load", 32), (8, "store", 4)]'
# SARIF: two uncoalesced loads; the line-0 one has no region, the other line 7
jcheck "$TMP/z.sarif" 'sorted(r["locations"][0]["physicalLocation"].get("region", {}).get("startLine", 0) for r in d["runs"][0]["results"]) == [0, 7]'
jcheck "$TMP/z.sarif" 'all(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "z.cu" for r in d["runs"][0]["results"])'
if python3 -c 'import jsonschema' 2>/dev/null; then
  python3 - "$TMP/z.sarif" "$COALCHECK_SRC/tests/data/sarif-schema-2.1.0.json" <<'PY' || fail "SARIF: not valid against the 2.1.0 schema"
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))
PY
fi
finish
