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

/* The length of the valid UTF-8 sequence at s (n bytes left), or 0 when it is not valid. */
static size_t utf8_len(const unsigned char *s, size_t n)
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

void wt_json_write_escaped(FILE *out, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    fputc('"', out);
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        if (c == '"' || c == '\\') {
            fputc('\\', out);
            fputc((int)c, out);
            i++;
        } else if (c < 0x20) {
            switch (c) {
            case '\n': fputs("\\n", out); break;
            case '\t': fputs("\\t", out); break;
            case '\r': fputs("\\r", out); break;
            case '\b': fputs("\\b", out); break;
            case '\f': fputs("\\f", out); break;
            default: fprintf(out, "\\u%04x", c); break;
            }
            i++;
        } else if (c < 0x80) {
            fputc((int)c, out);
            i++;
        } else {
            size_t len = utf8_len(s + i, n - i);
            if (len == 0) {
                fputs("\xEF\xBF\xBD", out); /* U+FFFD for a byte that is not UTF-8 */
                i++;
            } else {
                fwrite(s + i, 1, len, out);
                i += len;
            }
        }
    }
    fputc('"', out);
}

/* Separator, indentation and key before a value. */
static void prefix(wt_json *j, const char *key)
{
    if (!j->first[j->depth])
        fputc(',', j->out);
    j->first[j->depth] = 0;
    if (j->pretty && j->depth > 0) {
        fputc('\n', j->out);
        for (int i = 0; i < j->depth; i++)
            fputs("  ", j->out);
    }
    if (key) {
        wt_json_write_escaped(j->out, key, strlen(key));
        fputs(j->pretty ? ": " : ":", j->out);
    }
}

static void open_(wt_json *j, const char *key, char c)
{
    prefix(j, key);
    fputc(c, j->out);
    if (j->depth + 1 < WT_JSON_MAX_DEPTH)
        j->depth++;
    j->first[j->depth] = 1;
}

static void close_(wt_json *j, char c)
{
    int empty = j->first[j->depth];
    if (j->depth > 0)
        j->depth--;
    if (j->pretty && !empty) {
        fputc('\n', j->out);
        for (int i = 0; i < j->depth; i++)
            fputs("  ", j->out);
    }
    fputc(c, j->out);
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
    fprintf(j->out, "%lld", (long long)v);
}

void wt_json_uint(wt_json *j, const char *key, uint64_t v)
{
    prefix(j, key);
    fprintf(j->out, "%llu", (unsigned long long)v);
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
