/* Runs of several hosts (analyze/core/clocks.c): 8 hosts x 8 ranks written with tracebuild on
 * shifted monotonic clocks (each host booted at another time), different host names and boot
 * ids. The ledger must see one run on UTC: wall and straggler as computed here by hand; files
 * of one boot stay on their monotonic clock even when their UTC anchors disagree. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tracebuild.h"
#define FLEET_TMP_PREFIX "fleet_hosts"
#include "fleet_cli.h"

#define S(x) ((int64_t)((x) * 1e9 + 0.5))
#define ORIGIN 1772323200000000000LL /* 2026-03-01T00:00:00Z */
#define HOSTS 8
#define RANKS 8


/* ---- the Perfetto timeline's process tracks, decoded by protoc with the official schema ---- */

#define SCHEMA_DIR WT_SHARED_DIR "/perfetto"
#define MAXPD 256

/* One TrackDescriptor, in file order: its uuid, process fields and ordering fields. */
typedef struct pdesc {
    uint64_t uuid;
    int is_process, is_thread, has_rank, has_sort, has_ordering, n_labels;
    int64_t pid, rank, sort, thread_pid;
    char name[128], label[128], ordering[64];
} pdesc;

static void unquote(const char *v, char *out, size_t cap)
{
    const char *q = strchr(v, '"'), *e = q ? strrchr(q + 1, '"') : NULL;
    snprintf(out, cap, "%.*s", q && e ? (int)(e - q - 1) : 0, q ? q + 1 : "");
}

/* Every TrackDescriptor of `path`; returns how many (asserts protoc accepted the file). */
static int track_descriptors(const char *path, pdesc *d)
{
    char cmd[4096], line[4096], block[16][64];
    snprintf(cmd, sizeof cmd,
             "protoc --decode=perfetto.protos.Trace -I '%s' perfetto_trace.proto < '%s'",
             SCHEMA_DIR, path);
    FILE *in = popen(cmd, "r");
    assert_non_null(in);
    int depth = 0, n = 0, in_td = -1;
    while (fgets(line, sizeof line, in)) {
        char *t = line + strspn(line, " ");
        char *brace = strstr(t, " {");
        if (brace && depth < 16) {
            snprintf(block[depth], sizeof block[depth], "%.*s", (int)(brace - t), t);
            if (!strcmp(block[depth], "track_descriptor")) {
                assert_true(n < MAXPD);
                memset(&d[n], 0, sizeof d[n]);
                in_td = depth;
            }
            depth++;
            continue;
        }
        if (t[0] == '}') {
            if (--depth == in_td) {
                in_td = -1;
                n++;
            }
            continue;
        }
        if (in_td < 0)
            continue;
        pdesc *x = &d[n];
        const char *v = strchr(t, ':');
        if (!v)
            continue;
        v += 2;
        const int own = depth == in_td + 1,
                  proc = depth == in_td + 2 && !strcmp(block[in_td + 1], "process"),
                  thread = depth == in_td + 2 && !strcmp(block[in_td + 1], "thread");
        if (thread && !strncmp(t, "pid:", 4))
            x->is_thread = 1, x->thread_pid = strtoll(v, NULL, 10);
        if (own && !strncmp(t, "uuid:", 5))
            x->uuid = strtoull(v, NULL, 10);
        else if (own && !strncmp(t, "sibling_order_rank:", 19))
            x->has_rank = 1, x->rank = strtoll(v, NULL, 10);
        else if (own && !strncmp(t, "process_ordering:", 17))
            x->has_ordering = 1, snprintf(x->ordering, sizeof x->ordering, "%.*s",
                                          (int)strcspn(v, "\n"), v);
        else if (proc && !strncmp(t, "pid:", 4))
            x->is_process = 1, x->pid = strtoll(v, NULL, 10);
        else if (proc && !strncmp(t, "process_name:", 13))
            unquote(v, x->name, sizeof x->name);
        else if (proc && !strncmp(t, "process_labels:", 15))
            x->n_labels++, unquote(v, x->label, sizeof x->label);
        else if (proc && !strncmp(t, "legacy_sort_index:", 18))
            x->has_sort = 1, x->sort = strtoll(v, NULL, 10);
    }
    assert_int_equal(pclose(in), 0); /* protoc accepted every byte */
    return n;
}

