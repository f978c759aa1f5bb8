/* Tests of where `export` writes and what strings it writes (issue 10 items 10-12): an output
 * that is one of the inputs is refused (exit 2, the input untouched), an output that is a
 * symbolic link writes where the link points and stays a link, labels that are not UTF-8 come
 * out repaired in every Perfetto string field (protoc decodes them without a warning) and in
 * `dump` text, threads past WT_EXPORT_MAX_THREADS fold into one track per process, and the
 * export's peak RSS stays bounded for 1 M threads and for hundreds of trees open at once. */
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "export.h"
#include "export_decode.h"

#define MS 1000000LL

static int setup(void **state) { return tb_tmpdir_enter("export-out"); }
static int teardown(void **state) { return tb_tmpdir_leave(); }
static char *path_in(const char *name) { return tb_path_in(name); }

static void build_small(const char *path)
{
    tb *b = tb_create(path, 100, 1000 * MS, 1000 * MS);
    tb_span(b, 101, 1100 * MS, 1200 * MS, 0, "load", "w1");
    tb_close(b, TB_END_CLEAN, 2000 * MS, 0);
}

/* Runs the analyzer in the test's directory; exit status, stderr in `err` (caller frees). */
static int run_cli(const char *args, char **err)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s 2>err.txt >out.txt", tb_tmpdir(),
             WT_ANALYZE_BIN, args);
    int st = system(cmd);
    size_t n;
    unsigned char *e = tb_read_file(path_in("err.txt"), &n);
    *err = realloc(e, n + 1);
    assert_non_null(*err);
    (*err)[n] = '\0';
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void assert_unchanged(const char *path, const unsigned char *before, size_t n_before)
{
    size_t n;
    unsigned char *now = tb_read_file(path, &n);
    assert_int_equal(n, n_before);
    assert_memory_equal(now, before, n);
    free(now);
}

static void test_export_refuses_an_output_that_is_an_input(void **state)
{
    build_small(path_in("a.wtrace"));
    build_small(path_in("b.wtrace"));
    size_t n;
    unsigned char *before = tb_read_file(path_in("a.wtrace"), &n);
    assert_int_equal(link(path_in("a.wtrace"), path_in("hard.wtrace")), 0);
    assert_int_equal(symlink("a.wtrace", path_in("soft.pftrace")), 0);
    const char *const cases[] = { "export a.wtrace -o a.wtrace",
                                  "export b.wtrace a.wtrace -o ./a.wtrace",
                                  "export a.wtrace -o hard.wtrace",
                                  "export a.wtrace -o soft.pftrace",
                                  "export --format chrome a.wtrace --output=a.wtrace" };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *err;
        assert_int_equal(run_cli(cases[i], &err), 2);
        assert_non_null(strstr(err, "refusing to write"));
        assert_non_null(strstr(err, "a.wtrace' (the same file)"));
        free(err);
        assert_unchanged(path_in("a.wtrace"), before, n);
    }
    /* the API says which input it was */
    char *paths[2] = { path_in("b.wtrace"), path_in("a.wtrace") };
    wt_export_opts o = { .format = WT_EXPORT_PERFETTO };
    wt_export_report rep;
    assert_int_equal(wt_export_to_path(paths, 2, &o, path_in("hard.wtrace"), &rep), WT_EEXIST);
    assert_int_equal(rep.same_as_input, 2);
    assert_int_equal(rep.written, 0);
    assert_unchanged(path_in("a.wtrace"), before, n);
    assert_int_equal(tb_count_files("tmp-"), 0);
    free(before);
}

