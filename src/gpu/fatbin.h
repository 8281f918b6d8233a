/* coalcheck GPU backend: reading the fatbins that CUDA applications hand to the driver
 * (issue 14, application mode with inline counters).
 *
 * nvcc embeds each translation unit's device code as a fatbin; cudart passes it (or the
 * wrapper __fatBinC_Wrapper_t that points to it) to cuModuleLoadData / cuLibraryLoadData.
 * Layout (little-endian; no public specification: read from nvcc 13's output,
 * tests/gpu/test_fatbin.c holds hexdumps of it):
 *
 *   wrapper  u32 magic 0x466243B1, u32 version, u64 pointer to the fatbin, u64 pointer
 *   fatbin   u32 magic 0xBA55ED50, u16 version, u16 header bytes (16), u64 bytes of the
 *            entries that follow the header
 *   entry    +0 u16 kind (1 PTX, 2 ELF), +4 u32 header bytes (64 ELF, 80 PTX),
 *            +8 u64 payload bytes (padded), +16 u32 compressed bytes (0: not compressed),
 *            +24 u16 minor and +26 u16 major (the PTX ISA version), +28 u32 arch (90 for
 *            sm_90 / compute_90), +40 u64 flags (0x8000: ZSTD payload; 0x2000: LZ4, older
 *            toolkits), +56 u64 decompressed bytes (in headers of 64 bytes or more);
 *            the payload follows the header, the next entry the payload. */
#ifndef CC_GPU_FATBIN_H
#define CC_GPU_FATBIN_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"
#include "util/mem.h"

#define CC_FATBIN_MAGIC 0xBA55ED50u
#define CC_FATBIN_WRAPPER_MAGIC 0x466243B1u
#define CC_FATBIN_F_ZSTD 0x8000u
#define CC_FATBIN_F_LZ4 0x2000u

enum cc_fatbin_kind { CC_FATBIN_PTX = 1, CC_FATBIN_ELF = 2 };

/* One entry of a fatbin; payload points into the fatbin (borrowed). */
struct cc_fatbin_entry {
  uint16_t kind;           /* enum cc_fatbin_kind, or another value (skipped by users) */
  uint16_t major, minor;   /* PTX ISA version of a PTX entry */
  uint32_t arch;           /* 90 for sm_90 / compute_90 */
  uint64_t flags;          /* CC_FATBIN_F_* among others */
  const uint8_t *payload;  /* the stored bytes (compressed when flags say so) */
  uint64_t stored;         /* bytes of payload to read: the compressed size, or the padded
                              payload size when not compressed */
  uint64_t plain;          /* decompressed bytes, or stored when not compressed */
};

/* The fatbin image points at: image itself when it starts with CC_FATBIN_MAGIC, the
 * fatbin a wrapper (CC_FATBIN_WRAPPER_MAGIC) points to, or NULL (a cubin, PTX text or
 * anything else). *bytes gets the fatbin's size from its header (header + entries). The
 * caller vouches that image is readable for that long (the driver's contract). */
const uint8_t *cc_fatbin_find(const void *image, uint64_t *bytes);

/* The entries of the fatbin fb of `bytes` bytes (cc_fatbin_find) into *out (freed by the
 * caller with free) and *n. Errors: CC_ERR_INPUT (bad magic, an entry header or payload
 * running past the end, an entry header below 32 bytes). */
int cc_fatbin_entries(const uint8_t *fb, uint64_t bytes, cc_give struct cc_fatbin_entry **out,
                      size_t *n, struct cc_err *err);

/* The PTX entry of the highest arch <= device_arch (90 for sm_90) among e[0..n-1], or
 * NULL when none: the one the driver would JIT for this device (CUDA C Programming Guide,
 * "Application Compatibility": PTX of a lower compute capability runs on higher ones). */
const struct cc_fatbin_entry *cc_fatbin_best_ptx(const struct cc_fatbin_entry *e, size_t n,
                                                 uint32_t device_arch);

/* The text of PTX entry e, decompressed when flagged ZSTD, NUL-terminated and cut at its
 * first NUL (payloads are padded with zeros); *len its length. Errors: CC_ERR_INPUT
 * (ZSTD failure, a size mismatch), CC_ERR_TOOL (LZ4: not supported). */
int cc_fatbin_ptx_text(const struct cc_fatbin_entry *e, cc_give char **text, size_t *len,
                       struct cc_err *err);

#endif
