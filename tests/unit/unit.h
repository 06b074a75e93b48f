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

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

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
