// SPDX-License-Identifier: GPL-2.0
/*
 * krdmactl: text/JSON output (see output.h).  JSON is built with json-c
 * and serialized once the outermost container is closed.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "output.h"

#define OUT_MAX_DEPTH 16

struct out_opts opts;

double bw_text(double mb_s)
{
	return opts.mib ? mb_s * 1e6 / (1 << 20) : mb_s;
}

const char *bw_text_unit(void)
{
	return opts.mib ? "MiB/s" : "MB/s";
}

void print_bw(const char *key, const char *label, double mb_s)
{
	print_float(PRINT_JSON, key, NULL, mb_s, 2);
	print_text(" %s%.2f %s", label, bw_text(mb_s), bw_text_unit());
}

static FILE *out_f;
static bool json_mode;
static bool json_pretty;
static struct json_object *stack[OUT_MAX_DEPTH];
static int depth;
static bool at_bol = true;
static bool write_error;

void out_init(FILE *f, bool json, bool pretty)
{
	out_reset();
	out_f = f;
	json_mode = json;
	json_pretty = pretty;
	at_bol = true;
	write_error = false;
}

FILE *out_file(void)
{
	return out_f ? out_f : stdout;
}

bool out_json(void)
{
	return json_mode;
}

void out_reset(void)
{
	if (depth > 0)
		json_object_put(stack[0]);
	depth = 0;
}

static void emit_root(struct json_object *root)
{
	int flags = JSON_C_TO_STRING_NOSLASHESCAPE;
	const char *s;

	flags |= json_pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED
			     : JSON_C_TO_STRING_PLAIN;
	s = json_object_to_json_string_ext(root, flags);
	if (fprintf(out_file(), "%s\n", s ? s : "null") < 0)
		write_error = true;
	if (fflush(out_file()))
		write_error = true;
}

int out_flush(void)
{
	while (depth > 0) {
		if (depth == 1) {
			emit_root(stack[0]);
			json_object_put(stack[0]);
		}
		depth--;
	}
	if (fflush(out_file()) || ferror(out_file()))
		write_error = true;
	return write_error ? -EIO : 0;
}

/* Attach o to the innermost container (taking ownership of o). */
static void json_attach(const char *key, struct json_object *o)
{
	struct json_object *top;

	if (depth == 0) {
		/* A bare value with nothing open: give it an object. */
		stack[depth++] = json_object_new_object();
	}
	top = stack[depth - 1];
	if (json_object_is_type(top, json_type_array))
		json_object_array_add(top, o);
	else
		json_object_object_add(top, key ? key : "value", o);
}

static void json_open(const char *key, struct json_object *o)
{
	if (depth >= OUT_MAX_DEPTH) {
		/* Programming error; keep the output well-formed anyway. */
		json_object_put(o);
		return;
	}
	if (depth > 0)
		json_attach(key, o);
	stack[depth++] = o;
}

static void json_close(void)
{
	if (depth == 0)
		return;
	depth--;
	if (depth == 0) {
		emit_root(stack[0]);
		json_object_put(stack[0]);
	}
}

void open_json_object(const char *key)
{
	if (json_mode)
		json_open(key, json_object_new_object());
}

void close_json_object(void)
{
	if (json_mode)
		json_close();
}

void open_json_array(const char *key)
{
	if (json_mode)
		json_open(key, json_object_new_array());
}

void close_json_array(void)
{
	if (json_mode)
		json_close();
}

static void text_write(const char *s)
{
	FILE *f = out_file();
	size_t len;

	/* " key value" fields: drop the separator at the start of a line
	 * (but keep deliberate indentation of two or more spaces). */
	if (at_bol && s[0] == ' ' && s[1] != ' ')
		s++;
	len = strlen(s);
	if (!len)
		return;
	if (fwrite(s, 1, len, f) != len)
		write_error = true;
	at_bol = s[len - 1] == '\n' || s[len - 1] == '\r';
}

static void text_vprintf(const char *fmt, va_list ap)
{
	char small[512], *buf = small;
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(small, sizeof(small), fmt, aq);
	va_end(aq);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(small)) {
		buf = malloc((size_t)n + 1);
		if (!buf) {
			write_error = true;
			return;
		}
		vsnprintf(buf, (size_t)n + 1, fmt, ap);
	}
	text_write(buf);
	if (buf != small)
		free(buf);
}

static void text_printf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	text_vprintf(fmt, ap);
	va_end(ap);
}

/* fmt is a caller-supplied format for exactly one value. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

static bool want_text(enum print_type t)
{
	return !json_mode && t != PRINT_JSON;
}

static bool want_json(enum print_type t)
{
	return json_mode && t != PRINT_TEXT;
}

void print_string(enum print_type t, const char *key, const char *fmt,
		  const char *value)
{
	if (want_json(t))
		json_attach(key, value ? json_object_new_string(value) : NULL);
	else if (want_text(t) && fmt)
		text_printf(fmt, value ? value : "");
}

void print_uint(enum print_type t, const char *key, const char *fmt,
		uint64_t value)
{
	if (want_json(t))
		json_attach(key, json_object_new_uint64(value));
	else if (want_text(t) && fmt)
		text_printf(fmt, value);
}

void print_int(enum print_type t, const char *key, const char *fmt,
	       int64_t value)
{
	if (want_json(t))
		json_attach(key, json_object_new_int64(value));
	else if (want_text(t) && fmt)
		text_printf(fmt, value);
}

void print_float(enum print_type t, const char *key, const char *fmt,
		 double value, int decimals)
{
	char buf[64];

	if (want_json(t)) {
		if (!isfinite(value)) {
			json_attach(key, NULL);
			return;
		}
		snprintf(buf, sizeof(buf), "%.*f", decimals, value);
		json_attach(key, json_object_new_double_s(value, buf));
	} else if (want_text(t) && fmt) {
		text_printf(fmt, value);
	}
}

void print_bool(enum print_type t, const char *key, const char *fmt,
		bool value)
{
	if (want_json(t))
		json_attach(key, json_object_new_boolean(value));
	else if (want_text(t) && fmt)
		text_printf(fmt, value ? "true" : "false");
}

#pragma GCC diagnostic pop

void print_json_value(const char *key, struct json_object *value)
{
	if (json_mode)
		json_attach(key, json_object_get(value));
}

void print_text(const char *fmt, ...)
{
	va_list ap;

	if (json_mode)
		return;
	va_start(ap, fmt);
	text_vprintf(fmt, ap);
	va_end(ap);
}

void print_nl(void)
{
	if (!json_mode)
		text_write("\n");
}
