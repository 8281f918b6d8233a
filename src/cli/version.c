/* `coalcheck --version`: the version, the git revision and what the build includes. The
 * facts come from CMake (cmake/buildinfo.cmake writes cc_build_info.c into the build
 * folder at every build: the revision follows new commits without a new configure). */
#include "cli/cli.h"
#include "cli/cli_impl.h"

static const char *included(int yes)
{
  return yes ? "included" : "not included";
}

void cc_cli_print_version(FILE *out)
{
  const struct cc_cli_build_info *b = &cc_cli_build_info;
  fprintf(out, "coalcheck %s\n", CC_CLI_VERSION);
  fprintf(out, "git revision: %s\n", b->git_revision);
  fprintf(out, "GPU backend: %s%s\n", included(b->gpu_backend),
          b->gpu_backend ? " (libcoalcheck_gpu.so and its sm_90 patch, in PREFIX/lib/coalcheck)"
                         : " (built without nvcc or the Compute Sanitizer headers): the "
                           "emulator only");
  fprintf(out, "CUDA C front end (libclang): %s%s\n", included(b->libclang),
          b->libclang ? "" : " (`coalcheck fix` refuses .cu inputs; .ptx works)");
  fprintf(out, "MPI: %s (COALCHECK_MPI=%s)\n", included(b->mpi), b->mpi ? "ON" : "OFF");
}
