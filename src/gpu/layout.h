/* coalcheck gpu: the device-side counter layout, shared by the device patch (patch.cu,
 * CUDA C++) and the host (C11). Plain C, no CUDA types.
 *
 * One table per kernel function (CUfunction), allocated with sanitizerAlloc at its first
 * profiled launch and zeroed after every flush:
 *
 *   struct cc_gpu_launch_hdr  (the callback's userdata; CC_GPU_HDR_BYTES reserved)
 *   uint64_t counters[n_slots + 1][n_shards][CC_GPU_FIELDS]
 *   uint32_t touched[(n_slots + 1 + 31) / 32]
 *
 * slot = (pc - base_pc) / 16 (sm_70+ instructions are 16 bytes); the extra last slot
 * collects accesses whose pc lies outside the kernel (non-inlined device functions).
 * shard = %smid % n_shards: warps of one SM update their own copy, so the leader-only
 * atomics of different SMs never meet on one address (GPU-NOTES.md: 58x with one shared
 * counter, 6.5x sharded by SM). The host sums the shards of the slots flagged in touched.
 *
 * Two counts share one 64-bit word where each per-request increment is tiny (<= 32):
 * hi 32 bits and lo 32 bits are added by one atomic. The lo half (<= 32 per request)
 * cannot carry into the hi half while one shard of one slot sees fewer than 2^27 requests
 * between two flushes; the host flushes after every profiled launch. */
#ifndef CC_GPU_LAYOUT_H
#define CC_GPU_LAYOUT_H

#include <stdint.h>

#define CC_GPU_INSN_BYTES 16u   /* SASS instruction size on sm_70 .. sm_90 */
#define CC_GPU_DEFAULT_SHARDS 132u /* SMs of an H100 SXM / H200 */

/* fields of one (slot, shard) record; bytes requested (lanes x size) and the stride
 * count (lanes - requests: each request adds lanes - 1 strides) follow on the host */
enum cc_gpu_field {
  CC_GPU_F_REQ_LANES = 0,  /* hi: requests (warp-level executions), lo: active lanes */
  CC_GPU_F_SECT_IDEAL,     /* global: hi sectors, lo ideal sectors;
                              shared/local: hi wavefronts, lo ideal wavefronts */
  CC_GPU_F_STRSUM,         /* sum of neighbour strides (bytes) */
  CC_GPU_F_STRMIN_INV,     /* UINT64_MAX - min stride (atomicMax; 0 = none yet) */
  CC_GPU_F_STRMAX,         /* max stride (bytes) */
  CC_GPU_F_WAYS,           /* shared: max bank-conflict ways of one request */
  CC_GPU_F_FLAGS,          /* CC_GPU_FL_* bits, or-ed */
  CC_GPU_FIELDS
};

/* flag bits of CC_GPU_F_FLAGS */
#define CC_GPU_FL_READ 0x1u        /* SANITIZER_MEMORY_DEVICE_FLAG_READ */
#define CC_GPU_FL_WRITE 0x2u       /* SANITIZER_MEMORY_DEVICE_FLAG_WRITE */
#define CC_GPU_FL_ATOMIC 0x20u     /* write whose pData is NULL: an atomic (sanitizer_patching.h) */
#define CC_GPU_FL_SPACE_SHIFT 8    /* bit 8 + enum cc_space: space seen */
#define CC_GPU_FL_SIZE_SHIFT 16    /* bit 16 + log2(size): access size seen (1..16 bytes) */

/* mode bits: CC_GPU_MODE_NO_ATOMICS reduces each warp but updates no counter (to measure
 * what the reduction alone costs; COALCHECK_GPU_DIAG=noatomics) */
#define CC_GPU_MODE_NO_ATOMICS 0x1u
/* CC_GPU_MODE_NO_BITS skips the flag and touched-bit updates (COALCHECK_GPU_DIAG=nobits;
 * timing only: the report then misses those slots) */
#define CC_GPU_MODE_NO_BITS 0x2u

/* The userdata the device callbacks receive (device memory). */
struct cc_gpu_launch_hdr {
  uint64_t base_pc;  /* absolute pc of the kernel's first instruction */
  uint64_t counters; /* device address of counters[][][] */
  uint64_t touched;  /* device address of touched[] */
  uint32_t n_slots;  /* kernel size / 16 (the overflow slot n_slots comes on top) */
  uint32_t n_shards; /* >= 1 */
  uint32_t enabled;  /* 0: the callbacks return at once (launch filtered out) */
  uint32_t mode;     /* CC_GPU_MODE_* bits (diagnostics) */
  /* trace mode (COALCHECK_GPU_TRACE) and CTA sampling; zero: in-situ counters only */
  uint64_t ring;     /* host-mapped pinned ring (struct cc_gpu_ring_host), 0: no trace */
  uint64_t ring_ctl; /* device address of struct cc_gpu_ring_ctl */
  uint32_t ring_cap; /* records in the ring, a power of two */
  uint32_t launch;   /* launch number of the launch in progress (rewritten per launch) */
  uint32_t sample;   /* CTA sampling: only CTAs whose linear id % sample == 0 (0, 1: all) */
  uint32_t tbuf_segs; /* trace buffer: segments (>= 1; 0: no buffer, the ring only) */
  uint64_t tbuf;     /* device address of the trace buffer (tbuf_segs x tbuf_seg_bytes) */
  uint64_t tbuf_ctl; /* device address of struct cc_gpu_tbuf_seg[tbuf_segs] */
  uint64_t tbuf_seg_bytes; /* bytes per segment, a multiple of 8 */
};

/* Bytes reserved for the header before the counters (sizeof(cc_gpu_launch_hdr) <= this). */
#define CC_GPU_HDR_BYTES 128u