static void test_export_writes_where_a_symlink_points(void **state)
{
    build_small(path_in("a.wtrace"));
    assert_int_equal(mkdir(path_in("out"), 0755), 0);
    static const unsigned char old[] = "an earlier timeline";
    tb_write_file(path_in("out/t.pftrace"), old, sizeof old);
    assert_int_equal(symlink("out/t.pftrace", path_in("l.pftrace")), 0); /* relative */
    assert_int_equal(symlink("l.pftrace", path_in("l2.pftrace")), 0);   /* a link to a link */
    assert_int_equal(symlink("out/new.pftrace", path_in("dangling.pftrace")), 0);
    const char *const links[] = { "l.pftrace", "l2.pftrace", "dangling.pftrace" };
    for (size_t i = 0; i < 3; i++) {
        char args[256], *err;
        snprintf(args, sizeof args, "export a.wtrace -o %s", links[i]);
        assert_int_equal(run_cli(args, &err), 0);
        free(err);
        struct stat st;
        assert_int_equal(lstat(path_in(links[i]), &st), 0);
        assert_true(S_ISLNK(st.st_mode)); /* still a link */
    }
    size_t n;
    unsigned char *t = tb_read_file(path_in("out/t.pftrace"), &n);
    assert_true(n > sizeof old);
    assert_int_equal(t[0], 0x0A); /* a Trace: field 1, a packet */
    free(t);
    unsigned char *nw = tb_read_file(path_in("out/new.pftrace"), &n);
    assert_true(n > 0 && nw[0] == 0x0A);
    free(nw);
    assert_int_equal(tb_count_files("tmp-"), 0);
    if (!why_no_protoc())
        free(decode(path_in("out/t.pftrace")));
}

/* wt_export_opts.check for the test: sees the ledger (1 category, load: 0.1 s) and says no. */
static int refuse_all(void *ctx, const wt_ledger_result *r)
{
    assert_int_equal(r->n_cats, 1);
    assert_string_equal(r->cats[0].name, "load");
    (*(int *)ctx)++;
    return 1;
}

/* A budget on a category the trace does not have is a usage error in export as in ledger: exit
 * 2, the categories named, and the output left as it was (no temporary file behind). */
static void test_export_budget_on_an_unknown_category_is_a_usage_error(void **state)
{
    build_small(path_in("a.wtrace"));
    static const unsigned char old[] = "an earlier timeline";
    tb_write_file(path_in("t.pftrace"), old, sizeof old);
    const char *const cases[] = { "export --budget nosuchcat=1 a.wtrace -o t.pftrace",
                                  "export -f chrome --budget-self=nosuchcat=5% a.wtrace -o t.pftrace",
                                  "export --budget load=1 --budget nosuchcat=1 a.wtrace -o new.json" };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *err;
        assert_int_equal(run_cli(cases[i], &err), 2);
        assert_non_null(strstr(err, "no category 'nosuchcat'; the categories are 'load'"));
        free(err);
        assert_unchanged(path_in("t.pftrace"), old, sizeof old);
    }
    assert_int_equal(access(path_in("new.json"), F_OK), -1);
    assert_int_equal(tb_count_files("tmp-"), 0);
    /* a known category passes and writes; --no-analysis cannot check a budget */
    char *err;
    assert_int_equal(run_cli("export --budget load=1 a.wtrace -o t.pftrace", &err), 0);
    free(err);
    assert_int_equal(run_cli("export --no-analysis --budget load=1 a.wtrace -o u.pftrace", &err), 2);
    assert_non_null(strstr(err, "--budget needs the analysis"));
    free(err);
    /* the API: the check runs on the finished ledger, and its no stops the export */
    char *paths[1] = { path_in("a.wtrace") };
    wt_export_opts o = { .format = WT_EXPORT_PERFETTO, .check = refuse_all };
    wt_export_report rep;
    int seen = 0;
    o.check_ctx = &seen;
    assert_int_equal(wt_export_to_path(paths, 1, &o, path_in("api.pftrace"), &rep), WT_EINVAL);
    assert_int_equal(rep.check_failed, 1);
    assert_int_equal(rep.written, 0);
    assert_int_equal(seen, 1);
    assert_int_equal(access(path_in("api.pftrace"), F_OK), -1);
    assert_int_equal(tb_count_files("tmp-"), 0);
}

