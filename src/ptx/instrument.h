/* coalcheck PTX front end: the inline counting pass (issue 14, the fast GPU mode of
 * kernel mode).
 *
 * ptx_instrument writes a module as PTX in which, before each .global and .shared
 * ld/ldu/st/atom/red of every .entry, a few warp-level instructions compute what that
 * warp's execution of the access costs under the sm_90 rules of src/model
 * (MODELS.md; global_sector32.c, shared_banks32.c) and the warp's leader adds it to a
 * per-site counter with red.global. The counters live in a buffer the caller passes as
 * one more kernel parameter, PTX_INST_PARAM (.u64, a global address), after the kernel's
 * own. Layout (64-bit counters, zero before the launch):
 *
 *   counters[site][shard][PTX_INST_FIELDS]       shard = %smid & (shards - 1)
 *
 * (with execution sampling, opts.exec E > 1: two such planes, see ptx_inst_opts.exec)
 *
 * (with CTA sampling, sample S > 1: shard = (linear CTA id / S) & (shards - 1), the
 * counted CTA's rank, so that the shards hold interleaved sub-samples)
 *
 * so that warps of different SMs add to different words (GPU-NOTES.md: one counter per
 * instruction for the whole GPU made a transpose 58x slower, per-SM counters 6.5x); the
 * caller sums the shards.
 *
 * Per warp execution of a site whose guard holds for at least one lane:
 *   requests += 1; lanes += lanes whose guard holds;
 *   global: units += distinct 32-byte sectors of those lanes (match.any.sync on
 *           address >> 5; every access of 1..16 bytes is naturally aligned in PTX, so a
 *           lane touches one sector);
 *   shared: units += wavefronts, ways = max(ways, bank-conflict ways): per phase (32
 *           lanes for 1..4-byte accesses, half-warps for 8, quarter-warps for 16), the
 *           most distinct 4-, 8- or 16-byte units in one bank group (4-byte words in 32
 *           banks, aligned 8-byte units in 16 bank pairs, 16-byte units in 8 bank
 *           quads: the same count as distinct words per bank for aligned accesses);
 *           wavefronts = sum over phases with a lane of that maximum (>= 1).
 *   strides (CGO 2015 Algorithm 1, W = 32, as src/analysis and the Sanitizer patch):
 *           the accessing lanes' addresses sorted, neighbour differences; their
 *           smallest and largest, and their sum (largest - smallest address). Addresses
 *           are taken relative to the lowest accessing lane's and saturated to +-2^31
 *           bytes as in src/gpu/patch.cu. Full warps whose addresses do not decrease
 *           with the lane take the differences of lane neighbours; other warps a
 *           successor search over the accessing lanes (one shfl per lane).
 *   local: each lane's local-space address (its offset in the thread's window, as
 *           ld.local takes it) laid out as the hardware interleaves local memory
 *           (src/model cc_model_local_layout: 32-bit word w of lane l at w x 128 + l x 4),
 *           then counted as a global access of min(size, 4) bytes on those addresses;
 *           an access of k > 4 bytes is k / 4 requests, each with word 0's sectors and
 *           ideal (as Nsight Compute counts LDL/STL and the Sanitizer patch records them).
 *   generic (ld/st/atom/red without a state space): each accessing lane's address is
 *           tested with isspacep.global / .shared / .local, and the lanes of each space
 *           count as that space's own request (the hardware splits such a warp access
 *           by space; the emulator delivers one record per space): a generic
 *           instruction owns three consecutive sites, global, shared and local
 *           (ptx_inst_site.generic), the shared lanes' addresses converted with
 *           cvta.to.shared, the local ones with cvta.to.local. Lanes in none of the
 *           three (a generic address of .const or .param) count nothing.
 * An execution in which no lane's guard holds counts nothing (the emulator delivers no
 * record for it either). The neighbour strides number lanes - requests / words.
 *
 * .func bodies (instrument_funcs.h): a .func with a body whose address is never taken
 * and that has a site or calls such a .func takes one more parameter, the calling
 * kernel's counter base at the thread's shard (0: counts nothing), passed along every
 * call chain. Its sites are counted per kernel: after the entries' own sites, one region
 * of all counted .funcs' sites per entry that calls one (site.func the entry, site.body
 * the .func); the kernel passes its region's base. Never execution-sampled.
 *
 * Not instrumented (ptx_inst_map.skips lists each with its reason, for the report's
 * notes): accesses in .funcs whose address is taken (a call through a pointer would not
 * pass the counters), or in every .func when the regions would exceed 4096 sites; vector
 * accesses above 16 bytes per lane, instruction types of recent architectures (no enum
 * ptx_type), .shared::cluster accesses, cp.async and bulk copies, ldmatrix/stmatrix and
 * wmma loads/stores. The printed module keeps the input's .version and .target; the pass
 * needs sm_80 (redux.sync) or later. */
