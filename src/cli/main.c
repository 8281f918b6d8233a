/* coalcheck: the program. Everything is in src/cli (cc_cli_main). */
#include "cli/cli.h"

int main(int argc, char **argv)
{
  return cc_cli_main(argc, argv);
}