/* protoc and the official schema are here (else the test says so and skips). */
static void need_protoc(void)
{
    if (access(SCHEMA_DIR "/perfetto_trace.proto", R_OK) != 0 ||
        system("protoc --version >/dev/null 2>&1") != 0) {
        printf("skipped: protoc or the official schema %s is absent\n", SCHEMA_DIR);
        skip();
    }
}

/* A copy of the JSON text `s` without the whitespace between tokens. */
static char *squash(const char *s)
{
    char *o = malloc(strlen(s) + 1), *w = o;
    assert_non_null(o);
    for (int in_str = 0; *s; s++) {
        if (in_str && *s == '\\' && s[1]) {
            *w++ = *s++;
            *w++ = *s;
            continue;
        }
        if (*s == '"')
            in_str = !in_str;
        if (in_str || (*s != ' ' && *s != '\n'))
            *w++ = *s;
    }
    *w = '\0';
    return o;
}

static int run(const char *args, char **out, char **err)
{
    int st = fleet_cli(args);
    *out = cli_slurp(abs_in("out.txt"));
    *err = cli_slurp(abs_in("err.txt"));
    assert_non_null(*out);
    assert_non_null(*err);
    return st;
}

/* The number after "key": at or after `from` in a JSON text. */
static double json_num(const char *text, const char *key)
{
    char pat[128];
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *p = strstr(text, pat);
    if (!p)
        fail_msg("no %s in %s", key, text);
    return strtod(p + strlen(pat), NULL);
}

/* One rank's trace. Host h booted (1000 + 3600 h) s before ORIGIN, so its monotonic clock reads
 * that much at ORIGIN. The rank starts at UTC ORIGIN + 10 s + rank x 10 ms, loads for 2 s (the
 * straggler 5 s) from 0.1 s in, then steps 1 s, and ends 0.1 s later. */
static void make_rank(int h, int k, double load_s)
{
    static char hosts[HOSTS][16], boots[HOSTS][16];
    snprintf(hosts[h], sizeof hosts[h], "node-%d", h);
    snprintf(boots[h], sizeof boots[h], "boot-%d", h);
    const int rank = h * RANKS + k;
    const int64_t boot_ago = S(1000 + 3600.0 * h);
    const int64_t mono0 = boot_ago + S(10 + rank * 0.01); /* the rank's start on its host */
    char run_id[33], name[64], rank_s[16];
    snprintf(run_id, sizeof run_id, "%032x", rank + 1);
    tb_origin o = { hosts[h], boots[h], run_id, ORIGIN - boot_ago, 1000 * (h + 1), 0 };
    snprintf(name, sizeof name, "r%02d.wtrace", rank);
    tb *b = tb_create(tb_path_in(name), 1000 + (uint64_t)rank, mono0, mono0);
    tb_set_origin(b, &o);
    snprintf(rank_s, sizeof rank_s, "%d", rank);
    tb_meta(b, 1, mono0, "rank", rank_s);
    const uint64_t tid = 1000 + (uint64_t)rank;
    int64_t t = mono0 + S(0.1);
    tb_span(b, tid, t, t + S(load_s), 0, "load", "weights");
    t += S(load_s);
    tb_span(b, tid, t, t + S(1), 0, "step", "forward");
    tb_close(b, TB_END_CLEAN, t + S(1.1), 0);
}