#ifndef CC_PTX_INSTRUMENT_H
#define CC_PTX_INSTRUMENT_H

#include <stdint.h>
#include <stdio.h>

#include "ptx/ptx.h"
#include "util/err.h"

/* Name of the counter parameter appended to each instrumented .entry (a counted .func
 * takes PTX_INST_FUNC_PARAM, instrument_funcs.h). */
#define PTX_INST_PARAM "__cc_counters"
/* Name of the parameter appended to each counted .func: the calling kernel's counter base
 * (instrument_funcs.h). */
#define PTX_INST_FUNC_PARAM "__cc_cbase"
/* The most shards (a power of two). */
#define PTX_INST_MAX_SHARDS 1024u

/* Fields of one (site, shard) record of the counter buffer. */
enum ptx_inst_field {
  PTX_INST_F_REQUESTS, /* warp executions with at least one lane accessing */
  PTX_INST_F_UNITS,    /* global: 32-byte sectors; shared: wavefronts */
  PTX_INST_F_LANES,    /* lanes that accessed (bytes requested = lanes x size) */
  PTX_INST_F_WAYS,     /* shared: the largest bank-conflict ways (red.max); global: 0 */
  PTX_INST_F_IDEAL,    /* global: ideal sectors, ceil(distinct addresses x size / 32);
                          shared: ideal wavefronts, the phases with an accessing lane */
  PTX_INST_F_SPAN,     /* sum over executions of largest - smallest address (bytes) = the
                          sum of Algorithm 1's neighbour strides (one group = the warp) */
  PTX_INST_F_STRMIN_INV, /* UINT64_MAX - the smallest neighbour stride (red.max; 0: none) */
  PTX_INST_F_STRMAX,   /* the largest neighbour stride (bytes) */
  PTX_INST_FIELDS
};

/* What an instrumented instruction does; the order of enum cc_access_kind (access.h). */
enum ptx_inst_kind { PTX_INST_LOAD, PTX_INST_STORE, PTX_INST_ATOMIC, PTX_INST_REDUCTION };

/* One instrumented instruction. */
struct ptx_inst_site {
  uint32_t func;       /* index into ptx_module.funcs: the .entry it is counted for */
  uint32_t body;       /* the function whose body holds the instruction: func, or a
                          counted .func (one copy of its sites per calling entry) */
  uint8_t looped;      /* inside a loop (between a label and a later branch back to it):
                          only such sites are execution-sampled; others always count */
  uint32_t insn;       /* index of the instruction in body */
  uint8_t space;       /* PTX_SPACE_GLOBAL, PTX_SPACE_SHARED or PTX_SPACE_LOCAL: the
                          space counted here (a generic instruction's resolved space) */
  uint8_t generic;     /* 1: a generic instruction; its three sites (global, shared,
                          local, in this order) are consecutive and share func and insn */
  uint8_t kind;        /* enum ptx_inst_kind */
  uint32_t size_bytes; /* bytes per lane: element size x vector width (1..16) */
};

struct ptx_inst_opts {
  uint32_t shards; /* counter copies, a power of two 1..PTX_INST_MAX_SHARDS; 0: 1 */
  uint32_t sample; /* CTA sampling: of each run r of `sample` consecutive linear CTA ids
                      (x fastest; r = id / sample), only the CTA at position
                      ptx_inst_pick(r, sample) counts; 0 or 1: every CTA */
  uint32_t exec;   /* execution sampling E (a power of two; 0 or 1: off): in a counted
                      CTA, a warp's execution of a site counts when the lowest executing
                      lane's count of site executions (from 1) is at most
                      PTX_INST_EXEC_HEAD, into plane 0 of the buffer, else with
                      probability about 1/E (a hash of the count, seeded by the CTA id),
                      into plane 1; figures = plane 0 + E x plane 1
                      (ptx_inst_fold). Shards then go by CTA rank as with sample > 1 */
  int salted;      /* 1: the counter parameter's low PTX_INST_SALT_BITS bits are a salt s
                      (the buffer itself aligned to 2^PTX_INST_SALT_BITS bytes): CTA
                      sampling picks ptx_inst_pick_salted(r, sample, s) modulo the run's
                      length (the last run may be shorter: every run counts one CTA,
                      ceil(C / sample) in all) and execution
                      sampling's hash is seeded with s too, so that launches of one kernel
                      count different CTAs (fixed picks alias with a loop of launches whose
                      work moves across the grid, e.g. columns k..n of step k) */
  int gate;        /* 1: a launch whose counter parameter is 0 (NULL) counts nothing and
                      pays one branch per site (application mode's launch sampling runs
                      unmeasured launches so, src/gpu/inline_app.c) */
};

