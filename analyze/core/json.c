/* Streaming JSON writer: see json.h. The UTF-8 check follows RFC 3629 (no overlongs, no
 * surrogates, nothing above U+10FFFF), so what we emit parses in strict parsers. */
#include "json.h"

#include <math.h>
#include <string.h>

void wt_json_init(wt_json *j, FILE *out, int pretty)
{
    memset(j, 0, sizeof *j);
    j->out = out;
    j->pretty = pretty;
    j->first[0] = 1;
}

size_t wt_json_utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    unsigned min;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF)
        len = 3, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4)
        len = 4, min = 0x10000;
    else
        return 0;
    if (len > n)
        return 0;
    unsigned cp = c & (0x7F >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

/* The length of the character at s (n bytes left) when it goes into a text line as it is, else 0. */
static size_t text_ok(const unsigned char *s, size_t n)
{
    if (s[0] < 0x20 || s[0] == 0x7F)
        return 0;
    return wt_json_utf8_len(s, n);
}

const char *wt_text_safe(const char *str, char *buf, size_t size)
{
    if (!str)
        return "";
    const unsigned char *s = (const unsigned char *)str;
    size_t n = strlen(str), i = 0, len;
    while (i < n && (len = text_ok(s + i, n - i)) != 0)
        i += len;
    if (i == n)
        return str; /* the common case: nothing copied */
    size_t o = 0;
    for (i = 0; i < n;) {
        len = text_ok(s + i, n - i);
        const char *piece = len ? str + i : "\xEF\xBF\xBD";
        size_t plen = len ? len : 3;
        if (o + plen >= size)
            break;
        memcpy(buf + o, piece, plen);
        o += plen;
        i += len ? len : 1;
    }
    buf[o] = '\0';
    return buf;
}

/* Bytes that go out as they are: printable ASCII but the quote and the backslash. */
static int plain(unsigned c) { return c >= 0x20 && c < 0x7F && c != '"' && c != '\\'; }

/* Whether the 8 bytes of w are all plain(). Each test sets the top bit of some byte exactly
 * when some byte fails it (SWAR: (x - 0x01..*n) & ~x & 0x80.. finds a byte below n <= 128,
 * whatever the other bytes hold; a byte of 0x80 or more has its own top bit). */
static int word_plain(uint64_t w)
{
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    const uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\'), d = w ^ (ones * 0x7f);
    const uint64_t bad = ((w - ones * 0x20) & ~w) | w | ((q - ones) & ~q) | ((b - ones) & ~b) |
                         ((d - ones) & ~d);
    return !(bad & high);
}

int wt_json_plain(const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        if (!word_plain(w))
            return 0;
    }
    for (; i < n; i++)
        if (!plain(s[i]))
            return 0;
    return 1;
}

void wt_json_write_escaped(FILE *out, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    putc_unlocked('"', out);
    for (size_t i = 0; i < n;) {
        /* runs of plain bytes in one call: per-byte stdio calls made the Chrome export 10x slower */
        size_t run = i;
        while (run < n && plain(s[run]))
            run++;
        if (run > i) {
            fwrite_unlocked(s + i, 1, run - i, out);
            i = run;
            continue;
        }
        unsigned c = s[i];
        if (c == '"' || c == '\\') {
            putc_unlocked('\\', out);
            putc_unlocked((int)c, out);
            i++;
        } else if (c < 0x20 || c == 0x7F) {
            switch (c) {
            case '\n': fputs("\\n", out); break;
            case '\t': fputs("\\t", out); break;
            case '\r': fputs("\\r", out); break;
            case '\b': fputs("\\b", out); break;
            case '\f': fputs("\\f", out); break;
            default: fprintf(out, "\\u%04x", c); break;
            }
            i++;
        } else {
            size_t len = wt_json_utf8_len(s + i, n - i);
            if (len == 0) {
                fputs("\xEF\xBF\xBD", out); /* U+FFFD for a byte that is not UTF-8 */
                i++;
            } else {
                fwrite_unlocked(s + i, 1, len, out);
                i += len;
            }
        }
    }
    putc_unlocked('"', out);
}