/* A trace whose every string has bytes that are not UTF-8: a lone continuation byte, a cut
 * sequence, an overlong encoding, a surrogate. */
static void build_bad_utf8(const char *path)
{
    tb *b = tb_create(path, 100, 1000 * MS, 1000 * MS);
    tb_set_cmdline(b, "/bin/pr\xff""og --x=\xc3");
    tb_thread_name(b, 101, 1001 * MS, "worker\xfe");
    tb_span_ex(b, &(tb_span_desc){ .tid = 101, .start = 1100 * MS, .end = 1200 * MS,
                                   .category = "ca\x80t", .label = "bad\xe2\x82",
                                   .detail = "de\xc0\xaftail", .cached = WT_CACHED_MISS });
    tb_mark(b, 101, 1300 * MS, "m\xed\xa0\x80", "mark\xff", "x\xff");
    tb_counter(b, 101, 1310 * MS, "cnt\xff", 5);
    tb_meta(b, 101, 1320 * MS, "key\xff", "value\xfe");
    tb_round(b, 101, 1400 * MS, 1500 * MS, "keep\xff", 0);
    tb_close(b, TB_END_CLEAN, 2000 * MS, 0);
}

static void test_export_repairs_strings_that_are_not_utf8(void **state)
{
    NEED_PROTOC();
    build_bad_utf8(path_in("u.wtrace"));
    char *paths[1] = { path_in("u.wtrace") };
    /* with the analyses: the anomalies (a MISS) and the ledger carry the label too */
    wt_export_opts o = { .format = WT_EXPORT_PERFETTO, .aligned_rounds = 1 };
    wt_export_report rep;
    assert_int_equal(wt_export_to_path(paths, 1, &o, path_in("u.pftrace"), &rep), 0);
    assert_true(rep.anomalies > 0);
    decoded *d = decode(path_in("u.pftrace")); /* protoc says nothing about UTF-8 */
    /* the span is still there, whole, its name repaired: U+FFFD (octal in protoc's text) */
    int found = 0;
    for (int i = 0; i < d->ns; i++)
        if (!strncmp(d->s[i].name, "bad", 3)) {
            assert_non_null(strstr(d->s[i].name, "\\357\\277\\275"));
            assert_int_equal(d->s[i].dur, 100 * MS);
            found++;
        }
    assert_int_equal(found, 1);
    free(d);
    /* the reference packer writes the same repaired bytes */
    o.reference = 1;
    assert_int_equal(wt_export_to_path(paths, 1, &o, path_in("r.pftrace"), &rep), 0);
    assert_same_bytes(path_in("u.pftrace"), path_in("r.pftrace"), 0);
}

/* 1 when s[0..n) is valid UTF-8 (checked here independently: RFC 3629 by the byte ranges). */
static int valid_utf8(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        size_t len = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
                   : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
        if (!len || i + len > n)
            return 0;
        for (size_t k = 1; k < len; k++)
            if ((s[i + k] & 0xC0) != 0x80)
                return 0;
        if ((c == 0xE0 && s[i + 1] < 0xA0) || (c == 0xED && s[i + 1] > 0x9F) ||
            (c == 0xF0 && s[i + 1] < 0x90) || (c == 0xF4 && s[i + 1] > 0x8F))
            return 0;
        i += len;
    }
    return 1;
}

static void test_dump_text_repairs_strings_that_are_not_utf8(void **state)
{
    build_bad_utf8(path_in("u.wtrace"));
    char *err;
    assert_int_equal(run_cli("dump u.wtrace", &err), 0);
    free(err);
    size_t n;
    unsigned char *out = tb_read_file(path_in("out.txt"), &n);
    assert_true(n > 0);
    assert_true(valid_utf8(out, n));
    /* the label, its bad tail replaced by one U+FFFD per byte */
    assert_non_null(memmem(out, n, "bad\xEF\xBF\xBD\xEF\xBF\xBD", 9));
    free(out);
}

