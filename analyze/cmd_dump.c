/* STUB: replaced by the area that owns this command. */
#include "cli.h"
#include "commands.h"

int cmd_dump(int argc, char **argv)
{
    wt_cli_error("dump: not built yet");
    return WT_EXIT_FAIL;
}
