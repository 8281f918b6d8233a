/* The allocator over the emulator's global memory (own file: programs that never call it
 * need not link the emulator). See launch.h. */
#include "launch/launch.h"

#include "emu/emu.h"

static int emu_alloc(void *ctx, uint64_t bytes, const char *name, uint64_t *dev_addr,
                     void **host, struct cc_err *err)
{
  return cc_emu_alloc(ctx, bytes, name, dev_addr, host, err);
}

struct cc_launch_allocator cc_launch_emu_allocator(struct cc_emu *emu, uint64_t max_bytes)
{
  struct cc_launch_allocator a = {emu, emu_alloc, max_bytes, 0};
  return a;
}