/* dump --json writes a string as it is when every byte is printable ASCII but '"' and '\\',
 * checked eight bytes a step, else through the JSON writer's escapes. A label of 17 bytes
 * with one byte (or UTF-8 pair) of each kind at each position - the first word, the second,
 * the tail - must come out as this model escapes it. */
static size_t model_json(char *o, const char *s)
{
    size_t n = 0;
    o[n++] = '"';
    for (const unsigned char *u = (const unsigned char *)s; *u; u++) {
        if (*u == '"' || *u == '\\')
            n += (size_t)sprintf(o + n, "\\%c", *u);
        else if (*u == '\n')
            n += (size_t)sprintf(o + n, "\\n");
        else if (*u < 0x20 || *u == 0x7f)
            n += (size_t)sprintf(o + n, "\\u%04x", *u);
        else if (*u == 0xff) /* not UTF-8 */
            n += (size_t)sprintf(o + n, "\xEF\xBF\xBD");
        else
            o[n++] = (char)*u; /* ASCII, or the valid pair c3 a9 */
    }
    o[n++] = '"';
    o[n] = '\0';
    return n;
}

static void test_dump_json_escapes_each_byte_at_each_position(void **state)
{
    static const char *const kinds[] = { "\"", "\\", "\x01", "\x1f", "\n", "\x7f",
                                         "\xc3\xa9", "\xff", " ", "~" };
    enum { KINDS = sizeof kinds / sizeof kinds[0], LEN = 17 };
    char labels[KINDS * LEN][LEN + 4];
    tb *b = tb_create(path_in("e.wtrace"), 100, 1000 * MS, 1000 * MS);
    int n = 0;
    for (int k = 0; k < KINDS; k++)
        for (int p = 0; p < LEN; p++, n++) {
            snprintf(labels[n], sizeof labels[n], "%.*s%s%.*s", p, "abcdefghijklmnopq",
                     kinds[k], LEN - 1 - p, "abcdefghijklmnopq" + p + 1);
            tb_span_ex(b, &(tb_span_desc){ .tid = 101, .start = (1000 + n) * MS,
                                           .end = (1000 + n) * MS + 5, .category = "c",
                                           .label = labels[n] });
        }
    tb_close(b, TB_END_CLEAN, 2000 * MS, 0);
    char *err;
    assert_int_equal(run_cli("dump --json e.wtrace", &err), 0);
    free(err);
    size_t len;
    unsigned char *out = tb_read_file(path_in("out.txt"), &len);
    char *text = realloc(out, len + 1);
    assert_non_null(text);
    text[len] = '\0';
    char want[256];
    for (int i = 0; i < n; i++) {
        char *o = want + sprintf(want, "\"label\":");
        model_json(o, labels[i]);
        strcat(want, ",\"cached\"");
        assert_non_null(strstr(text, want));
    }
    free(text);
}

/* 1 when the text has no control character but the line ends. */
static int no_controls(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((s[i] < 0x20 && s[i] != '\n') || s[i] == 0x7F)
            return 0;
    return 1;
}

/* Every text output (ledger, its sections, anomalies, compare, info) repairs the trace's
 * strings: each byte that is not UTF-8 and each control character becomes U+FFFD, so a label
 * can neither garble the terminal nor break a table line. */
