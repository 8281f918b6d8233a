// coalcheck gpu: device callbacks of the Compute Sanitizer patch (no __global__ here).
//
// Built with: nvcc --fatbin --compile-as-tools-patch -gencode arch=compute_90,code=sm_90
// The sanitizer calls these in the user's thread, before the access, warp-convergently:
// __activemask() gives exactly the lanes executing the instruction (GPU-NOTES.md,
// verified on H200). Each warp reduces its access to a handful of numbers on the GPU and
// its leader (lowest active lane) updates the per-(pc, SM) record once (layout.h).
//
// Rules implemented (MODELS.md):
//  - global, sm_90: one request per warp-level instruction; sectors = distinct 32-byte
//    sectors of the active lanes (an aligned access of <= 16 bytes lies in one sector);
//    ideal = ceil(unique bytes / 32), unique bytes = distinct addresses x size.
//  - shared, sm_90: 32 banks x 4 bytes, multicast; 8-byte accesses in 2 phases
//    (half-warps), 16-byte in 4 (quarter-warps); ways = most distinct words in one bank of
//    one phase; wavefronts = sum over phases with active lanes of max(1, ways).
//  - CGO 2015 Algorithm 1: sort the active lanes' addresses, neighbour differences:
//    min, max, sum (= max - min address) and count (lanes - 1).
#include <stdint.h>

#include <sanitizer_patching.h>

#include "layout.h"

#define FULL_MASK 0xffffffffu

static __device__ __forceinline__ uint32_t lane_id(void)
{
  uint32_t r;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(r));
  return r;
}

static __device__ __forceinline__ uint32_t sm_id(void)
{
  uint32_t r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}

// Warp reductions by shuffles (ptxas refuses redux.sync in tools patches). Full warps:
// butterfly over 5 xor steps; partial warps: a walk over the active lanes (every lane
// ends with the result).
struct red4 {
  uint32_t min_a, max_a, min_b, max_b;
};

static __device__ __forceinline__ struct red4 warp_red4(uint32_t mask, struct red4 r)
{
  if (mask == FULL_MASK) {
#pragma unroll
    for (uint32_t j = 16; j > 0; j >>= 1) {
      r.min_a = min(r.min_a, __shfl_xor_sync(FULL_MASK, r.min_a, j));
      r.max_a = max(r.max_a, __shfl_xor_sync(FULL_MASK, r.max_a, j));
      r.min_b = min(r.min_b, __shfl_xor_sync(FULL_MASK, r.min_b, j));
      r.max_b = max(r.max_b, __shfl_xor_sync(FULL_MASK, r.max_b, j));
    }
    return r;
  }
  struct red4 o = r;
  for (uint32_t m = mask; m != 0; m &= m - 1) {
    uint32_t j = __ffs(m) - 1;
    o.min_a = min(o.min_a, __shfl_sync(mask, r.min_a, j));
    o.max_a = max(o.max_a, __shfl_sync(mask, r.max_a, j));
    o.min_b = min(o.min_b, __shfl_sync(mask, r.min_b, j));
    o.max_b = max(o.max_b, __shfl_sync(mask, r.max_b, j));
  }
  return o;
}

static __device__ __forceinline__ uint32_t warp_max(uint32_t mask, uint32_t v)
{
  if (mask == FULL_MASK) {
#pragma unroll
    for (uint32_t j = 16; j > 0; j >>= 1)
      v = max(v, __shfl_xor_sync(FULL_MASK, v, j));
    return v;
  }
  uint32_t o = v;
  for (uint32_t m = mask; m != 0; m &= m - 1)
    o = max(o, __shfl_sync(mask, v, __ffs(m) - 1));
  return o;
}

// Order-preserving 32-bit key of addr relative to the leader's address; warps whose
// addresses span more than +-2 GiB are clamped (their strides saturate).
static __device__ __forceinline__ uint32_t rel_key(uint64_t addr, uint64_t base)
{
  int64_t d = (int64_t)(addr - base);
  if (d > INT32_MAX) d = INT32_MAX;
  if (d < INT32_MIN) d = INT32_MIN;
  return (uint32_t)(int32_t)d ^ 0x80000000u;
}

