/* coalcheck gpu: the device-side counter layout, shared by the device patch (patch.cu,
 * CUDA C++) and the host (C11). Plain C, no CUDA types.
 *
 * One table per kernel function (CUfunction), allocated with sanitizerAlloc at its first
 * profiled launch and zeroed after every flush:
 *
 *   struct cc_gpu_launch_hdr  (the callback's userdata)
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
};

#endif