static void test_hosts_align_on_utc(void **state)
{
    (void)state;
    for (int h = 0; h < HOSTS; h++)
        for (int k = 0; k < RANKS; k++)
            make_rank(h, k, h == 5 && k == 3 ? 5.0 : 2.0);
    /* host 3's files first: the timeline's reference is not host 0 */
    char args[8192] = "ledger --json";
    for (int i = 0; i < HOSTS * RANKS; i++)
        snprintf(args + strlen(args), sizeof args - strlen(args), " r%02d.wtrace",
                 (i + 3 * RANKS) % (HOSTS * RANKS));
    char *out, *err;
    assert_int_equal(run(args, &out, &err), 0);
    /* earliest start rank 0 at 10.00 s; latest end rank 43: 10.43 + 0.1 + 5 + 1 + 0.1 */
    assert_float_equal(json_num(out, "wall_s"), 16.63 - 10.00, 1e-6);
    /* load: 63 ranks of 2 s and one of 5 s, each on its own timeline slot */
    assert_float_equal(json_num(out, "straggler_s"), 5.0 - 2.0, 1e-6);
    assert_non_null(strstr(out, "\"straggler_process\": \"rank 43 (pid 1043)\""));
    assert_non_null(strstr(err, "64 files of 8 clocks"));
    assert_non_null(strstr(err, "read within 8.0 us")); /* host 7's anchor: 8000 ns */
    /* the stragglers by host in the JSON: every process, in host then rank order, with the
     * seconds and marks made here (load: rank 43's 5 s the slowest of all and of node-5, every
     * other host's ranks tie at 2 s; step: 1 s everywhere, so no straggler of all) */
    char *sq = squash(out), want[32768] = "\"stragglers_by_host\":{\"hosts\":8,\"processes\":[";
    for (int r = 0; r < HOSTS * RANKS; r++)
        snprintf(want + strlen(want), sizeof want - strlen(want),
                 "%s{\"host\":\"node-%d\",\"rank\":%d,\"pid\":%d,\"name\":\"rank %d (pid %d)\","
                 "\"path\":\"r%02d.wtrace\",\"self_s\":{\"load\":%s,\"step\":1.000000000},"
                 "\"slowest_of_all\":[%s],\"slowest_of_host\":[%s]}",
                 r ? "," : "", r / RANKS, r, 1000 + r, r, 1000 + r, r,
                 r == 43 ? "5.000000000" : "2.000000000", r == 43 ? "\"load\"" : "",
                 r / RANKS == 5 && r != 43 ? "\"step\"" : "\"load\",\"step\"");
    strcat(want, "],\"by_host\":[");
    for (int h = 0; h < HOSTS; h++)
        snprintf(want + strlen(want), sizeof want - strlen(want),
                 "%s{\"host\":\"node-%d\",\"processes\":8,\"median_s\":{\"load\":2.000000000,"
                 "\"step\":1.000000000},\"max_s\":{\"load\":%s,\"step\":1.000000000}}",
                 h ? "," : "", h, h == 5 ? "5.000000000" : "2.000000000");
    strcat(want, "],\"straggler_s\":{\"load\":3.000000000,\"step\":0.000000000}}");
    assert_non_null(strstr(sq, want));
    free(sq);
    free(out);
    free(err);

    /* the text ledger adds the stragglers by host and rank: 64 rows, node-5's rank 43 the
     * slowest of all in load, each other host's slowest rank (all 2 s: every rank ties) '+' */
    assert_int_equal(run("ledger r*.wtrace", &out, &err), 0);
    const char *tab = strstr(out, "STRAGGLERS BY HOST AND RANK");
    assert_non_null(tab);
    assert_non_null(strstr(tab, "node-5                     43       1043"));
    const char *row = strstr(tab, "node-5                     43");
    assert_non_null(row);
    assert_non_null(strstr(row, "*"));
    assert_true(strstr(row, "*") < strchr(row, '\n'));
    assert_non_null(strstr(tab, "node-0                      0       1000"));
    free(out);
    free(err);

    /* the same 64 on one Perfetto timeline, a process per rank grouped by host: the given
     * order (host 3 first) is not the timeline's */
    memcpy(args, "export -o all.pftrace", sizeof "export -o all.pftrace");
    for (int i = 0; i < HOSTS * RANKS; i++)
        snprintf(args + strlen(args), sizeof args - strlen(args), " r%02d.wtrace",
                 (i + 3 * RANKS) % (HOSTS * RANKS));
    assert_int_equal(run(args, &out, &err), 0);
    free(out);
    free(err);
    need_protoc();
    static pdesc d[MAXPD];
    const int n = track_descriptors(abs_in("all.pftrace"), d);
    /* the root descriptor (uuid 0), once, asks for the processes' explicit order */
    int roots = 0;
    for (int i = 0; i < n; i++)
        if (d[i].uuid == 0) {
            roots++;
            assert_true(d[i].has_ordering);
            assert_string_equal(d[i].ordering, "PROCESS_ORDERING_EXPLICIT");
            assert_false(d[i].is_process);
        }
    assert_int_equal(roots, 1);
    /* each of the 64 processes: one track (one uuid per pid, no pid twice); its last descriptor
     * names it "rank R (pid P) @ node-H", labels it with its host and ranks it host by host,
     * then by rank: rank R of host R / 8 is the R-th */
    uint64_t uuid_of[HOSTS * RANKS] = { 0 };
    int last[HOSTS * RANKS];
    for (int r = 0; r < HOSTS * RANKS; r++)
        last[r] = -1;
    for (int i = 0; i < n; i++) {
        if (!d[i].is_process)
            continue;
        const int64_t r = d[i].pid - 1000;
        assert_true(r >= 0 && r < HOSTS * RANKS);
        if (!uuid_of[r])
            uuid_of[r] = d[i].uuid;
        assert_int_equal(d[i].uuid, uuid_of[r]); /* one track per process */
        last[r] = i;
    }
    for (int r = 0; r < HOSTS * RANKS; r++) {
        assert_true(last[r] >= 0); /* present */
        for (int q = 0; q < r; q++)
            assert_true(uuid_of[q] != uuid_of[r]); /* once */
        const pdesc *x = &d[last[r]];
        char pname[128], label[64];
        snprintf(pname, sizeof pname, "rank %d (pid %d) @ node-%d", r, 1000 + r, r / RANKS);
        snprintf(label, sizeof label, "host node-%d", r / RANKS);
        assert_string_equal(x->name, pname);
        assert_int_equal(x->n_labels, 1);
        assert_string_equal(x->label, label);
        assert_true(x->has_rank && x->has_sort);
        assert_int_equal(x->rank, r);
        assert_int_equal(x->sort, r);
    }
}