// Neighbour stride of this lane in the sorted order of keys (Algorithm 1), or has=false
// for the lane holding the largest key. Full warps: 32-lane bitonic sort by shuffles
// (15 compare-exchange steps); partial warps: successor search over the active lanes.
static __device__ __forceinline__ uint32_t sorted_stride(uint32_t mask, uint32_t lane,
                                                         uint32_t key, bool *has)
{
  if (mask == FULL_MASK) {
    uint32_t v = key;
#pragma unroll
    for (uint32_t k = 2; k <= 32; k <<= 1) {
#pragma unroll
      for (uint32_t j = k >> 1; j > 0; j >>= 1) {
        uint32_t o = __shfl_xor_sync(FULL_MASK, v, j);
        bool up = (lane & k) == 0;
        bool low = (lane & j) == 0;
        v = (low == up) ? min(v, o) : max(v, o);
      }
    }
    uint32_t next = __shfl_down_sync(FULL_MASK, v, 1);
    *has = lane < 31;
    return next - v;
  }
  uint32_t best = UINT32_MAX;
  bool found = false;
  for (uint32_t m = mask; m != 0; m &= m - 1) {
    uint32_t j = __ffs(m) - 1;
    uint32_t o = __shfl_sync(mask, key, j);
    bool after = o > key || (o == key && j > lane);
    if (after) {
      found = true;
      best = min(best, o - key);
    }
  }
  *has = found;
  return best;
}

// Shared-memory wavefronts and ways of one request (rule in the file comment).
static __device__ __forceinline__ void bank_conflicts(uint32_t mask, uint32_t lane,
                                                      uint64_t off, uint32_t size,
                                                      uint32_t *waves, uint32_t *ideal,
                                                      uint32_t *ways)
{
  uint32_t unit = size < 4 ? 4 : size;            // bytes one lane occupies in the banks
  uint32_t nphase = size <= 4 ? 1 : size / 4 / 1; // 8 bytes: 2, 16 bytes: 4
  if (nphase > 4) nphase = 4;
  uint32_t phase = lane / (32 / nphase);
  uint64_t word = off / unit;                     // distinct units are distinct word groups
  uint32_t bank = (uint32_t)(word % (128 / unit));
  uint32_t same = __match_any_sync(mask, (word << 2) | phase);
  bool first = (uint32_t)(__ffs(same) - 1) == lane;
  uint32_t key = first ? ((phase << 8) | bank) : (0x10000u + lane);
  uint32_t grp = __match_any_sync(mask, key);
  uint32_t mine = first ? (uint32_t)__popc(grp) : 0;
  uint32_t w = 0, mx = 0, ph = 0;
  for (uint32_t p = 0; p < nphase; p++) {
    uint32_t c = warp_max(mask, phase == p ? mine : 0);
    w += c;
    mx = max(mx, c);
    ph += c != 0;
  }
  *waves = w;
  *ideal = ph;
  *ways = mx;
}

// Result of one warp's reduction, valid in the leader lane.
struct warp_sum {
  uint32_t cnt_hi, cnt_lo; // global: sectors, ideal sectors; shared: wavefronts, ideal
  uint32_t ways;           // shared: worst ways (1 = no conflict)
  uint32_t smin, smax;     // neighbour strides (bytes, saturated to 32 bits)
  uint32_t span;           // largest - smallest address (= sum of neighbour strides)
};

