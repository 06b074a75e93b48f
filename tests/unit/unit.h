/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal unit test framework for krdmactl.
 *
 *	TEST(name) { CHECK(x == 1); CHECK_STR(s, "abc"); }
 *
 * A table of cases checks each row with CHECK*_CASE(row's input, ...),
 * so that a failure names the row, not only a line.
 *
 * Tests register themselves; the runner (unit.c) runs them all, prints
 * one line per test and ends with "N passed, M failed".
 */
#ifndef KRDMA_UNIT_H
#define KRDMA_UNIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct unit_test {
	const char *name;
	void (*fn)(void);
	struct unit_test *next;
};

void unit_register(struct unit_test *t);
void unit_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same, after "@what": when @what is not NULL (a row of a table). */
void unit_fail_case(const char *file, int line, const char *what,
		    const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void unit_skip(const char *why);
/* Failures recorded so far in the running test. */
int unit_failures(void);
void unit_set_failures(int n);
/* Don't print failure details (for the framework's self-test). */
void unit_set_quiet(bool q);

#define TEST(name)							\
	static void name(void);						\
	static struct unit_test name##_test = { #name, name, NULL };	\
	__attribute__((constructor)) static void name##_register(void)	\
	{								\
		unit_register(&name##_test);				\
	}								\
	static void name(void)

/*
 * CHECK*(...) and, for a row of a table, CHECK*_CASE(what, ...): the
 * failure of the latter names the row by @what (a string: its input,
 * say), as "what": before the rest.
 */
#define CHECK(cond)		UNIT_CHECK(NULL, cond, #cond)
#define CHECK_CASE(what, cond)	UNIT_CHECK(what, cond, #cond)
#define CHECK_INT(a, b)		UNIT_CHECK_INT(NULL, a, b, #a, #b)
#define CHECK_INT_CASE(what, a, b) UNIT_CHECK_INT(what, a, b, #a, #b)
#define CHECK_U64(a, b)		UNIT_CHECK_U64(NULL, a, b, #a, #b)
#define CHECK_U64_CASE(what, a, b) UNIT_CHECK_U64(what, a, b, #a, #b)
#define CHECK_STR(a, b)		UNIT_CHECK_STR(NULL, a, b, #a, #b)
#define CHECK_STR_CASE(what, a, b) UNIT_CHECK_STR(what, a, b, #a, #b)
/* String @s has @part in it (or lacks it); a NULL @part is not checked. */
#define CHECK_HAS_CASE(what, s, part)	UNIT_CHECK_HAS(what, s, part, true, #s)
#define CHECK_LACKS_CASE(what, s, part)	UNIT_CHECK_HAS(what, s, part, false, #s)

#define UNIT_CHECK(what, cond, s)					\
	do {								\
		if (!(cond))						\
			unit_fail_case(__FILE__, __LINE__, what, "%s", s); \
	} while (0)

#define UNIT_CHECK_INT(what, a, b, sa, sb)				\
	do {								\
		long long a_ = (long long)(a), b_ = (long long)(b);	\
		if (a_ != b_)						\
			unit_fail_case(__FILE__, __LINE__, what,	\
				       "%s == %s: got %lld, want %lld",	\
				       sa, sb, a_, b_);			\
	} while (0)

#define UNIT_CHECK_U64(what, a, b, sa, sb)				\
	do {								\
		unsigned long long a_ = (a), b_ = (b);			\
		if (a_ != b_)						\
			unit_fail_case(__FILE__, __LINE__, what,	\
				       "%s == %s: got %llu, want %llu",	\
				       sa, sb, a_, b_);			\
	} while (0)

#define UNIT_CHECK_STR(what, a, b, sa, sb)				\
	do {								\
		const char *a_ = (a), *b_ = (b);			\
		if (!a_ || !b_ || strcmp(a_, b_))			\
			unit_fail_case(__FILE__, __LINE__, what,	\
				       "%s == %s: got \"%s\", want \"%s\"", \
				       sa, sb, a_ ? a_ : "(null)",	\
				       b_ ? b_ : "(null)");		\
	} while (0)

#define UNIT_CHECK_HAS(what, s, part, has, ss)				\
	do {								\
		const char *s_ = (s), *p_ = (part);			\
		if (p_ && (strstr(s_, p_) != NULL) != (has))		\
			unit_fail_case(__FILE__, __LINE__, what,	\
				       "%s %s \"%s\": it is \"%s\"", ss,	\
				       (has) ? "lacks" : "has", p_, s_); \
	} while (0)

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/*
 * What a JSON document must hold at @path: keys and array indexes,
 * "/" between them ("results/0/lat/p99_9_ns"; "" the document itself).
 */
struct json_want {
	const char *path;	/* NULL ends the list */
	enum {
		JSON_IS_INT,	/* an integer, @i */
		JSON_IS_AT_LEAST,	/* an integer, @i or more */
		JSON_IS_STRING,	/* a string, @s */
		JSON_IS_BOOL,	/* a boolean, @i: 1 true, 0 false */
		JSON_IS_DOUBLE,	/* a number, @lo exactly */
		JSON_IS_BETWEEN,	/* a number, more than @lo, less than @hi */
		JSON_IS_ARRAY,	/* of @i elements */
		JSON_IS_OBJECT,	/* of @i keys */
		JSON_IS_NULL,
		JSON_IS_THERE,	/* whatever it is, null too */
		JSON_IS_ABSENT,
	} is;
	int64_t i;
	const char *s;
	double lo, hi;
};

#define JSON_NUM(p, v)	{ .path = (p), .is = JSON_IS_INT, .i = (v) }
#define JSON_MIN(p, v)	{ .path = (p), .is = JSON_IS_AT_LEAST, .i = (v) }
#define JSON_STRING(p, v)	{ .path = (p), .is = JSON_IS_STRING, .s = (v) }
#define JSON_TRUE(p)	{ .path = (p), .is = JSON_IS_BOOL, .i = 1 }
#define JSON_FALSE(p)	{ .path = (p), .is = JSON_IS_BOOL, .i = 0 }
#define JSON_DOUBLE(p, v)	{ .path = (p), .is = JSON_IS_DOUBLE, .lo = (v) }
#define JSON_BETWEEN(p, l, h)						\
	{ .path = (p), .is = JSON_IS_BETWEEN, .lo = (l), .hi = (h) }
#define JSON_LEN(p, n)	{ .path = (p), .is = JSON_IS_ARRAY, .i = (n) }
#define JSON_NULL(p)	{ .path = (p), .is = JSON_IS_NULL }
#define JSON_HAS(p)	{ .path = (p), .is = JSON_IS_THERE }
#define JSON_NO(p)	{ .path = (p), .is = JSON_IS_ABSENT }
#define JSON_KEYS(p, n)	{ .path = (p), .is = JSON_IS_OBJECT, .i = (n) }

/*
 * Each of @want (up to @n, or its first with no path) in the JSON
 * document @out; a failure names @what, the path, what is there and what
 * was wanted.
 */
void check_json(const char *what, const char *out,
		const struct json_want *want, size_t n);

/* Capture what the output layer (tools/output.c) writes. */
struct capture {
	char *buf;
	size_t len;
	FILE *f;
};
void capture_start(struct capture *c, bool json, bool pretty);
/* Flushes the output layer and closes the stream; c->buf stays valid
 * until capture_free(). */
const char *capture_end(struct capture *c);
void capture_free(struct capture *c);

#endif /* KRDMA_UNIT_H */