/* A memory instruction the pass leaves out, and why (a static string). */
struct ptx_inst_skip {
  uint32_t func, insn; /* function (an .entry or a .func) and instruction index */
  const char *why;     /* e.g. "in a .func body (a device function not inlined)" */
};

/* The sites of one instrumented module, in (function, instruction) order: site k owns
 * counters[k][..][..]. */
struct ptx_inst_map {
  struct ptx_inst_site *sites;
  uint32_t nsites;
  uint32_t shards, sample; /* as used (shards >= 1, sample >= 1) */
  uint32_t exec;           /* as opts->exec (>= 1) */
  int salted;              /* as opts->salted */
  int gate;                /* as opts->gate */
  uint32_t skipped;        /* memory instructions left out (see above) */
  struct ptx_inst_skip *skips; /* each of them, in (function, instruction) order */
};

/* Writes m, instrumented, to out and fills *map (released with ptx_inst_map_release,
 * also on failure). Errors: CC_ERR_USAGE (shards not a power of two up to
 * PTX_INST_MAX_SHARDS), CC_ERR_INPUT (a function already has a parameter named
 * PTX_INST_PARAM or PTX_INST_FUNC_PARAM; a module of 32-bit addresses or a .target
 * below sm_80), CC_ERR_IO (the stream failed). */
int ptx_instrument(cc_keep const struct ptx_module *m, const struct ptx_inst_opts *opts,
                   FILE *out, struct ptx_inst_map *map, struct cc_err *err);

/* Multipliers of ptx_inst_pick's hash (murmur3's finaliser constants). */
#define PTX_INST_PICK_MUL1 0x9e3779b1u
#define PTX_INST_PICK_MUL2 0x85ebca6bu

/* The position (0..sample-1) of the counted CTA in run `run` of CTA sampling: a hash of
 * run mod sample, the one the instrumented prologue computes (0 for sample <= 1). A
 * pseudo-random position per run, not id % sample == 0: a fixed position aliases with
 * grids whose row length sample divides (the Gaussian fan2's x = 0 column was counted in
 * every sampled row: 4x its figures, outside any bound; docs/usage.md, "CTA sampling"). */
uint32_t ptx_inst_pick(uint32_t run, uint32_t sample);

/* Bits of the salt in the counter parameter (opts.salted). */
#define PTX_INST_SALT_BITS 12u

/* ptx_inst_pick of a salted launch: the hash of run ^ (salt x PTX_INST_PICK_MUL2);
 * ptx_inst_pick(r, S) = ptx_inst_pick_salted(r, S, 0). */
uint32_t ptx_inst_pick_salted(uint32_t run, uint32_t sample, uint32_t salt);

/* Site executions of a thread always counted under execution sampling. */
#define PTX_INST_EXEC_HEAD 32u

/* Bytes of one plane of the counter buffer: nsites x shards x PTX_INST_FIELDS x 8. */
uint64_t ptx_inst_plane_bytes(cc_keep const struct ptx_inst_map *map);

/* Bytes of the counter buffer of map: one plane, two under execution sampling (8 for no
 * site, so that a buffer can still be passed). */
uint64_t ptx_inst_counter_bytes(cc_keep const struct ptx_inst_map *map);

/* The counters c (ptx_inst_counter_bytes of map) as one plane (ptx_inst_plane_bytes):
 * under execution sampling E, plane 0 + E x plane 1 for the sums, the larger for the
 * maxima (ways, strides); else a copy. Returns a new array. */
cc_give uint64_t *ptx_inst_fold(cc_keep const struct ptx_inst_map *map, cc_keep const uint64_t *c);

/* Writes into buf (cap bytes, truncated, NUL-terminated) what skip k of map is, for a
 * report's notes: "FILE:LINE: 'PTX TEXT' in FUNCTION (PTX line N): not counted: WHY"
 * (FILE:LINE from the instruction's .loc; "PTX line N" alone without one). */
void ptx_inst_skip_text(cc_keep const struct ptx_module *m,
                        cc_keep const struct ptx_inst_map *map, uint32_t k, char *buf,
                        size_t cap);

/* Frees map's sites and zeroes it; safe on a zeroed map. */
void ptx_inst_map_release(struct ptx_inst_map *map);

#endif
