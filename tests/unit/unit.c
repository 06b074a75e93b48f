// SPDX-License-Identifier: GPL-2.0
/*
 * Runner of the krdmactl unit tests.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "unit.h"

static struct unit_test *head, **tail = &head;
static int failures;
static const char *skipped;
static bool quiet;

void unit_register(struct unit_test *t)
{
	t->next = NULL;
	*tail = t;
	tail = &t->next;
}

static void vfail(const char *file, int line, const char *what,
		  const char *fmt, va_list ap)
{
	failures++;
	if (quiet)
		return;
	fprintf(stdout, "    %s:%d: ", file, line);
	if (what)
		fprintf(stdout, "\"%s\": ", what);
	vfprintf(stdout, fmt, ap);
	fprintf(stdout, "\n");
}

void unit_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(file, line, NULL, fmt, ap);
	va_end(ap);
}

void unit_fail_case(const char *file, int line, const char *what,
		    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(file, line, what, fmt, ap);
	va_end(ap);
}

void unit_set_quiet(bool q)
{
	quiet = q;
}

void unit_skip(const char *why)
{
	skipped = why;
}

int unit_failures(void)
{
	return failures;
}

void unit_set_failures(int n)
{
	failures = n;
}

void capture_start(struct capture *c, bool json, bool pretty)
{
	memset(c, 0, sizeof(*c));
	c->f = open_memstream(&c->buf, &c->len);
	if (!c->f) {
		perror("open_memstream");
		exit(2);
	}
	out_init(c->f, json, pretty);
}

const char *capture_end(struct capture *c)
{
	out_flush();
	out_init(stdout, false, false);
	fclose(c->f);
	c->f = NULL;
	return c->buf;
}

void capture_free(struct capture *c)
{
	free(c->buf);
	c->buf = NULL;
}

int main(int argc, char **argv)
{
	int passed = 0, failed = 0, skips = 0;
	struct unit_test *t;

	for (t = head; t; t = t->next) {
		if (argc > 1 && !strstr(t->name, argv[1]))
			continue;
		failures = 0;
		skipped = NULL;
		t->fn();
		/* Reset global option state a test may have changed. */
		memset(&opts, 0, sizeof(opts));
		if (failures) {
			printf("FAIL %s\n", t->name);
			failed++;
		} else if (skipped) {
			printf("skip %s (%s)\n", t->name, skipped);
			skips++;
		} else {
			printf("ok   %s\n", t->name);
			passed++;
		}
		fflush(stdout);
	}
	if (skips)
		printf("(%d skipped)\n", skips);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