static __device__ __forceinline__ uint32_t sat32(uint64_t v)
{
  return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

// Fast path: a full warp whose addresses do not decrease with the lane id (coalesced,
// strided and transposed-store patterns). Sorted order = lane order, so neighbour strides
// are addr[i] - addr[i-1], distinct sectors/addresses are counted by one ballot each, and
// no match or sort is needed.
static __device__ __forceinline__ void reduce_monotonic(uint32_t lane, uint64_t addr,
                                                        uint64_t prev, uint32_t size,
                                                        uint32_t space, struct warp_sum *w)
{
  bool first = lane == 0;
  uint32_t d = first ? 0 : sat32(addr - prev);
  uint32_t dmin = first ? UINT32_MAX : d, dmax = d;
#pragma unroll
  for (uint32_t j = 16; j > 0; j >>= 1) {
    dmin = min(dmin, __shfl_xor_sync(FULL_MASK, dmin, j));
    dmax = max(dmax, __shfl_xor_sync(FULL_MASK, dmax, j));
  }
  uint64_t last = __shfl_sync(FULL_MASK, addr, 31);
  w->smin = dmin;
  w->smax = dmax;
  w->span = sat32(last - addr); // meaningful in lane 0, the leader
  w->ways = 1;
  if (space == 0) {
    uint32_t sectors = 1 + __popc(__ballot_sync(FULL_MASK, !first && (addr >> 5) != (prev >> 5)));
    uint32_t distinct = 1 + __popc(__ballot_sync(FULL_MASK, !first && addr != prev));
    w->cnt_hi = sectors;
    w->cnt_lo = (distinct * size + 31) / 32;
    return;
  }
  // shared: a phase of L lanes whose bytes lie within 32 consecutive 4-byte words touches
  // each bank at most once (multicast for equal words)
  uint32_t nphase = size <= 4 ? 1 : size / 4;
  uint32_t L = 32 / nphase;
  uint64_t end = __shfl_down_sync(FULL_MASK, addr, L - 1);
  bool ok = lane % L != 0 || ((end + size - 1) >> 2) - (addr >> 2) < 32;
  if (__all_sync(FULL_MASK, ok)) {
    w->cnt_hi = nphase;
    w->cnt_lo = nphase;
    return;
  }
  bank_conflicts(FULL_MASK, lane, addr, size, &w->cnt_hi, &w->cnt_lo, &w->ways);
}

// General path: partial warps or addresses in any order.
static __device__ __forceinline__ void reduce_general(uint32_t mask, uint32_t lane,
                                                      uint32_t leader, uint64_t addr,
                                                      uint32_t size, uint32_t space,
                                                      struct warp_sum *w)
{
  w->ways = 1;
  if (space == 0) {
    uint32_t sg = __match_any_sync(mask, addr >> 5);
    uint32_t sectors = __popc(__ballot_sync(mask, (uint32_t)(__ffs(sg) - 1) == lane));
    uint32_t ag = __match_any_sync(mask, addr);
    uint32_t distinct = __popc(__ballot_sync(mask, (uint32_t)(__ffs(ag) - 1) == lane));
    w->cnt_hi = sectors;
    w->cnt_lo = (distinct * size + 31) / 32;
  } else {
    bank_conflicts(mask, lane, addr, size, &w->cnt_hi, &w->cnt_lo, &w->ways);
  }
  uint64_t base = __shfl_sync(mask, addr, leader);
  uint32_t key = rel_key(addr, base);
  bool has;
  uint32_t s = sorted_stride(mask, lane, key, &has);
  struct red4 r = {has ? s : UINT32_MAX, has ? s : 0, key, key};
  r = warp_red4(mask, r);
  w->smin = r.min_a;
  w->smax = r.max_a;
  w->span = r.max_b - r.min_b;
}

// ---- trace mode (layout.h, "ring of warp records") ----

static __device__ __forceinline__ uint64_t ld_acquire_sys(const uint64_t *p)
{
  uint64_t v;
  asm volatile("ld.acquire.sys.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

// The overflow path: reserves a ring index (leader), waits while the ring is full (the
// host thread drains it while the kernel runs: never a drop), then every active lane
// stores its own address and the leader the rest, seq last behind a system fence.
static __device__ __noinline__ void ring_write(const struct cc_gpu_launch_hdr *h,
                                               uint32_t mask, uint32_t lane, uint32_t leader,
                                               uint32_t slot, uint32_t cta, uint32_t info,
                                               uint64_t addr)
{
  struct cc_gpu_ring_ctl *ctl = (struct cc_gpu_ring_ctl *)h->ring_ctl;
  struct cc_gpu_ring_host *ring = (struct cc_gpu_ring_host *)h->ring;
  uint64_t cap = h->ring_cap, idx = 0;
  if (lane == leader) {
    idx = atomicAdd((unsigned long long *)&ctl->head, 1ull);
    // Full: only the 32 reservations next in line read the host's tail (over the bus);
    // the others poll the limit in device memory. The holder of index `limit` is always
    // among the pollers, so the limit keeps moving (measured on the H200: with every
    // waiter polling the host, a 64-record ring made no progress in 90 s).
    uint32_t ns = 256;
    for (;;) {
      uint64_t lim = *(volatile uint64_t *)&ctl->limit;
      if (idx < lim)
        break;
      if (idx - lim < 32) {
        uint64_t tail = ld_acquire_sys(&ring->tail);
        if (idx < tail + cap) {
          atomicMax((unsigned long long *)&ctl->limit, (unsigned long long)(tail + cap));
          break;
        }
      }
      __nanosleep(ns);
      ns = ns < 8192 ? ns * 2 : ns;
    }
  }
  idx = __shfl_sync(mask, idx, leader);
  struct cc_gpu_trace_rec *r = &ring->recs[idx & (cap - 1)];
  r->addr[lane] = addr;
  __threadfence_system();
  __syncwarp(mask);
  if (lane != leader)
    return;
  r->launch = h->launch;
  r->slot = slot;
  r->cta = cta;
  r->active = mask;
  r->info = info;
  __threadfence_system();
  *(volatile uint32_t *)&r->seq = (uint32_t)(idx + 1);
}

// Lane-affine test (layout.h, struct cc_gpu_wrec): every active lane l accessed
// base + l * stride with a 32-bit stride. The stride comes from the first two active
// lanes; the other lanes check themselves against it.
static __device__ __forceinline__ bool lane_affine(uint32_t mask, uint32_t lane,
                                                   uint32_t leader, uint64_t addr,
                                                   uint64_t *base, int32_t *stride)
{
  uint64_t a0 = __shfl_sync(mask, addr, leader);
  int64_t s = 0;
  bool fits = true;
  uint32_t rest = mask & (mask - 1);
  if (rest != 0) {
    uint32_t l1 = __ffs(rest) - 1;
    int64_t d = (int64_t)(__shfl_sync(mask, addr, l1) - a0), dl = (int64_t)(l1 - leader);
    s = d / dl;
    fits = s * dl == d && s >= INT32_MIN && s <= INT32_MAX;
  }
  bool ok = fits && addr == a0 + (uint64_t)(s * ((int64_t)lane - (int64_t)leader));
  *base = a0 - (uint64_t)(s * (int64_t)leader);
  *stride = (int32_t)s;
  return __all_sync(mask, ok);
}

// The fast path: the record into this SM group's segment of the device buffer (layout.h).
// Returns false when it does not fit (the caller then uses the ring).
static __device__ __forceinline__ bool tbuf_write(const struct cc_gpu_launch_hdr *h,
                                                  uint32_t mask, uint32_t lane,
                                                  uint32_t leader, uint32_t slot,
                                                  uint32_t cta, uint32_t info, uint64_t addr)
{
  uint64_t base;
  int32_t stride;
  bool affine = lane_affine(mask, lane, leader, addr, &base, &stride);
  uint32_t bytes = affine ? 32u : 32u + 8u * (uint32_t)__popc(mask);
  uint64_t seg = sm_id() % h->tbuf_segs, segb = h->tbuf_seg_bytes, off = 0;
  if (lane == leader) {
    struct cc_gpu_tbuf_seg *c = (struct cc_gpu_tbuf_seg *)h->tbuf_ctl + seg;
    off = atomicAdd((unsigned long long *)&c->head, (unsigned long long)bytes);
    if (off < segb && off + bytes > segb)
      c->end = off; // the one reservation that straddles the end
  }
  off = __shfl_sync(mask, off, leader);
  if (off + bytes > segb)
    return false;
  char *rec = (char *)h->tbuf + seg * segb + off;
  if (!affine)
    ((uint64_t *)(rec + 32))[__popc(mask & ((1u << lane) - 1u))] = addr;
  if (lane == leader) {
    uint4 *q = (uint4 *)rec;
    q[0] = make_uint4(affine ? info : info | CC_GPU_WREC_EXPLICIT, h->launch, slot, cta);
    q[1] = make_uint4(mask, (uint32_t)stride, (uint32_t)base, (uint32_t)(base >> 32));
  }
  return true;
}

// One warp access into the trace: shared addresses as offsets in the CTA's window (local
// ones come as offsets already, see record), the device buffer first, the ring when full.
static __device__ __noinline__ void trace_put(const struct cc_gpu_launch_hdr *h,
                                              uint32_t mask, uint32_t lane, uint32_t leader,
                                              uint64_t pc, uint64_t addr, uint32_t size,
                                              uint32_t flags, uint32_t space)
{
  if (space == 1 && __isShared((const void *)addr))
    addr = (uint64_t)__cvta_generic_to_shared((const void *)addr);
  uint64_t off = pc - h->base_pc;
  uint32_t slot = off < (uint64_t)h->n_slots * CC_GPU_INSN_BYTES
                      ? (uint32_t)(off / CC_GPU_INSN_BYTES) : h->n_slots;
  uint32_t warp = (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) / 32;
  uint32_t cta = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  uint32_t info = size | (space << 8) | (flags << 16) | (warp << 24);
  if (h->tbuf_segs != 0 && tbuf_write(h, mask, lane, leader, slot, cta, info, addr))
    return;
  ring_write(h, mask, lane, leader, slot, cta, info, addr);
}

static __device__ __forceinline__ void record(void *ud, uint64_t pc, uint64_t addr,
                                              uint32_t size, uint32_t flags, uint32_t space)
{
  const struct cc_gpu_launch_hdr *h = (const struct cc_gpu_launch_hdr *)ud;
  if (h == 0 || !h->enabled)
    return;
  // CTA sampling: the whole warp belongs to one CTA, so it leaves together
  if (h->sample > 1 &&
      (blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z)) % h->sample != 0)
    return;
  uint32_t mask = __activemask();
  uint32_t lane = lane_id();
  uint32_t leader = __ffs(mask) - 1;
  uint32_t nact = __popc(mask);
  // local: the offset in the thread's window (what the trace keeps, as the emulator
  // records it), reduced like a global access at its place in the interleaved layout
  // (src/model: 32-bit word w of lane l at w * 128 + l * 4): sectors and strides. Wider
  // than 4 bytes: one 4-byte request per word, word j 128 * j bytes further in every
  // lane, so each word has word 0's sectors (Nsight Compute on the H200: an 8-byte
  // LDL/STL is 2 requests)
  uint64_t raddr = addr;
  uint32_t rsize = size, words = 1;
  if (space == 2) {
    if (__isLocal((const void *)addr))
      addr = (uint64_t)__cvta_generic_to_local((const void *)addr);
    raddr = (addr / 4) * 128u + lane * 4u + addr % 4;
    words = size > 4 ? size / 4 : 1;
    rsize = size > 4 ? 4 : size;
  }
  uint32_t rspace = space == 2 ? 0 : space;

  struct warp_sum w;
  bool mono = false;
  uint64_t prev = 0;
  if (mask == FULL_MASK) {
    prev = __shfl_up_sync(FULL_MASK, raddr, 1);
    mono = __all_sync(FULL_MASK, lane == 0 || raddr >= prev);
  }
  if (mono)
    reduce_monotonic(lane, raddr, prev, rsize, rspace, &w);
  else
    reduce_general(mask, lane, leader, raddr, rsize, rspace, &w);
  w.cnt_hi *= words;
  w.cnt_lo *= words;

  if (h->ring != 0)
    trace_put(h, mask, lane, leader, pc, addr, size, flags, space);
  if (lane != leader || (h->mode & CC_GPU_MODE_NO_ATOMICS))
    return;
  uint64_t off = pc - h->base_pc;
  uint32_t slot = off < (uint64_t)h->n_slots * CC_GPU_INSN_BYTES
                      ? (uint32_t)(off / CC_GPU_INSN_BYTES) : h->n_slots;
  unsigned long long *c = (unsigned long long *)h->counters +
      ((uint64_t)slot * h->n_shards + sm_id() % h->n_shards) * CC_GPU_FIELDS;
  // non-returning atomics (RED): the warp does not wait for them
  atomicAdd(c + CC_GPU_F_REQ_LANES, ((unsigned long long)words << 32) | nact);
  atomicAdd(c + CC_GPU_F_SECT_IDEAL, ((unsigned long long)w.cnt_hi << 32) | w.cnt_lo);
  if (nact > 1) {
    atomicAdd(c + CC_GPU_F_STRSUM, (unsigned long long)w.span);
    atomicMax(c + CC_GPU_F_STRMIN_INV, ~0ull - w.smin);
    atomicMax(c + CC_GPU_F_STRMAX, (unsigned long long)w.smax);
  }
  if (w.ways > 1)
    atomicMax(c + CC_GPU_F_WAYS, (unsigned long long)w.ways);
  if (h->mode & CC_GPU_MODE_NO_BITS)
    return;
  // The flag bits and the touched bit are set by the first warps; later warps see them in
  // their L1 (a cached load; L1 holds no global data across launches, so a stale "set"
  // cannot outlive the flush, and a stale "unset" only costs one more atomic). The touched
  // word is shared by every SM: without this check it is the one hot address.
  unsigned long long fl = (unsigned long long)flags | (1ull << (CC_GPU_FL_SPACE_SHIFT + space)) |
                          (1ull << (CC_GPU_FL_SIZE_SHIFT + __ffs(size) - 1));
  if ((__ldca(c + CC_GPU_F_FLAGS) & fl) != fl)
    atomicOr(c + CC_GPU_F_FLAGS, fl);
  unsigned int *t = (unsigned int *)h->touched + slot / 32;
  unsigned int bit = 1u << (slot % 32);
  if ((__ldca(t) & bit) == 0)
    atomicOr(t, bit);
}

static __device__ __forceinline__ uint32_t access_flags(uint32_t flags, const void *pData)
{
  uint32_t f = flags & (CC_GPU_FL_READ | CC_GPU_FL_WRITE);
  if ((flags & CC_GPU_FL_WRITE) && pData == 0)
    f |= CC_GPU_FL_ATOMIC;
  return f;
}

extern "C" __device__ __noinline__ SanitizerPatchResult
cc_gpu_cb_global(void *userdata, uint64_t pc, void *ptr, uint32_t accessSize, uint32_t flags,
                 const void *pData)
{
  record(userdata, pc, (uint64_t)ptr, accessSize, access_flags(flags, pData), 0);
  return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult
cc_gpu_cb_shared(void *userdata, uint64_t pc, void *ptr, uint32_t accessSize, uint32_t flags,
                 const void *pData)
{
  record(userdata, pc, (uint64_t)ptr, accessSize, access_flags(flags, pData), 1);
  return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult
cc_gpu_cb_local(void *userdata, uint64_t pc, void *ptr, uint32_t accessSize, uint32_t flags,
                const void *pData)
{
  record(userdata, pc, (uint64_t)ptr, accessSize, access_flags(flags, pData), 2);
  return SANITIZER_PATCH_SUCCESS;
}
