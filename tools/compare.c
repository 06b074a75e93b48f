// SPDX-License-Identifier: GPL-2.0
/*
 * krdmactl compare: a result (krdmactl -j test run ...) against a stored
 * baseline - which figures moved beyond a tolerance, which way, and what
 * in the environment differed - so that a regression is found by a
 * script, not by reading two tables.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "cmd.h"
#include "output.h"
#include "report.h"

#define COMPARE_TOLERANCE_DFLT	1000	/* hundredths of a percent: 10% */
#define COMPARE_TOLERANCE_MAX	100000	/* 1000% */
/* A results file larger than this is not krdmactl's. */
#define COMPARE_FILE_MAX	(64 << 20)

struct metric {
	const char *key;	/* in the record, or in its "lat" */
	bool lat;
	bool lower_is_better;
};

static const struct metric metrics[] = {
	{ "mb_per_s", false, false },
	{ "msgs_per_s", false, false },
	{ "min_qp_mb_per_s", false, false },
	{ "p50_ns", true, true },
	{ "p99_ns", true, true },
	{ "p99_9_ns", true, true },
};

/* What tells two results apart: the same test, measured twice. */
static const char *const test_keys[] = { "op", "mode", "size", "qps", "bidir" };

struct compare_state {
	unsigned int compared;
	unsigned int worse;
	unsigned int better;
	unsigned int unmatched;
	double tolerance;
	const char *result, *baseline;	/* the files' names */
};