/* Two processes of one boot whose UTC anchors disagree by 5 ms (the host's UTC was stepped
 * between them): they stay on CLOCK_MONOTONIC, exact, and nothing is said. */
static void test_one_boot_stays_monotonic(void **state)
{
    (void)state;
    tb_origin o = { "node-x", "boot-x", "0000000000000000000000000000000a", ORIGIN, 500, 0 };
    tb *b = tb_create(tb_path_in("p1.wtrace"), 11, S(100), S(100));
    tb_set_origin(b, &o);
    tb_span(b, 11, S(100), S(101), 0, "work", "a");
    tb_close(b, TB_END_CLEAN, S(101), 0);
    o.run_id = "0000000000000000000000000000000b";
    o.real_minus_mono = ORIGIN + S(0.005);
    b = tb_create(tb_path_in("p2.wtrace"), 12, S(101), S(101));
    tb_set_origin(b, &o);
    tb_span(b, 12, S(101), S(102), 0, "work", "b");
    tb_close(b, TB_END_CLEAN, S(102), 0);
    char *out, *err;
    assert_int_equal(run("ledger --json p1.wtrace p2.wtrace", &out, &err), 0);
    /* back to back on one clock: wall 2 s, covered 2 s (on UTC they would overlap 5 ms) */
    assert_float_equal(json_num(out, "wall_s"), 2.0, 1e-9);
    assert_float_equal(json_num(out, "covered_s"), 2.0, 1e-9);
    assert_null(strstr(err, "clocks"));
    free(out);
    free(err);

    /* one host: the Perfetto processes as ever, named after their program, no host grouping */
    assert_int_equal(run("export -o one.pftrace p1.wtrace p2.wtrace", &out, &err), 0);
    free(out);
    free(err);
    need_protoc();
    static pdesc d[MAXPD];
    const int n = track_descriptors(abs_in("one.pftrace"), d);
    int procs = 0;
    for (int i = 0; i < n; i++) {
        assert_false(d[i].has_ordering);
        if (!d[i].is_process)
            continue;
        procs++;
        assert_string_equal(d[i].name, "tracebuild"); /* the header's "tracebuild test" */
        assert_int_equal(d[i].n_labels, 0);
        assert_false(d[i].has_rank || d[i].has_sort);
    }
    assert_int_equal(procs, 2); /* one descriptor each, not sent again */
}