static void test_text_outputs_repair_strings_that_are_not_utf8(void **state)
{
    static const char *const ff = "\xEF\xBF\xBD"; /* U+FFFD */
    tb *b = tb_create(path_in("t.wtrace"), 100, 1000 * MS, 1000 * MS);
    tb_set_cmdline(b, "/bin/pr\xff""og");
    tb_thread_name(b, 101, 1001 * MS, "worker\xfe");
    tb_thread_name(b, 102, 1001 * MS, "tab\there");
    for (int r = 0; r < 4; r++) {
        const int64_t t0 = (1100 + 200 * r) * MS;
        tb_round(b, 101, t0, t0 + 90 * MS, r % 2 ? "skip\x1b[31m" : "keep\xff", r / 2);
        tb_span_ex(b, &(tb_span_desc){ .tid = 101, .start = t0 + MS, .end = t0 + 80 * MS,
                                       .category = "ca\x80t", .label = "bad\xe2\x82",
                                       .cached = WT_CACHED_MISS });
        tb_span_ex(b, &(tb_span_desc){ .tid = 102, .start = t0 + MS, .end = t0 + 50 * MS,
                                       .category = "up", .label = "two\nlines",
                                       .cached = WT_CACHED_MISS });
    }
    tb_close(b, TB_END_CLEAN, 2000 * MS, 0);
    static const char *const cmds[] = { "ledger t.wtrace", "ledger --by label t.wtrace",
                                        "ledger --flat t.wtrace", "anomalies --all t.wtrace",
                                        "compare t.wtrace", "info t.wtrace" };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        char *err;
        assert_int_equal(run_cli(cmds[i], &err), 0);
        free(err);
        size_t n;
        unsigned char *out = tb_read_file(path_in("out.txt"), &n);
        if (!valid_utf8(out, n) || !no_controls(out, n))
            fail_msg("'%s': raw bytes in the text:\n%.*s", cmds[i], (int)n, (const char *)out);
        char want[64];
        if (i < 5) { /* the category, repaired as a whole word, is in every table */
            snprintf(want, sizeof want, "ca%st", ff);
            assert_non_null(memmem(out, n, want, strlen(want)));
        }
        if (i == 1 || i == 3 || i == 4) { /* the labels */
            snprintf(want, sizeof want, "bad%s%s", ff, ff);
            assert_non_null(memmem(out, n, want, strlen(want)));
            snprintf(want, sizeof want, "two%slines", ff);
            assert_non_null(memmem(out, n, want, strlen(want)));
        }
        if (i == 5) {
            snprintf(want, sizeof want, "worker%s", ff);
            assert_non_null(memmem(out, n, want, strlen(want)));
            snprintf(want, sizeof want, "/bin/pr%sog", ff);
            assert_non_null(memmem(out, n, want, strlen(want)));
        }
        free(out);
    }
}

static void test_export_folds_threads_past_the_bound(void **state)
{
    /* one span on each of WT_EXPORT_MAX_THREADS + 1000 threads: the last 1000 share a track */
    const int extra = 1000, n = WT_EXPORT_MAX_THREADS + extra;
    tb *b = tb_create(path_in("t.wtrace"), 100, 1000 * MS, 1000 * MS);
    for (int i = 0; i < n; i++)
        tb_span(b, (uint64_t)i + 1, 1100 * MS + i, 1100 * MS + i + 10, 0, "c", "s");
    tb_close(b, TB_END_CLEAN, 2000 * MS, 0);
    char *paths[1] = { path_in("t.wtrace") };
    wt_export_opts o = { .format = WT_EXPORT_PERFETTO, .no_analysis = 1 };
    wt_export_report rep;
    assert_int_equal(wt_export_to_path(paths, 1, &o, path_in("t.pftrace"), &rep), 0);
    assert_int_equal(rep.sink.spans, n);
    assert_int_equal(rep.sink.spans_folded, extra);
    /* ten nanoseconds each, one nanosecond apart: ten lanes hold them all, none cut */
    assert_int_equal(rep.sink.lanes_extra, extra);
    assert_int_equal(rep.sink.misplaced, 0);
}

/* Runs the analyzer with argv in a child; returns its peak RSS in KiB (wait4), -1 when it did
 * not exit with `want_status`. */
static long peak_rss_kib(char *const argv[], int want_status)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stderr))
            _exit(127);
        execv(WT_ANALYZE_BIN, argv);
        _exit(127);
    }
    int st;
    struct rusage ru;
    assert_int_equal(wait4(pid, &st, 0, &ru), pid);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != want_status)
        return -1;
    return ru.ru_maxrss;
}

