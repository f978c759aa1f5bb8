/* The run summary (runsum.h) fed by the source driver with span batches and events mixed,
 * against sums made by hand: a category whose string definition was lost with a damaged frame
 * reads "(unknown string N)" until the id is defined again, and the id-indexed category array
 * of the batch path must then forget the id (the reader's string epoch), so that the later
 * spans count under the real name, as the per-event path (keyed by name) counts them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "runsum.h"
#include "source.h"
#include "tracebuild.h"
#include "walltime/reader.h"

static int on_event(void *ctx, int fi, const wt_event *ev)
{
    (void)fi;
    return ev->kind == WT_EV_SPAN ? wt_runsum_span(ctx, ev) : 0;
}

static int on_spans(void *ctx, int fi, const wt_span_batch *b)
{
    (void)fi;
    return wt_runsum_spans(ctx, b);
}

/* The flat ns of category `name`, or -1 when there is none. */
static int64_t flat_of(const wt_runsum *s, const char *name)
{
    for (size_t i = 0; i < wt_runsum_count(s); i++)
        if (!strcmp(wt_runsum_name(s, i), name))
            return wt_runsum_flat_ns(s, i);
    return -1;
}

static void test_runsum_lost_then_redefined_category(void **state)
{
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "test_fleet_runsum_%d.wtrace", (int)getpid());
    tb *b = tb_create(path, 5, 0, 0);
    tb_meta(b, 1, 1, "k", "l"); /* ids 1, 2 */
    tb_frame(b);
    tb_span(b, 1, 10, 20, 0, "lost", "l"); /* "lost" is id 3, defined in this frame */
    tb_frame(b);
    /* frame 3: "lost" by id only: 3 spans of 100 ns (the first after the THREAD record,
     * the others batched) */
    for (int i = 0; i < 6; i++)
        tb_span(b, 1, 1000 + 200 * i, 1100 + 200 * i, 0, i < 3 ? "lost" : "k", "l");
    tb_frame(b);
    /* frame 4: "lost" defined again, then 4 spans of 50 ns in it */
    tb_redefine(b, "lost");
    for (int i = 0; i < 8; i++)
        tb_span(b, 1, 5000 + 100 * i, 5050 + 100 * i, 0, i % 2 ? "k" : "lost", "l");
    tb_close(b, TB_END_CLEAN, 9000, 0);
    size_t len, at[8];
    unsigned char *d = tb_read_file(path, &len);
    assert_true(tb_frame_starts(d, len, at, 8) >= 4);
    d[at[1] + 12] ^= 0xFF; /* frame 2 lost: "lost"'s first definition with it */
    d[at[1] + 14] ^= 0xFF;
    tb_write_file(path, d, len);
    free(d);

    char *paths[1] = { path };
    const wt_source_ops batched = { .event = on_event, .spans = on_spans };
    const wt_source_ops plain = { .event = on_event };
    const wt_source_ops *const ways[2] = { &plain, &batched };
    for (int w = 0; w < 2; w++) {
        wt_runsum *s;
        assert_int_equal(wt_runsum_create(&s), 0);
        wt_source_result res;
        assert_int_equal(wt_source_run(paths, 1, ways[w], s, &res), 0);
        assert_int_equal(res.files_damaged, 1);
        wt_runsum_finish(s);
        /* by hand: frame 3's three "lost" spans under the unknown name, 100 ns each; frame
         * 4's four under "lost", 50 ns each; "k": 3 x 100 + 4 x 50 */
        assert_int_equal(flat_of(s, "(unknown string 3)"), 300);
        assert_int_equal(flat_of(s, "lost"), 200);
        assert_int_equal(flat_of(s, "k"), 500);
        wt_runsum_free(s);
    }
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runsum_lost_then_redefined_category),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
