// SPDX-License-Identifier: GPL-2.0
/*
 * Runner of the krdmactl unit tests.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

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

/*
 * The value at @path in @o (json-c's NULL for a JSON null); false if
 * there is none.
 */
static bool json_at(struct json_object *o, const char *path,
		    struct json_object **v)
{
	char key[64];
	size_t n;
	char *end;
	long i;

	while (*path) {
		n = strcspn(path, "/");
		if (!o || n >= sizeof(key))
			return false;
		memcpy(key, path, n);
		key[n] = '\0';
		path += n + (path[n] == '/');
		if (json_object_is_type(o, json_type_array)) {
			i = strtol(key, &end, 10);
			if (*end || end == key || i < 0 ||
			    (size_t)i >= json_object_array_length(o))
				return false;
			o = json_object_array_get_idx(o, (size_t)i);
		} else if (!json_object_is_type(o, json_type_object) ||
			   !json_object_object_get_ex(o, key, &o)) {
			return false;
		}
	}
	*v = o;
	return true;
}

/* A JSON number: krdmactl writes a whole one without a fraction. */
static bool is_number(struct json_object *v)
{
	return json_object_is_type(v, json_type_double) ||
	       json_object_is_type(v, json_type_int);
}

static bool json_holds(struct json_object *doc, const struct json_want *w)
{
	struct json_object *v;
	bool there = json_at(doc, w->path, &v);

	if (w->is == JSON_IS_ABSENT)
		return !there;
	if (!there)
		return false;
	switch (w->is) {
	case JSON_IS_INT:
		return json_object_is_type(v, json_type_int) &&
		       json_object_get_int64(v) == w->i;
	case JSON_IS_AT_LEAST:
		return json_object_is_type(v, json_type_int) &&
		       json_object_get_int64(v) >= w->i;
	case JSON_IS_STRING:
		return json_object_is_type(v, json_type_string) &&
		       !strcmp(json_object_get_string(v), w->s);
	case JSON_IS_BOOL:
		return json_object_is_type(v, json_type_boolean) &&
		       json_object_get_boolean(v) == !!w->i;
	case JSON_IS_DOUBLE:
		return is_number(v) && json_object_get_double(v) == w->lo;
	case JSON_IS_BETWEEN:
		return is_number(v) && json_object_get_double(v) > w->lo &&
		       json_object_get_double(v) < w->hi;
	case JSON_IS_ARRAY:
		return json_object_is_type(v, json_type_array) &&
		       json_object_array_length(v) == (size_t)w->i;
	case JSON_IS_OBJECT:
		return json_object_is_type(v, json_type_object) &&
		       json_object_object_length(v) == w->i;
	case JSON_IS_NULL:
		return !v;
	case JSON_IS_THERE:
	case JSON_IS_ABSENT:
		break;
	}
	return true;
}

/* What @w wants, in words. */
static void json_want_str(const struct json_want *w, char *buf, size_t len)
{
	switch (w->is) {
	case JSON_IS_INT:
		snprintf(buf, len, "%lld", (long long)w->i);
		break;
	case JSON_IS_AT_LEAST:
		snprintf(buf, len, "at least %lld", (long long)w->i);
		break;
	case JSON_IS_STRING:
		snprintf(buf, len, "\"%s\"", w->s);
		break;
	case JSON_IS_BOOL:
		snprintf(buf, len, "%s", w->i ? "true" : "false");
		break;
	case JSON_IS_DOUBLE:
		snprintf(buf, len, "%g", w->lo);
		break;
	case JSON_IS_BETWEEN:
		snprintf(buf, len, "between %g and %g", w->lo, w->hi);
		break;
	case JSON_IS_ARRAY:
		snprintf(buf, len, "an array of %lld", (long long)w->i);
		break;
	case JSON_IS_OBJECT:
		snprintf(buf, len, "an object of %lld keys", (long long)w->i);
		break;
	case JSON_IS_NULL:
		snprintf(buf, len, "null");
		break;
	case JSON_IS_THERE:
		snprintf(buf, len, "anything");
		break;
	case JSON_IS_ABSENT:
		snprintf(buf, len, "nothing");
		break;
	}
}

void check_json(const char *what, const char *out,
		const struct json_want *want, size_t n)
{
	struct json_object *doc, *v;
	char w[128];
	size_t i;

	if (!n || !want->path)
		return;
	doc = json_tokener_parse(out);
	if (!doc) {
		unit_fail_case(__FILE__, __LINE__, what, "not JSON: %s", out);
		return;
	}
	for (i = 0; i < n && want[i].path; i++) {
		if (json_holds(doc, &want[i]))
			continue;
		json_want_str(&want[i], w, sizeof(w));
		unit_fail_case(__FILE__, __LINE__, what,
			       "JSON \"%s\": got %s, want %s", want[i].path,
			       json_at(doc, want[i].path, &v) ?
			       json_object_to_json_string(v) : "nothing", w);
	}
	json_object_put(doc);
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
