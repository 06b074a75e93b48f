/* SPDX-License-Identifier: GPL-2.0 */
/*
 * krdmactl: one set of print calls feeding either text or JSON, in the
 * style of iproute2's print_*(PRINT_ANY, key, fmt, value).
 *
 * Text mode: fmt is a printf format for the single value and is written
 * to the output stream; a single leading space (but not two or more) is
 * dropped at the start of a line, so records can be built as " key value"
 * fields.
 * JSON mode: the value is stored under key in the innermost open object
 * (or appended to the innermost array); when the outermost container is
 * closed the document is written out (pretty-printed with -p) followed by
 * a newline.  Keys are ignored inside arrays.
 */
#ifndef KRDMACTL_OUTPUT_H
#define KRDMACTL_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum print_type {
	PRINT_ANY,	/* text and JSON */
	PRINT_TEXT,	/* text only */
	PRINT_JSON,	/* JSON only */
};

/* Global options shared by all commands. */
struct out_opts {
	bool json;	/* -j */
	bool pretty;	/* -p */
	bool stats;	/* -s: show statistics too */
	bool mib;	/* -M: bandwidth in text as MiB/s (2^20), as perftest */
};
extern struct out_opts opts;

/*
 * A bandwidth as text shows it: MB/s (10^6 bytes/s), or with -M the
 * MiB/s (2^20 bytes/s) of perftest's ib_*_bw "MB/sec" columns. JSON
 * keeps mb_per_s (10^6) and the exact bytes and ns whatever -M says.
 */
double bw_text(double mb_s);
const char *bw_text_unit(void);	/* "MB/s" or "MiB/s" */
/* A bandwidth: JSON key = @mb_s (10^6 bytes/s), text " @label%.2f UNIT". */
void print_bw(const char *key, const char *label, double mb_s);

void out_init(FILE *f, bool json, bool pretty);
FILE *out_file(void);
bool out_json(void);
/* Drop any JSON document being built (after an error). */
void out_reset(void);
/* 0 if everything was written, -EIO otherwise (checks the stream). */
int out_flush(void);

void open_json_object(const char *key);
void close_json_object(void);
void open_json_array(const char *key);
void close_json_array(void);

void print_string(enum print_type t, const char *key, const char *fmt,
		  const char *value);
void print_uint(enum print_type t, const char *key, const char *fmt,
		uint64_t value);
void print_int(enum print_type t, const char *key, const char *fmt,
	       int64_t value);
/* JSON gets the value rounded to the given number of decimals. */
void print_float(enum print_type t, const char *key, const char *fmt,
		 double value, int decimals);
void print_bool(enum print_type t, const char *key, const char *fmt,
		bool value);
/* JSON only: a value as it is, null included (a reference is taken). */
struct json_object;
void print_json_value(const char *key, struct json_object *value);
/* Text only, printf-style. */
void print_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* End of a text line (nothing in JSON). */
void print_nl(void);

#endif /* KRDMACTL_OUTPUT_H */