/* Ranks of two hosts with one pid (containers number their processes alike): two processes in
 * Perfetto, the second file's tracks (process and thread) on pid 7 + 2^22, its name keeping
 * pid 7. */
static void test_same_pid_on_two_hosts(void **state)
{
    (void)state;
    const char *host[2] = { "b-host", "a-host" };
    for (int h = 0; h < 2; h++) {
        char path[32], run_id[33], rank[8];
        tb_origin o = { host[h], host[h], NULL, ORIGIN, 1000, 0 };
        snprintf(run_id, sizeof run_id, "%032x", 0x70 + h);
        o.run_id = run_id;
        snprintf(path, sizeof path, "s%d.wtrace", h);
        tb *b = tb_create(tb_path_in(path), 7, S(100), S(100));
        tb_set_origin(b, &o);
        snprintf(rank, sizeof rank, "%d", h);
        tb_meta(b, 7, S(100), "rank", rank);
        tb_span(b, 7, S(100), S(101), 0, "work", "a");
        tb_close(b, TB_END_CLEAN, S(101), 0);
    }
    char *out, *err;
    assert_int_equal(run("export -o two.pftrace s0.wtrace s1.wtrace", &out, &err), 0);
    free(out);
    free(err);
    need_protoc();
    static pdesc d[MAXPD];
    const int n = track_descriptors(abs_in("two.pftrace"), d);
    const int64_t moved = 7 + ((int64_t)1 << 22);
    int threads_7 = 0, threads_moved = 0, last7 = -1, last_moved = -1;
    for (int i = 0; i < n; i++) {
        if (d[i].is_thread) {
            threads_7 += d[i].thread_pid == 7;
            threads_moved += d[i].thread_pid == moved;
        }
        if (d[i].is_process && d[i].pid == 7)
            last7 = i;
        if (d[i].is_process && d[i].pid == moved)
            last_moved = i;
    }
    assert_true(last7 >= 0 && last_moved >= 0);
    assert_true(threads_7 >= 1 && threads_moved >= 1);
    /* s0 (b-host, rank 0) came first and keeps pid 7; a-host sorts first */
    assert_string_equal(d[last7].name, "rank 0 (pid 7) @ b-host");
    assert_int_equal(d[last7].rank, 1);
    assert_string_equal(d[last_moved].name, "rank 1 (pid 7) @ a-host");
    assert_int_equal(d[last_moved].rank, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_hosts_align_on_utc, setup, teardown),
        cmocka_unit_test_setup_teardown(test_one_boot_stays_monotonic, setup, teardown),
        cmocka_unit_test_setup_teardown(test_same_pid_on_two_hosts, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