/* Decimal digits of v, without printf's format parsing (the hot call of every export). */
static void put_u64(FILE *out, uint64_t v)
{
    char buf[24];
    char *p = buf + sizeof buf;
    do {
        *--p = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    fwrite_unlocked(p, 1, (size_t)(buf + sizeof buf - p), out);
}

static void put_i64(FILE *out, int64_t v)
{
    if (v < 0) {
        putc_unlocked('-', out);
        put_u64(out, (uint64_t)0 - (uint64_t)v);
    } else {
        put_u64(out, (uint64_t)v);
    }
}

static void indent(wt_json *j)
{
    putc_unlocked('\n', j->out);
    for (int i = 0; i < j->depth; i++) {
        putc_unlocked(' ', j->out);
        putc_unlocked(' ', j->out);
    }
}

/* Separator, indentation and key before a value. */
static void prefix(wt_json *j, const char *key)
{
    if (!j->first[j->depth])
        putc_unlocked(',', j->out);
    j->first[j->depth] = 0;
    if (j->pretty && j->depth > 0)
        indent(j);
    if (!key)
        return;
    /* keys are short literals: quoted and with their colon in one write when plain, the
     * Chrome export's most frequent call */
    char buf[64];
    size_t n = 0;
    buf[n++] = '"';
    for (const char *k = key; *k; k++) {
        if (n + 4 > sizeof buf || !plain((unsigned char)*k)) {
            n = 0;
            break;
        }
        buf[n++] = *k;
    }
    if (n) {
        buf[n++] = '"';
        buf[n++] = ':';
        if (j->pretty)
            buf[n++] = ' ';
        fwrite_unlocked(buf, 1, n, j->out);
        return;
    }
    wt_json_write_escaped(j->out, key, strlen(key));
    putc_unlocked(':', j->out);
    if (j->pretty)
        putc_unlocked(' ', j->out);
}

static void open_(wt_json *j, const char *key, char c)
{
    prefix(j, key);
    putc_unlocked(c, j->out);
    if (j->depth + 1 < WT_JSON_MAX_DEPTH)
        j->depth++;
    j->first[j->depth] = 1;
}

static void close_(wt_json *j, char c)
{
    int empty = j->first[j->depth];
    if (j->depth > 0)
        j->depth--;
    if (j->pretty && !empty)
        indent(j);
    putc_unlocked(c, j->out);
}

void wt_json_object_begin(wt_json *j, const char *key) { open_(j, key, '{'); }
void wt_json_object_end(wt_json *j) { close_(j, '}'); }
void wt_json_array_begin(wt_json *j, const char *key) { open_(j, key, '['); }
void wt_json_array_end(wt_json *j) { close_(j, ']'); }

void wt_json_string_n(wt_json *j, const char *key, const char *s, size_t n)
{
    prefix(j, key);
    wt_json_write_escaped(j->out, s, n);
}

void wt_json_string(wt_json *j, const char *key, const char *s)
{
    if (!s) {
        wt_json_null(j, key);
        return;
    }
    wt_json_string_n(j, key, s, strlen(s));
}

void wt_json_int(wt_json *j, const char *key, int64_t v)
{
    prefix(j, key);
    put_i64(j->out, v);
}

void wt_json_uint(wt_json *j, const char *key, uint64_t v)
{
    prefix(j, key);
    put_u64(j->out, v);
}

void wt_json_double(wt_json *j, const char *key, double v)
{
    if (!isfinite(v)) {
        wt_json_null(j, key);
        return;
    }
    prefix(j, key);
    fprintf(j->out, "%.17g", v);
}

void wt_json_fixed(wt_json *j, const char *key, double v, int decimals)
{
    if (!isfinite(v)) {
        wt_json_null(j, key);
        return;
    }
    prefix(j, key);
    fprintf(j->out, "%.*f", decimals, v);
}

void wt_json_ns_as_us(wt_json *j, const char *key, int64_t ns)
{
    prefix(j, key);
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    if (ns < 0)
        putc_unlocked('-', j->out);
    put_u64(j->out, a / 1000);
    char frac[4] = { '.', (char)('0' + a % 1000 / 100), (char)('0' + a % 100 / 10),
                     (char)('0' + a % 10) };
    fwrite_unlocked(frac, 1, sizeof frac, j->out);
}

void wt_json_bool(wt_json *j, const char *key, int v)
{
    prefix(j, key);
    fputs(v ? "true" : "false", j->out);
}

void wt_json_null(wt_json *j, const char *key)
{
    prefix(j, key);
    fputs("null", j->out);
}

void wt_json_finish(wt_json *j) { fputc('\n', j->out); }