/* ---- trace mode: the device buffer of warp records (the fast path) ----
 * Warp records (struct cc_gpu_wrec, below) go first into a buffer in device memory, cut
 * into tbuf_segs segments; a warp on SM k writes into segment k % tbuf_segs, so the
 * reservation atomics of different SM groups never meet. The leader reserves bytes with
 * off = atomicAdd(seg.head, bytes); the record fits when off + bytes <= tbuf_seg_bytes;
 * the one reservation that straddles the end stores seg.end = off. After the launch
 * (stream synchronized) the host copies min(head, end, tbuf_seg_bytes) bytes of every
 * segment, whole records only, and resets head = 0, end = tbuf_seg_bytes. A warp whose
 * record does not fit writes it into the ring below instead (the device then waits for
 * the host when the ring is full: never a drop). Measured reason (H200, 2026-11-22): the
 * ring alone, 320 B per warp access over the bus, ran at 2.3 GB/s = 532x native on the
 * naive transpose; device memory and compact records remove both limits. */
#define CC_GPU_TBUF_SEGS 16u /* segments: 8 or 9 SMs of an H100/H200 share one */

struct cc_gpu_tbuf_seg {
  uint64_t head;     /* bytes reserved (may run past the segment) */
  uint64_t end;      /* offset of the first reservation that did not fit */
};

/* One warp access in the trace (device buffer, spool, .ccgpu file): 32 bytes, then,
 * when CC_GPU_WREC_EXPLICIT is set, popcount(active) 8-byte addresses in lane order.
 * Otherwise the access is lane-affine: active lane l accessed base + l * stride (modulo
 * 2^64), which covers coalesced, strided and transposed warps (the common case: 32 bytes
 * instead of 288). Shared and local addresses are offsets in the CTA's / thread's window. */
struct cc_gpu_wrec {
  uint32_t info;     /* bits 0-7 size in bytes, 8-9 space (enum cc_space), 10 explicit
                        addresses follow, 16-23 flags (CC_GPU_FL_READ / _WRITE / _ATOMIC),
                        24-31 warp index in the CTA (linear thread id / 32) */
  uint32_t launch;   /* cc_gpu_launch_hdr.launch of the launch that made it */
  uint32_t slot;     /* (pc - base_pc) / 16; n_slots for a pc outside the kernel */
  uint32_t cta;      /* linear CTA id: x + gx * (y + gy * z) */
  uint32_t active;   /* __activemask() of the access, never 0 */
  int32_t stride;    /* affine form: bytes from lane l to lane l + 1 */
  uint64_t base;     /* affine form: the address lane 0 would access */
};

#define CC_GPU_WREC_EXPLICIT 0x400u
#define CC_GPU_WREC_WARP(i) ((i) >> 24)
/* bytes of a record with this info and active mask */
#define CC_GPU_WREC_BYTES(info, active)                                                   \
  (32u + (((info) & CC_GPU_WREC_EXPLICIT) ? 8u * (uint32_t)__builtin_popcount(active) : 0u))

/* ---- trace mode: ring of warp records (the overflow path) ----
 * The ring lives in pinned host memory (sanitizerAllocHost; with unified addressing the
 * same pointer is valid on the device), so a host thread reads it while the kernel runs
 * without any stream operation (a device-to-host copy on the kernel's stream would wait
 * for the kernel: a full ring would deadlock). Only the reservation counter is in device
 * memory: device-scope atomics, never a PCIe atomic.
 * Protocol: the warp's leader reserves index i = atomicAdd(ctl.head, 1); while i >=
 * ctl.limit it re-reads the host's tail (ld.acquire.sys) and raises ctl.limit to
 * tail + cap (spinning with __nanosleep while the ring is full: never a drop); each active
 * lane stores its address into recs[i % cap].addr[lane], fences (system), the leader
 * fills the rest and stores seq = (uint32_t)(i + 1) last. The host consumes recs[tail %
 * cap] once its seq equals (uint32_t)(tail + 1), then publishes tail + 1. */
struct cc_gpu_ring_ctl {
  uint64_t head;     /* records reserved so far (device atomics) */
  uint64_t limit;    /* reservations below this index may write without reading tail */
};

/* One warp access as the device writes it into the ring (320 bytes: 64 of header, 256 of
 * addresses); the host turns it into a struct cc_gpu_wrec. */
struct cc_gpu_trace_rec {
  uint32_t seq;      /* (ring index + 1) mod 2^32, stored last: the record is complete */
  uint32_t launch;   /* cc_gpu_launch_hdr.launch of the launch that made it */
  uint32_t slot;     /* (pc - base_pc) / 16; n_slots for a pc outside the kernel */
  uint32_t cta;      /* linear CTA id, as in struct cc_gpu_wrec */
  uint32_t active;   /* __activemask() of the access */
  uint32_t info;     /* struct cc_gpu_wrec's info (warp index included), never explicit */
  uint32_t pad_[10];
  uint64_t addr[32]; /* per lane, valid where active; shared: offset in the window */
};

#define CC_GPU_REC_SIZE(i) ((i) & 0xffu)
#define CC_GPU_REC_SPACE(i) (((i) >> 8) & 0x3u)
#define CC_GPU_REC_FLAGS(i) (((i) >> 16) & 0xffu)

/* The host side of the ring (pinned host memory): tail first, alone in its 128 bytes
 * (the device reads it when the ring looks full), then cap records. */
struct cc_gpu_ring_host {
  uint64_t tail;     /* records consumed by the host */
  uint64_t pad_[15];
  struct cc_gpu_trace_rec recs[]; /* ring_cap records */
};

#endif
