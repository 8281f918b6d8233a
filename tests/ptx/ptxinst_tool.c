/* coalcheck-ptxinst: the inline counting pass from the command line, for the tests and the
 * GPU measurements (tests/e2e/ptx_instrument.sh, bench/gpu-inline.sh):
 *
 *   coalcheck-ptxinst [-s SHARDS] [-S SAMPLE] IN.ptx OUT.ptx MAP
 *
 * writes IN instrumented (src/ptx/instrument.h) to OUT and the site table to MAP, one
 * line per site: "SITE FUNCTION INSN SPACE KIND SIZE PTX-LINE GENERIC BODY TEXT" (FUNCTION
 * the kernel it counts for, SPACE global|shared|local, KIND load|store|atomic|reduction,
 * PTX-LINE the instruction's line in IN, GENERIC 1 for the three sites of a generic
 * instruction, BODY the function holding it, TEXT the instruction), after a header
 * "shards N sample S skipped K bytes B", then one line per skipped instruction: "skip
 * TEXT" (ptx_inst_skip_text). Exit 0, 2 usage, 3 bad PTX, 7 I/O. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ptx/instrument.h"
#include "ptx/ptx.h"

static int write_map(const struct ptx_module *m, const struct ptx_inst_map *map, FILE *f)
{
  static const char *const kinds[] = {"load", "store", "atomic", "reduction"};
  char text[1024];
  fprintf(f, "shards %" PRIu32 " sample %" PRIu32 " skipped %" PRIu32 " bytes %" PRIu64 "\n",
          map->shards, map->sample, map->skipped, ptx_inst_counter_bytes(map));
  for (uint32_t k = 0; k < map->nsites; k++) {
    const struct ptx_inst_site *s = &map->sites[k];
    const struct ptx_function *fn = &m->funcs[s->func];
    const struct ptx_function *body = &m->funcs[s->body];
    ptx_print_insn(m, body, s->insn, text, sizeof text);
    fprintf(f, "%" PRIu32 " %s %" PRIu32 " %s %s %" PRIu32 " %" PRIu32 " %d %s %s\n", k, fn->name,
            s->insn, s->space == PTX_SPACE_SHARED ? "shared"
                     : s->space == PTX_SPACE_LOCAL ? "local" : "global",
            kinds[s->kind], s->size_bytes, body->insns[s->insn].line, s->generic, body->name,
            text);
  }
  for (uint32_t k = 0; k < map->skipped; k++) {
    ptx_inst_skip_text(m, map, k, text, sizeof text);
    fprintf(f, "skip %s\n", text);
  }
  return ferror(f) ? -1 : 0;
}

int main(int argc, char **argv)
{
  struct ptx_inst_opts o = {0};
  struct ptx_inst_map map = {0};
  struct ptx_module *m = NULL;
  struct cc_err err = {0};
  int c, rc;
  while ((c = getopt(argc, argv, "s:S:E:GT")) != -1) {
    if (c == 's') o.shards = (uint32_t)strtoul(optarg, NULL, 10);
    else if (c == 'S') o.sample = (uint32_t)strtoul(optarg, NULL, 10);
    else if (c == 'E') o.exec = (uint32_t)strtoul(optarg, NULL, 10);
    else if (c == 'G') o.gate = 1;
    else if (c == 'T') o.salted = 1;
    else return 2;
  }
  if (argc - optind != 3) {
    fprintf(stderr, "usage: coalcheck-ptxinst [-s SHARDS] [-S SAMPLE] [-E EXEC] [-G] [-T] IN.ptx OUT.ptx "
                    "MAP\n");
    return 2;
  }
  if ((rc = ptx_parse_file(argv[optind], &m, &err)) != CC_OK) {
    fprintf(stderr, "coalcheck-ptxinst: %s\n", err.msg);
    return rc;
  }
  FILE *out = fopen(argv[optind + 1], "w"), *mf = fopen(argv[optind + 2], "w");
  if (!out || !mf) {
    fprintf(stderr, "coalcheck-ptxinst: cannot write the outputs\n");
    rc = CC_ERR_IO;
  } else if ((rc = ptx_instrument(m, &o, out, &map, &err)) != CC_OK) {
    fprintf(stderr, "coalcheck-ptxinst: %s\n", err.msg);
  } else if (write_map(m, &map, mf) != 0) {
    rc = CC_ERR_IO;
  }
  if (out && fclose(out) != 0) rc = rc ? rc : CC_ERR_IO;
  if (mf && fclose(mf) != 0) rc = rc ? rc : CC_ERR_IO;
  ptx_inst_map_release(&map);
  ptx_module_free(m);
  return rc;
}
