/* `walltime-analyze export --format table -o DIR`: what the export command says about a table
 * export (the command parses the options: commands/cmd_export.c). */
#include "table_cmd.h"

#include <errno.h>
#include <string.h>

#include "json.h"
#include "table.h"

int wt_table_command(wt_inputs *in, const char *dir, int json)
{
    if (!dir || !strcmp(dir, "-")) {
        wt_cli_error("export: --format table needs a directory: -o DIR");
        return WT_EXIT_USAGE;
    }
    wt_table_report rep;
    int rc = wt_table_export_inputs(in, dir, &rep);
    if (rc == WT_EOPEN) {
        wt_cli_error("cannot write tables into '%s': %s", dir, strerror(errno));
        return WT_EXIT_FAIL;
    }
    if (rc == WT_EIO && rep.io_errno) {
        wt_cli_error("export: cannot write tables into '%s': %s", dir, strerror(rep.io_errno));
        return WT_EXIT_FAIL;
    }
    if (rc < 0) {
        wt_cli_error("export: '%s': %s", dir, wt_strerror(rc));
        return WT_EXIT_FAIL;
    }
    if (rep.src.files_ok + rep.src.files_damaged + rep.src.files_failed == 0)
        wt_cli_error("export: no trace file: the lists and directories given named none");
    if (rep.src.files_failed)
        wt_cli_error("'%s': %d input file(s) could not be read and have no tables", dir,
                     rep.src.files_failed);
    if (rep.src.files_damaged)
        wt_cli_error("'%s': %d damaged input file(s): their tables cover what was readable "
                     "(runs.damaged is true)",
                     dir, rep.src.files_damaged);
    if (rep.rounds_dropped)
        wt_cli_error("'%s': %lld rounds past the first %d of a file: their spans have round -1",
                     dir, (long long)rep.rounds_dropped, WT_TABLE_MAX_ROUNDS);
    if (rep.meta_dropped)
        wt_cli_error("'%s': %lld metadata keys past the first %d of a file were left out", dir,
                     (long long)rep.meta_dropped, WT_TABLE_MAX_META);
    if (json) {
        wt_json j;
        wt_json_init(&j, stdout, 1);
        wt_json_object_begin(&j, NULL);
        wt_json_string(&j, "schema", "walltime-export/1");
        wt_json_string(&j, "output", dir);
        wt_json_string(&j, "format", "table");
        wt_json_string(&j, "table_schema", WT_TABLE_SCHEMA);
        wt_json_int(&j, "files_ok", rep.src.files_ok);
        wt_json_int(&j, "files_damaged", rep.src.files_damaged);
        wt_json_int(&j, "files_failed", rep.src.files_failed);
        wt_json_int(&j, "runs", rep.runs);
        wt_json_int(&j, "spans", rep.spans);
        wt_json_int(&j, "counters", rep.counters);
        wt_json_int(&j, "legacy_run_ids", rep.legacy_ids);
        wt_json_object_end(&j);
        wt_json_finish(&j);
    }
    return wt_source_exit_status(&rep.src);
}