static void test_export_of_a_million_threads_stays_bounded(void **state)
{
    /* issue 10 item 10: a crafted trace of 1 M threads with one span each; the export's own
     * state must stay bounded (docs/EXPORT.md: under 64 MiB without the analyses) */
    const int n = 1000000;
    tb *b = tb_create(path_in("m.wtrace"), 100, 1000 * MS, 1000 * MS);
    for (int i = 0; i < n; i++)
        tb_span(b, (uint64_t)i + 1, 1100 * MS + 100 * i, 1100 * MS + 100 * i + 50, 0, "c", "s");
    tb_close(b, TB_END_CLEAN, 2000 * MS, 0);
    char *argv[] = { "walltime-analyze", "export", "--no-analysis", path_in("m.wtrace"),
                     "-o", path_in("m.pftrace"), NULL };
    long kib = peak_rss_kib(argv, 0);
    printf("export --no-analysis of 1 M threads: peak RSS %.1f MiB\n", kib / 1024.0);
    assert_true(kib > 0);
#ifndef __SANITIZE_ADDRESS__ /* ASan's shadow memory and redzones are not the export's */
    assert_true(kib < 64 * 1024);
#endif
}

static void test_export_holds_stay_bounded_over_many_threads(void **state)
{
    /* 512 threads, each a root around 1000 spans, all open at once: together they pass the
     * hold's bound over all threads (PF_HOLD_TOTAL), so spans are written early, nested */
    tb *b = tb_create(path_in("h.wtrace"), 100, 1000, 1000);
    const int64_t t0 = 100000;
    for (int c = 0; c < 10; c++)
        for (int th = 0; th < 512; th++)
            for (int k = 0; k < 100; k++) {
                int64_t s = t0 + (int64_t)(c * 100 + k) * 10;
                tb_span(b, (uint64_t)th + 1, s, s + 5, 1, "c", "x");
            }
    for (int th = 0; th < 512; th++)
        tb_span(b, (uint64_t)th + 1, t0 - 1, t0 + 20000, 0, "c", "root");
    tb_close(b, TB_END_CLEAN, t0 + 40000, 0);
    char *paths[1] = { path_in("h.wtrace") };
    wt_export_opts o = { .format = WT_EXPORT_PERFETTO, .no_analysis = 1 };
    wt_export_report rep;
    assert_int_equal(wt_export_to_path(paths, 1, &o, path_in("h.pftrace"), &rep), 0);
    assert_int_equal(rep.sink.spans, 512 * 1001);
    assert_true(rep.sink.early > 0);
    assert_int_equal(rep.sink.lanes_extra, 0); /* every root begins before its children */
    char *argv[] = { "walltime-analyze", "export", "--no-analysis", path_in("h.wtrace"),
                     "-o", path_in("h.pftrace"), NULL };
    long kib = peak_rss_kib(argv, 0);
    printf("export --no-analysis of 512 open trees: peak RSS %.1f MiB\n", kib / 1024.0);
    assert_true(kib > 0);
#ifndef __SANITIZE_ADDRESS__
    assert_true(kib < 64 * 1024);
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_export_refuses_an_output_that_is_an_input, setup, teardown),
        cmocka_unit_test_setup_teardown(test_export_writes_where_a_symlink_points, setup, teardown),
        cmocka_unit_test_setup_teardown(test_export_budget_on_an_unknown_category_is_a_usage_error, setup, teardown),
        cmocka_unit_test_setup_teardown(test_export_repairs_strings_that_are_not_utf8, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dump_text_repairs_strings_that_are_not_utf8, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dump_json_escapes_each_byte_at_each_position, setup, teardown),
        cmocka_unit_test_setup_teardown(test_text_outputs_repair_strings_that_are_not_utf8, setup, teardown),
        cmocka_unit_test_setup_teardown(test_export_folds_threads_past_the_bound, setup, teardown),
        cmocka_unit_test_setup_teardown(test_export_of_a_million_threads_stays_bounded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_export_holds_stay_bounded_over_many_threads, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
