/* A streaming JSON writer: what every --json output and the Chrome export go through, so
 * escaping is done once and right. Nothing is buffered beyond stdio; memory is constant.
 *
 * Values are written with a key inside objects and with key NULL inside arrays. Strings are
 * escaped for any input: quotes, backslashes, control characters, and bytes that are not valid
 * UTF-8 (each becomes U+FFFD), so the output is always valid JSON. Non-finite numbers become
 * null. */
#ifndef WT_JSON_H
#define WT_JSON_H

#include <stdint.h>
#include <stdio.h>

#define WT_JSON_MAX_DEPTH 32

typedef struct wt_json {
    FILE *out;
    int depth;
    int pretty;                           /* newline + indentation per value */
    unsigned char first[WT_JSON_MAX_DEPTH]; /* no value written yet at this depth */
} wt_json;

void wt_json_init(wt_json *j, FILE *out, int pretty);
void wt_json_object_begin(wt_json *j, const char *key);
void wt_json_object_end(wt_json *j);
void wt_json_array_begin(wt_json *j, const char *key);
void wt_json_array_end(wt_json *j);
void wt_json_string(wt_json *j, const char *key, const char *s); /* NULL writes null */
void wt_json_string_n(wt_json *j, const char *key, const char *s, size_t n);
void wt_json_int(wt_json *j, const char *key, int64_t v);
void wt_json_uint(wt_json *j, const char *key, uint64_t v);
void wt_json_double(wt_json *j, const char *key, double v); /* %.17g, shortest round trip not needed */
void wt_json_fixed(wt_json *j, const char *key, double v, int decimals); /* %.Nf */
/* Nanoseconds as microseconds with exactly three decimals, computed in integers (exact for
 * any int64, unlike a double): 1234567 ns -> 1234.567. */
void wt_json_ns_as_us(wt_json *j, const char *key, int64_t ns);
void wt_json_bool(wt_json *j, const char *key, int v);
void wt_json_null(wt_json *j, const char *key);
/* Ends the document with a newline (call after the outermost value). */
void wt_json_finish(wt_json *j);

/* Writes `s` (n bytes) as a quoted, escaped JSON string to `out`. */
void wt_json_write_escaped(FILE *out, const char *s, size_t n);
/* Whether wt_json_write_escaped() writes every byte of s (n bytes) as it is: printable ASCII
 * but '"' and '\\'. Eight bytes a step, for writers that check each new string (dump --json
 * over a label per span). */
int wt_json_plain(const char *s, size_t n);

/* The length of the valid UTF-8 sequence at s (n >= 1 bytes left; RFC 3629: no overlongs, no
 * surrogates, nothing above U+10FFFF), or 0 when the byte at s does not start one. Shared with
 * the other writers that must emit valid UTF-8 (Perfetto strings, dump's text). */
size_t wt_json_utf8_len(const unsigned char *s, size_t n);

/* Room for a label made safe by wt_text_safe(): enough for any table cell. */
#define WT_TEXT_SAFE_MAX 1024

/* A string from a trace made safe for a line of text output (tables, anomaly lines): each byte
 * that does not start valid UTF-8 and each control character (below 0x20, 0x7F), which could
 * break a table line or drive a terminal, becomes U+FFFD. Returns s itself when there is
 * nothing to replace (NULL gives ""), else buf (`size` bytes, at least 4), cut at a character
 * boundary when it does not fit. The one helper of every text output. */
const char *wt_text_safe(const char *s, char *buf, size_t size);
/* wt_text_safe() into the array `b`. */
#define WT_TEXT_SAFE(b, s) wt_text_safe((s), (b), sizeof(b))

#endif
