/* Inlining chains of the .loc line table: where an instruction inlined from a CUDA header
 * is called in the user's source. See cli_impl.h. */
#include "cli/cli_impl.h"

#include <string.h>

#define MAX_DEPTH 64 /* inlining depth followed at most (a cycle guard) */

/* The file of the kernel's own source: that of its first .loc without inlined_at (the
 * kernel body); 0 when there is none. */
static uint32_t own_file(const struct ptx_function *f)
{
  for (uint32_t i = 0; i < f->nlocs; i++)
    if (f->locs[i].inl_file == 0)
      return f->locs[i].file;
  return 0;
}

/* The latest .loc before position `before` of f->locs that names file:line:column, or -1:
 * an inlined_at names a location that appeared in an earlier .loc (ptx.h). */
static int64_t find_loc(const struct ptx_function *f, uint32_t before, uint32_t file,
                        uint32_t line, uint32_t column)
{
  for (uint32_t i = before; i-- > 0;) {
    const struct ptx_loc *l = &f->locs[i];
    if (l->file == file && l->line == line && l->column == column)
      return i;
  }
  return -1;
}

void cc_cli_resolve_inlined(const struct ptx_module *m, const struct ptx_function *f,
                            struct cc_insn_info *insns, uint32_t n)
{
  uint32_t own = own_file(f);
  if (!own)
    return;
  for (uint32_t i = 0; i < n; i++) {
    struct cc_insn_info *in = &insns[i];
    const struct ptx_loc *l;
    uint32_t pos, file, line, column;
    int64_t at;
    if (in->id >= f->ninsns || f->insns[in->id].loc < 0)
      continue;
    pos = (uint32_t)f->insns[in->id].loc;
    l = &f->locs[pos];
    /* only the kernel's own instructions (a called .func numbers its own), inlined, from
     * another file: the .loc as the emulator saw it */
    if (l->inl_file == 0 || l->file == own || l->line != in->line)
      continue;
    file = l->inl_file, line = l->inl_line, column = l->inl_column;
    for (int depth = 0; depth < MAX_DEPTH && file != own; depth++) {
      if ((at = find_loc(f, pos, file, line, column)) < 0 || f->locs[at].inl_file == 0)
        break; /* the outermost location known */
      pos = (uint32_t)at;
      file = f->locs[pos].inl_file, line = f->locs[pos].inl_line;
      column = f->locs[pos].inl_column;
    }
    in->inlined_file = ptx_file_path(m, file);
    in->inlined_line = line;
  }
}