/* The whole of @path, NUL-terminated; NULL after saying why. */
static char *read_whole(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t n;

	if (!f) {
		fprintf(stderr, "krdmactl: compare: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	buf = malloc(COMPARE_FILE_MAX + 1);
	n = buf ? fread(buf, 1, COMPARE_FILE_MAX + 1, f) : 0;
	if (!buf || ferror(f) || n > COMPARE_FILE_MAX) {
		fprintf(stderr, "krdmactl: compare: %s: %s\n", path,
			!buf ? strerror(ENOMEM) : ferror(f) ? strerror(EIO) :
			"larger than 64 MiB: not a results file");
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/*
 * What went wrong at a parse error, in a few words of our own: json-c's
 * own text names its tokenizer's states, not the user's file.
 */
static const char *json_problem(enum json_tokener_error e)
{
	switch (e) {
	case json_tokener_continue:
		return "the file ends inside a value";
	case json_tokener_error_depth:
		return "nested too deeply";
	case json_tokener_error_parse_number:
		return "a malformed number";
	case json_tokener_error_parse_string:
	case json_tokener_error_parse_utf8_string:
		return "a malformed string";
	case json_tokener_error_parse_object_key_name:
	case json_tokener_error_parse_object_key_sep:
	case json_tokener_error_parse_object_value_sep:
		return "a malformed object";
	case json_tokener_error_parse_array:
		return "a malformed array";
	default:
		return "unexpected character";
	}
}

/* One line for a file that is not JSON: where, and what, from 1. */
static void json_error(const char *path, const char *buf, size_t off,
		       const char *what)
{
	unsigned int line = 1, col = 1;
	size_t i;

	for (i = 0; i < off; i++) {
		if (buf[i] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	fprintf(stderr, "krdmactl: compare: %s: not JSON at line %u, column %u: %s\n",
		path, line, col, what);
}

/* @buf parsed as one JSON value, nothing but white space after it. */
static json_object *parse_json(const char *path, const char *buf, size_t len)
{
	struct json_tokener *tok = json_tokener_new();
	enum json_tokener_error err;
	json_object *o;
	size_t end;

	if (!tok) {
		fprintf(stderr, "krdmactl: compare: %s\n", strerror(ENOMEM));
		return NULL;
	}
	o = len > INT32_MAX ? NULL : json_tokener_parse_ex(tok, buf, (int)len);
	err = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (!o && err == json_tokener_continue &&
	    strspn(buf, " \t\r\n") == len) {
		fprintf(stderr, "krdmactl: compare: %s: empty, not JSON\n", path);
		return NULL;
	}
	if (!o) {
		json_error(path, buf, err == json_tokener_continue ? len : end,
			   json_problem(err));
		return NULL;
	}
	end += strspn(buf + end, " \t\r\n");
	if (end < len) {
		json_error(path, buf, end, "more after the end of the JSON value");
		json_object_put(o);
		return NULL;
	}
	return o;
}

/*
 * The schema versions of results (report.h): 3 since "test run" prints
 * one document, its records in "results" and its env once; 2 since the
 * latency keys lost their dots, each record (an object, or an array of
 * them for a sweep) with its own version and env; 1 before, when records
 * had no schema_version.
 * An older record is read as the current one; a newer one is refused:
 * what it changed cannot be guessed, and a figure read under the wrong
 * name would be compared wrongly or silently not at all.
 */
static const struct {
	const char *v1, *v2;
} lat_keys_v1[] = {
	{ "p99.9_ns", "p99_9_ns" },
};

static void migrate_v1(json_object *r)
{
	json_object *lat, *v;
	size_t i;

	if (!json_object_object_get_ex(r, "lat", &lat) ||
	    !json_object_is_type(lat, json_type_object))
		return;
	for (i = 0; i < ARRAY_SIZE(lat_keys_v1); i++) {
		if (!json_object_object_get_ex(lat, lat_keys_v1[i].v1, &v))
			continue;
		json_object_object_add(lat, lat_keys_v1[i].v2,
				       json_object_get(v));
		json_object_object_del(lat, lat_keys_v1[i].v1);
	}
}

/* What a JSON value is, in a message: "a string, not a number". */
static const char *json_kind(json_object *o)
{
	switch (json_object_get_type(o)) {
	case json_type_null:
		return "null";
	case json_type_boolean:
		return "a boolean";
	case json_type_int:
	case json_type_double:
		return "a number";
	case json_type_string:
		return "a string";
	case json_type_array:
		return "an array";
	case json_type_object:
		return "an object";
	}
	return "unknown";
}

/*
 * 0, or -1 after saying why record @i of @path cannot be compared: each
 * figure compare reads is a number or null (not measured), "lat" an
 * object. A figure written as a string ("900") is not krdmactl's and is
 * refused, not read as the number it looks like.
 */
static int check_figures(const char *path, size_t i, json_object *r)
{
	json_object *lat = NULL, *o, *v;
	size_t k;

	if (json_object_object_get_ex(r, "lat", &lat) && lat &&
	    !json_object_is_type(lat, json_type_object)) {
		fprintf(stderr, "krdmactl: compare: %s: record %zu: lat is %s, not an object\n",
			path, i + 1, json_kind(lat));
		return -1;
	}
	for (k = 0; k < ARRAY_SIZE(metrics); k++) {
		o = metrics[k].lat ? lat : r;
		if (!o || !json_object_object_get_ex(o, metrics[k].key, &v) ||
		    !v || json_object_is_type(v, json_type_int) ||
		    json_object_is_type(v, json_type_double))
			continue;
		fprintf(stderr, "krdmactl: compare: %s: record %zu: %s%s is %s, not a number\n",
			path, i + 1, metrics[k].lat ? "lat." : "",
			metrics[k].key, json_kind(v));
		return -1;
	}
	return 0;
}

/*
 * 0, or -1 after saying why the records of @path cannot be compared:
 * each an object of a schema this krdmactl reads (an older one migrated),
 * its figures numbers, and at least one a test's result. @doc_ver: the
 * schema of the document that lists them in its "results" (3 on); 0 for
 * the older shapes, one record or an array of them, each of its own
 * schema_version (none: 1).
 */
static int check_records(const char *path, json_object *records,
			 int64_t doc_ver)
{
	unsigned int migrated = 0, tests = 0;
	size_t i;

	for (i = 0; i < json_object_array_length(records); i++) {
		json_object *r = json_object_array_get_idx(records, i), *v;
		int64_t ver = doc_ver ? doc_ver : 1;

		if (!json_object_is_type(r, json_type_object)) {
			fprintf(stderr, "krdmactl: compare: %s: record %zu is %s, not an object (a test's result)\n",
				path, i + 1, json_kind(r));
			return -1;
		}
		if (!doc_ver &&
		    json_object_object_get_ex(r, "schema_version", &v)) {
			ver = json_object_is_type(v, json_type_int) ?
			      json_object_get_int64(v) : 0;
			if (ver < 1) {
				fprintf(stderr, "krdmactl: compare: %s: record %zu: schema_version %s is not a version\n",
					path, i + 1, json_object_to_json_string(v));
				return -1;
			}
		}
		if (ver > REPORT_SCHEMA_VERSION) {
			fprintf(stderr, "krdmactl: compare: %s: record %zu has schema_version %" PRId64 ", newer than the %d this krdmactl reads: compare with a newer krdmactl\n",
				path, i + 1, ver, REPORT_SCHEMA_VERSION);
			return -1;
		}
		/* Schema 3 on: records only in a document's "results". */
		if (!doc_ver && ver >= 3) {
			fprintf(stderr, "krdmactl: compare: %s: record %zu has schema_version %" PRId64 " outside a \"results\" list: not krdmactl's\n",
				path, i + 1, ver);
			return -1;
		}
		if (ver == 1) {
			migrate_v1(r);
			migrated++;
		}
		if (check_figures(path, i, r))
			return -1;
		if (json_object_object_get_ex(r, "op", &v))
			tests++;
	}
	if (!tests) {
		fprintf(stderr, "krdmactl: compare: %s: no test results in it (records with an op, from krdmactl -j test run)\n",
			path);
		return -1;
	}
	if (migrated)
		fprintf(stderr, "krdmactl: compare: %s: %u record%s of schema 1 (no schema_version) read as schema %d\n",
			path, migrated, migrated == 1 ? "" : "s",
			REPORT_SCHEMA_VERSION);
	return 0;
}

/*
 * Schema 3 on, one document {"schema_version", "results", "env"}: its
 * version (0 after saying why it is not one this krdmactl reads), and
 * its records each given the document's env, as the older records had
 * their own, so that both compare alike.
 */
static int64_t doc_records(const char *path, json_object *doc,
			   json_object *list)
{
	json_object *v = NULL, *env = NULL;
	int64_t ver = 0;
	size_t i;

	if (json_object_object_get_ex(doc, "schema_version", &v) &&
	    json_object_is_type(v, json_type_int))
		ver = json_object_get_int64(v);
	if (ver > REPORT_SCHEMA_VERSION) {
		fprintf(stderr, "krdmactl: compare: %s: schema_version %" PRId64 " is newer than the %d this krdmactl reads: compare with a newer krdmactl\n",
			path, ver, REPORT_SCHEMA_VERSION);
		return 0;
	}
	if (ver < 3) {
		fprintf(stderr, "krdmactl: compare: %s: \"results\" in a document of schema_version %s, not 3 or later: not krdmactl's\n",
			path, v ? json_object_to_json_string(v) : "(none)");
		return 0;
	}
	if (!json_object_is_type(list, json_type_array)) {
		fprintf(stderr, "krdmactl: compare: %s: results is %s, not an array\n",
			path, json_kind(list));
		return 0;
	}
	json_object_object_get_ex(doc, "env", &env);
	for (i = 0; env && i < json_object_array_length(list); i++) {
		json_object *r = json_object_array_get_idx(list, i);

		if (json_object_is_type(r, json_type_object) &&
		    !json_object_object_get_ex(r, "env", NULL))
			json_object_object_add(r, "env", json_object_get(env));
	}
	return ver;
}

/*
 * A file's results, as an array of records: schema 3's document (its
 * "results"), or what krdmactl wrote before - one record (a single
 * size), or an array of records (a sweep).
 */
static json_object *load_results(const char *path)
{
	json_object *o, *a, *list = NULL;
	int64_t doc_ver = 0;
	size_t len;
	char *buf;

	buf = read_whole(path, &len);
	if (!buf)
		return NULL;
	o = parse_json(path, buf, len);
	free(buf);
	if (!o)
		return NULL;
	if (json_object_is_type(o, json_type_object) &&
	    json_object_object_get_ex(o, "results", &list)) {
		doc_ver = doc_records(path, o, list);
		if (!doc_ver) {
			json_object_put(o);
			return NULL;
		}
		a = json_object_get(list);
		json_object_put(o);
	} else if (json_object_is_type(o, json_type_array)) {
		a = o;
	} else if (json_object_is_type(o, json_type_object)) {
		a = json_object_new_array();
		json_object_array_add(a, o);
	} else {
		fprintf(stderr, "krdmactl: compare: %s: %s, not results (krdmactl -j test run writes an object)\n",
			path, json_kind(o));
		json_object_put(o);
		return NULL;
	}
	if (check_records(path, a, doc_ver)) {
		json_object_put(a);
		return NULL;
	}
	return a;
}

/* A value in text: JSON null (json-c's NULL) as "-", like the env line. */
static const char *str_of(json_object *o)
{
	return o ? json_object_get_string(o) : "-";
}

static bool same_test(json_object *a, json_object *b)
{
	json_object *va, *vb;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(test_keys); i++) {
		bool ha = json_object_object_get_ex(a, test_keys[i], &va);
		bool hb = json_object_object_get_ex(b, test_keys[i], &vb);

		if (ha != hb)
			return false;
		/* By value and type: null is not the string "null". */
		if (ha && !json_object_equal(va, vb))
			return false;
	}
	return true;
}

/* A record worth comparing: a test that ran to its end without error. */
static bool usable(json_object *r)
{
	json_object *v;

	return json_object_is_type(r, json_type_object) &&
	       json_object_object_get_ex(r, "op", &v) &&
	       (!json_object_object_get_ex(r, "status", &v) ||
		json_object_get_int(v) == 0);
}

/*
 * A figure of a record, a number (check_records() saw to that): 1, and
 * its value in *v; 0 if the record has none; -1 if it is null (not
 * measured: not 0).
 */
static int get_metric(json_object *r, const struct metric *m, double *v)
{
	json_object *o = r, *x;

	if (m->lat && (!json_object_object_get_ex(r, "lat", &o) || !o))
		return 0;
	if (!json_object_object_get_ex(o, m->key, &x))
		return 0;
	if (!x)
		return -1;
	*v = json_object_get_double(x);
	return 1;
}

/* "write bw 64K": the test a line is about. */
static void test_label(json_object *r, char *buf, size_t len)
{
	json_object *op = NULL, *mode = NULL, *size = NULL, *qps = NULL;
	char sz[32] = "";

	json_object_object_get_ex(r, "op", &op);
	json_object_object_get_ex(r, "mode", &mode);
	if (json_object_object_get_ex(r, "size", &size) &&
	    json_object_is_type(size, json_type_int))
		format_size_units(sz, sizeof(sz),
				  (uint64_t)json_object_get_int64(size));
	json_object_object_get_ex(r, "qps", &qps);
	snprintf(buf, len, "%s %s %s%s%s", str_of(op),
		 mode ? str_of(mode) : "check", sz,
		 qps && json_object_get_int(qps) > 1 ? " qps " : "",
		 qps && json_object_get_int(qps) > 1 ? str_of(qps) : "");
}

static void compare_one(json_object *r, json_object *b,
			struct compare_state *st)
{
	double v, base, change;
	char label[96];
	bool worse;
	size_t i;

	test_label(r, label, sizeof(label));
	for (i = 0; i < ARRAY_SIZE(metrics); i++) {
		const struct metric *m = &metrics[i];
		int hv = get_metric(r, m, &v), hb = get_metric(b, m, &base);

		/* Measured on one side only: a null is no 0 to compare. */
		if ((hv < 0 && hb) || (hb < 0 && hv))
			fprintf(stderr, "krdmactl: compare: %s: %s is null in %s: not compared\n",
				label, m->key, hv < 0 ? st->result : st->baseline);
		if (hv <= 0 || hb <= 0 || base <= 0)
			continue;
		st->compared++;
		change = (v - base) / base * 100;
		if (fabs(change) <= st->tolerance)
			continue;
		worse = (change < 0) != m->lower_is_better;
		if (worse)
			st->worse++;
		else
			st->better++;
		open_json_object(NULL);
		print_string(PRINT_ANY, "test", "%s:", label);
		print_string(PRINT_ANY, "metric", " %s", m->key);
		print_float(PRINT_ANY, "value", " %.2f", v, 2);
		print_float(PRINT_ANY, "baseline", " vs %.2f", base, 2);
		print_float(PRINT_ANY, "change_pct", " (%+.1f%%)", change, 1);
		print_bool(PRINT_JSON, "worse", NULL, worse);
		print_string(PRINT_TEXT, NULL, " %s", worse ? "worse" : "better");
		print_nl();
		close_json_object();
	}
}

/* The environments' differences, from the first records that have one. */
static void compare_env(json_object *res, json_object *base)
{
	json_object *r = NULL, *b = NULL, *er = NULL, *eb = NULL, *x;
	size_t i;

	for (i = 0; i < json_object_array_length(res) && !er; i++) {
		r = json_object_array_get_idx(res, i);
		json_object_object_get_ex(r, "env", &er);
	}
	for (i = 0; i < json_object_array_length(base) && !eb; i++) {
		b = json_object_array_get_idx(base, i);
		json_object_object_get_ex(b, "env", &eb);
	}
	if (!er || !eb)
		return;
	open_json_object("env_differs");
	json_object_object_foreach(er, key, val) {
		/* A figure sysfs did not have is null (json-c's NULL), and
		 * one the baseline does not have is null too.
		 */
		if (!json_object_object_get_ex(eb, key, &x))
			x = NULL;
		/* When is no difference of environment: two runs always
		 * differ in it. */
		if (json_object_equal(val, x) || !strcmp(key, "timestamp"))
			continue;
		/* As they were: a number stays a number, null stays null. */
		open_json_array(key);
		print_json_value(NULL, val);
		print_json_value(NULL, x);
		close_json_array();
		print_text("env: %s %s vs %s\n", key, str_of(val), str_of(x));
	}
	close_json_object();
}

static int compare_run(int argc, char **argv)
{
	struct arg_val result, base, tol;
	struct arg_spec specs[] = {
		{ "result", ARG_STR, ARG_REQUIRED | ARG_POSITIONAL, 0, 0, 0,
		  &result, "FILE" },
		{ "baseline", ARG_STR, ARG_REQUIRED, 0, 0, 0, &base, "FILE" },
		{ "tolerance", ARG_PERCENT, 0, 0, 0, COMPARE_TOLERANCE_MAX, &tol,
		  "PCT" },
	};
	struct compare_state st = { 0 };
	json_object *res, *bl, *r, *b = NULL;
	size_t i, j;
	int rc;

	rc = cmd_args(specs, ARRAY_SIZE(specs), argc, argv);
	if (rc)
		return rc == ARGS_HELP ? EXIT_OK : EXIT_USAGE;
	st.tolerance = (double)(tol.set ? tol.num : COMPARE_TOLERANCE_DFLT) / 100;
	st.result = result.str;
	st.baseline = base.str;
	/* --parse-only: the files are the user's, not the command line's. */
	if (knl_parse_only_stop())
		return EXIT_OK;
	res = load_results(result.str);
	bl = res ? load_results(base.str) : NULL;
	if (!res || !bl) {
		json_object_put(res);
		return EXIT_ERR;
	}

	open_json_object(NULL);
	print_uint(PRINT_JSON, "schema_version", NULL, REPORT_SCHEMA_VERSION);
	print_float(PRINT_JSON, "tolerance_pct", NULL, st.tolerance, 2);
	open_json_array("moved");
	for (i = 0; i < json_object_array_length(res); i++) {
		r = json_object_array_get_idx(res, i);
		if (!usable(r))
			continue;
		for (j = 0; j < json_object_array_length(bl); j++) {
			b = json_object_array_get_idx(bl, j);
			if (usable(b) && same_test(r, b))
				break;
		}
		if (j == json_object_array_length(bl)) {
			st.unmatched++;
			continue;
		}
		compare_one(r, b, &st);
	}
	close_json_array();
	compare_env(res, bl);
	print_uint(PRINT_ANY, "compared", "%" PRIu64 " figures compared",
		   st.compared);
	print_uint(PRINT_ANY, "worse", ", %" PRIu64 " worse", st.worse);
	print_uint(PRINT_ANY, "better", ", %" PRIu64 " better", st.better);
	print_text(" than the baseline by more than %g%%", st.tolerance);
	print_uint(PRINT_ANY, "unmatched",
		   "; %" PRIu64 " results without a baseline", st.unmatched);
	print_nl();
	close_json_object();
	json_object_put(res);
	json_object_put(bl);
	if (out_flush())
		return EXIT_ERR;
	if (!st.compared) {
		fprintf(stderr, "krdmactl: compare: nothing in common between %s and %s\n",
			result.str, base.str);
		return EXIT_ERR;
	}
	return st.worse ? EXIT_REGRESSION : EXIT_OK;
}

const struct object compare_obj = {
	.name = "compare",
	.desc = "compare a test result with a baseline (both from krdmactl -j)",
	.fn = compare_run,
	.notes = "Matches the results of FILE with those of the baseline by op, mode, size,\n"
		 "qps and bidir, and lists every figure that moved by more than PCT\n"
		 "percent (default 10; PCT := NUMBER[%], e.g. 5, 5% or 2.5%): MB/s,\n"
		 "messages/s and the slowest QP's MB/s (higher is better), p50, p99\n"
		 "and p99.9 (lower is better); then what differs in their environments\n"
		 "(kernel, device, MTU, cq_poll, ...). Results of an older\n"
		 "schema_version (a record, or an array of them) are read as the\n"
		 "current one (an object, the records in \"results\"); a newer one is\n"
		 "refused.\n"
		 "A figure must be a number; one that is null (not measured) in either\n"
		 "file is not compared, and said so.\n"
		 "Exit 5 if anything got worse beyond the tolerance, 1 if the files\n"
		 "cannot be read or have nothing in common.\n"
		 "  $ krdmactl -j test run session s1 op write mode bw size 4K-1M >today.json\n"
		 "  $ krdmactl compare today.json baseline base.json tolerance 5%\n",
};
