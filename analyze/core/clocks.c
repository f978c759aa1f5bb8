/* Files of several hosts and boots on one timeline: see clocks.h. */
#include "clocks.h"

#include <stdlib.h>
#include <string.h>

#include "spanstat.h"
#include "walltime/error.h"

void wt_clocks_release(wt_clocks *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->groups[i].key);
    free(c->groups);
    memset(c, 0, sizeof *c);
}

int wt_clocks_file(wt_clocks *c, const wt_trace_info *info, int64_t *shift)
{
    const int boot = info->boot_id && info->boot_id[0];
    const char *id = boot ? info->boot_id : info->host ? info->host : "";
    size_t len = strlen(id);
    const int64_t delta = info->anchor_real_ns - info->anchor_mono_ns;
    if (c->files++ == 0) {
        c->ref_delta = delta;
        c->anchor_err_max = info->anchor_err_ns;
    } else if (c->anchor_err_max >= 0 &&
               (info->anchor_err_ns < 0 || info->anchor_err_ns > c->anchor_err_max)) {
        c->anchor_err_max = info->anchor_err_ns;
    }
    for (size_t i = 0; i < c->n; i++) {
        const char *k = c->groups[i].key;
        if (k[0] == (boot ? 'b' : 'h') && strlen(k + 5) == len && !memcmp(k + 5, id, len)) {
            *shift = c->groups[i].shift;
            return 0;
        }
    }
    wt_clock_group *ng = wt__grow_array(c->groups, &c->cap, c->n + 1, sizeof *ng);
    if (!ng)
        return WT_ENOMEM;
    c->groups = ng;
    char *key = malloc(len + 6);
    if (!key)
        return WT_ENOMEM;
    memcpy(key, boot ? "boot:" : "host:", 5);
    memcpy(key + 5, id, len + 1);
    c->groups[c->n++] = (wt_clock_group){ key, delta - c->ref_delta };
    *shift = delta - c->ref_delta;
    return 0;
}

int wt_clocks_aligned(const wt_clocks *c) { return c->n > 1; }

void wt_clocks_shift_info(const wt_trace_info *in, int64_t shift, wt_trace_info *out)
{
    *out = *in;
    if (out->process_start_ns)
        out->process_start_ns += shift;
    out->open_ns += shift;
    out->anchor_mono_ns += shift;
}
