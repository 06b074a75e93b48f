/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal unit test framework for krdmactl.
 *
 *	TEST(name) { CHECK(x == 1); CHECK_STR(s, "abc"); }
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

#define CHECK(cond)							\
	do {								\
		if (!(cond))						\
			unit_fail(__FILE__, __LINE__, "%s", #cond);	\
	} while (0)

#define CHECK_INT(a, b)							\
	do {								\
		long long a_ = (long long)(a), b_ = (long long)(b);	\
		if (a_ != b_)						\
			unit_fail(__FILE__, __LINE__,			\
				  "%s == %s: got %lld, want %lld",	\
				  #a, #b, a_, b_);			\
	} while (0)

#define CHECK_U64(a, b)							\
	do {								\
		unsigned long long a_ = (a), b_ = (b);			\
		if (a_ != b_)						\
			unit_fail(__FILE__, __LINE__,			\
				  "%s == %s: got %llu, want %llu",	\
				  #a, #b, a_, b_);			\
	} while (0)

#define CHECK_STR(a, b)							\
	do {								\
		const char *a_ = (a), *b_ = (b);			\
		if (!a_ || !b_ || strcmp(a_, b_))			\
			unit_fail(__FILE__, __LINE__,			\
				  "%s == %s: got \"%s\", want \"%s\"",	\
				  #a, #b, a_ ? a_ : "(null)",		\
				  b_ ? b_ : "(null)");			\
	} while (0)

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
