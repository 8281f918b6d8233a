/* coalcheck: the trace file (.cctrace) and the fan-out sink.
 *
 * A trace file is a recorded access stream (access.h): the kernel tables and every warp
 * record, so that `coalcheck report FILE --arch cc1.0,cc1.2,sm_90` can re-analyse a run
 * under several memory models without re-running the kernel (Rosen, EuroVis 2013: one
 * emulator trace, coalescing and bank conflicts simulated per architecture).
 *
 * The writer IS a sink: a producer (emulator, GPU backend) streams into it, memory stays
 * bounded by one block whatever the run length. Records are delta-encoded against the
 * previous record of the same instruction (most warps are affine: "base + lane*stride"),
 * grouped into blocks, each block compressed with zstd on its own and protected by a
 * CRC-32. The reader replays a file into any sink, one block in memory at a time, and
 * reports a corrupt, truncated or foreign file as CC_ERR_INPUT with the offset; it never
 * crashes on bad input. The byte-by-byte format: docs/trace-format.md. */
#ifndef CC_ACCESS_TRACE_H
#define CC_ACCESS_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "access/access.h"
#include "util/err.h"

/* Format version written by this code; readers accept any minor of the same major. */
#define CC_TRACE_VERSION_MAJOR 1
#define CC_TRACE_VERSION_MINOR 0

/* Default uncompressed bytes per block (the writer flushes a block once it holds this
 * much), and the hard limit on one block's uncompressed size (a reader refuses larger). */
#define CC_TRACE_BLOCK_BYTES (1u << 20)
#define CC_TRACE_BLOCK_MAX (64u << 20)

/* The most memory instructions a kernel table may have (writer: CC_ERR_LIMIT; reader:
 * corrupt): a bound on the reader's and the consumers' tables that does not depend on
 * how far a small compressed block expands. Real kernels have hundreds to a few
 * thousand. */
#define CC_TRACE_INSNS_MAX 65536u
#define CC_TRACE_INSNS_MAX_TEXT "65536"

/* What the writer stores in the file header. All fields may be NULL / 0. */
struct cc_trace_writer_opts {
  const char *tool_version; /* e.g. "coalcheck 0.1.0"; NULL: "coalcheck" */
  const char *command_line; /* the recording command line, as one string; NULL: "" */
  const char *created;      /* creation date, ISO 8601 UTC; NULL: now */
  int zstd_level;           /* zstd compression level; 0: 3 (zstd's default) */
  size_t block_bytes;       /* uncompressed bytes per block; 0: CC_TRACE_BLOCK_BYTES; at
                               most CC_TRACE_BLOCK_MAX / 2 */
  const char *const *inputs; /* the files the recording reads (may be NULL): the trace
                                must not replace one (cc_outfile_check_inputs) */
  size_t n_inputs;
};

struct cc_trace_writer; /* opaque */

/* Opens a trace writer on path and fills *sink with the sink that records into it (its
 * ctx is *out). The path is written as util/fileio.h's cc_outfile says: a regular file
 * (or a symbolic link's target) whole or not at all (to TARGET.tmp.PID, renamed at
 * cc_trace_writer_close); a pipe, a device such as /dev/null, /dev/stdout and "-"
 * (stdout) in place. The file header is written here.
 * Sink callbacks return CC_ERR_IO when the file cannot be written, CC_ERR_LIMIT for a
 * kernel table over CC_TRACE_INSNS_MAX instructions or CC_TRACE_BLOCK_MAX encoded bytes,
 * and CC_ERR_INTERNAL for a producer
 * that breaks the stream protocol (access outside a kernel, insn_slot out of range, kind
 * or space out of range, nested begin_kernel); after a failed callback every callback
 * returns the same status, and only close or abort are useful.
 * Errors: CC_ERR_IO ("cannot write PATH: reason"), CC_ERR_USAGE for a bad opts field or
 * a path that is one of opts->inputs. On failure nothing is left on disk and *out is
 * NULL. */
int cc_trace_writer_open(const char *path, const struct cc_trace_writer_opts *opts,
                         cc_give struct cc_trace_writer **out, struct cc_access_sink *sink,
                         struct cc_err *err);

/* Writes the last block and the end marker, then moves the file into place; frees w in
 * every case. Errors: CC_ERR_IO (disk full, ...; the file is removed), CC_ERR_INTERNAL
 * when a kernel is still open (begin_kernel without end_kernel; the file is removed), or
 * the status of an earlier failed callback (the file is removed). */
int cc_trace_writer_close(cc_take struct cc_trace_writer *w, struct cc_err *err);

/* Discards the recording (removes the temporary file) and frees w. NULL is allowed. */
void cc_trace_writer_abort(cc_take struct cc_trace_writer *w);

/* Totals of a writer so far (records, blocks, bytes), for `record`'s summary line. */
struct cc_trace_stats {
  uint64_t kernels;     /* begin_kernel events */
  uint64_t records;     /* warp access records */
  uint64_t blocks;      /* data blocks (written, or read) */
  uint64_t raw_bytes;   /* uncompressed encoded bytes of all data blocks */
  uint64_t file_bytes;  /* bytes of the file: header, blocks and end marker once closed */
};
/* Copies w's totals so far into *out (w borrowed, not NULL); never fails. */
void cc_trace_writer_stats(const struct cc_trace_writer *w, struct cc_trace_stats *out);

/* The header and totals of a trace file, as cc_trace_replay found them. Strings are owned
 * by the struct: free them with cc_trace_info_release. */
struct cc_trace_info {
  uint32_t version_major, version_minor;
  char *tool_version;
  char *created;
  char *command_line;
  struct cc_trace_stats stats; /* as recorded in the end marker (equal to what was read) */
};
/* Frees info's strings and zeroes it (the struct itself is the caller's). */
void cc_trace_info_release(struct cc_trace_info *info);

/* Streams the trace file at path into sink: begin_kernel, access..., end_kernel, per
 * kernel, in recording order. Memory: one block (and one kernel table), never the file.
 * The kernel table and its strings passed to begin_kernel live until end_kernel returns.
 * In each record, addresses of inactive lanes are 0. If info is not NULL it is filled
 * (release it with cc_trace_info_release, on success only; on failure it holds nothing).
 * Records are delivered before later blocks are checked: on a corrupt or truncated file
 * the sink may already have seen the records before the bad block.
 * Errors: CC_ERR_INPUT for an unreadable, foreign, corrupt or truncated file, with the
 * path, the block number (1 = first block) and the byte offset in the message, e.g.
 * "t.cctrace: block 12 at offset 81234 is corrupt (checksum mismatch)"; a sink callback's
 * non-zero status is returned as is, its message prefixed with where the event was
 * ("t.cctrace: block 1 at offset 67: ..."). */
int cc_trace_replay(const char *path, const struct cc_access_sink *sink,
                    struct cc_trace_info *info, struct cc_err *err);

/* Fan-out: one stream to n sinks, called in order. The first callback returning non-zero
 * stops the fan-out and its status is returned (later sinks do not see that event).
 * tee and the sinks array are borrowed for the life of the returned sink. */
struct cc_access_tee {
  const struct cc_access_sink *sinks;
  size_t n;
};
/* A sink whose callbacks fan each event out to tee->sinks[0..n-1]; never fails. */
struct cc_access_sink cc_access_tee(cc_keep const struct cc_access_tee *tee);

/* CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320, as zlib's crc32) of n bytes,
 * continuing from crc (0 to start). Used for the block checksums; exported for tests. */
uint32_t cc_trace_crc32(uint32_t crc, const void *data, size_t n);

#endif
