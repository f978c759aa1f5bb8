/* The byte layout of a .wtrace file: constants and LEB128 varints shared by the encoder
 * (write side) and the reader. docs/FORMAT.md is the specification; this header and it must
 * agree. Nothing outside libtrace/src includes this file. */
#ifndef WT_FORMAT_H
#define WT_FORMAT_H

#include <stddef.h>
#include <stdint.h>

/* The header is a zstd skippable frame with this magic (0x184D2A50 + 7), carrying
 * "WTRACE" + major u16 + minor u16 + fields. */
#define WT__SKIPPABLE_MAGIC 0x184D2A57u
#define WT__ZSTD_MAGIC 0xFD2FB528u
#define WT__HEADER_MAGIC "WTRACE"
#define WT__HEADER_MAGIC_LEN 6
#define WT__FORMAT_MAJOR 1
#define WT__FORMAT_MINOR 1

/* A data frame holds at most this many bytes of records once decompressed. The writer keeps
 * well under it (WT__FRAME_TARGET); the reader refuses a frame that declares more, so a hostile
 * file cannot make it allocate more than this per frame. */
#define WT__FRAME_MAX (4u << 20)
#define WT__FRAME_TARGET (1u << 20)
/* The header payload's limit, for the same reason. */
#define WT__HEADER_MAX (64u << 10)
/* One string's limit; longer strings are cut by the recorder. */
#define WT__STRING_MAX 4096u
/* The strings one file may define, by count and by bytes (each string's length + 1): the
 * reader holds no more, and the recorder defines no more (later new strings become one
 * marker string). Both sides take these from here so they cannot disagree. */
#define WT__STRINGS_MAX (4u << 20)
#define WT__STRING_BYTES_MAX (128u << 20)

/* Header field ids: field id varint, length varint, bytes. Unknown ids are skipped. */
enum wt__hfield {
    WT__H_PID = 1,           /* varint */
    WT__H_PROCESS_START = 2, /* varint, CLOCK_MONOTONIC ns */
    WT__H_OPEN = 3,          /* varint, CLOCK_MONOTONIC ns */
    WT__H_ANCHOR_MONO = 4,   /* varint ns */
    WT__H_ANCHOR_REAL = 5,   /* varint ns since the epoch */
    WT__H_CLOCK = 6,         /* string */
    WT__H_TSC_HZ = 7,        /* varint, Hz */
    WT__H_HOST = 8,          /* string */
    WT__H_CMDLINE = 9,       /* string */
    WT__H_RECORDER = 10,     /* string */
    /* 1.1 */
    WT__H_PARENT_PID = 11,   /* varint: the pid this process was forked from, else getppid() */
    WT__H_RUN_ID = 12,       /* 16 random bytes made at open */
    WT__H_BOOT_ID = 13,      /* string: /proc/sys/kernel/random/boot_id */
    WT__H_ANCHOR_ERR = 14    /* varint ns: the monotonic gap around the realtime read */
};
#define WT__RUN_ID_LEN 16

/* Record types inside data frames. */
enum wt__rtype {
    WT__R_STRING = 0x01,      /* id, len, bytes */
    WT__R_THREAD = 0x02,      /* tid, base ts (absolute ns): following records are this thread's */
    WT__R_SPAN = 0x03,        /* flags, end delta, dur, depth, category, label, [count] [bytes] [detail] */
    WT__R_COUNTER = 0x04,     /* ts delta, name, zigzag value */
    WT__R_MARK = 0x05,        /* ts delta, category, label, detail */
    WT__R_META = 0x06,        /* ts delta, key, value */
    WT__R_THREAD_NAME = 0x07, /* ts delta, name */
    WT__R_ROUND = 0x08,       /* end delta, dur, config, zigzag round */
    WT__R_SYNC = 0x09,        /* absolute ts */
    WT__R_END = 0x0A,         /* absolute ts, reason, signal */
    WT__R_DROPPED = 0x0B      /* ts delta, count */
};

/* Span flags byte. */
#define WT__SF_CACHED_MASK 0x03u /* wt_cached */
#define WT__SF_COUNT 0x04u       /* a count other than 1 follows */
#define WT__SF_BYTES 0x08u       /* bytes follow */
#define WT__SF_DETAIL 0x10u      /* a detail string id follows */
#define WT__SF_UNCLOSED 0x20u
#define WT__SF_MEASURED 0x40u
#define WT__SF_KNOWN 0x7Fu       /* a set bit outside these is corruption */

/* End record reasons. */
#define WT__END_CLEAN 1u
#define WT__END_SIGNAL 2u

/* The longest a varint may be: 10 bytes carry 64 bits. */
#define WT__VARINT_MAX 10

static inline size_t wt__put_varint(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

static inline uint64_t wt__zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }

static inline int64_t wt__unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

/* Reads a varint from [*p, end). Returns 0 and advances *p, or -1 when the bytes end first or
 * the varint is longer than 10 bytes / overflows 64 bits. */
static inline int wt__get_varint(const uint8_t **p, const uint8_t *end, uint64_t *out)
{
    uint64_t v = 0;
    const uint8_t *q = *p;
    /* most varints of a trace (ids, small deltas) are one byte */
    if (q < end && *q < 0x80) {
        *out = *q;
        *p = q + 1;
        return 0;
    }
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (q >= end)
            return -1;
        uint8_t b = *q++;
        if (shift == 63 && b > 1)
            return -1; /* more than 64 bits */
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *p = q;
            *out = v;
            return 0;
        }
    }
    return -1;
}

static inline void wt__put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static inline uint32_t wt__get_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

#endif
