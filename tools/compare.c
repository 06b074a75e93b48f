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
#include <string.h>

#include <json.h>

#include "cmd.h"
#include "output.h"
#include "report.h"

#define COMPARE_TOLERANCE_DFLT	10	/* percent */

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
};

/* A file's results: an array of records, or one record, as -j prints them. */
static json_object *load_results(const char *path)
{
	json_object *o = json_object_from_file(path), *a;

	if (!o) {
		fprintf(stderr, "krdmactl: compare: %s: %s\n", path,
			json_util_get_last_err() ? json_util_get_last_err() :
						   "not JSON");
		return NULL;
	}
	if (json_object_is_type(o, json_type_array))
		return o;
	a = json_object_new_array();
	json_object_array_add(a, o);
	return a;
}

/* JSON null is json-c's NULL, whose string is NULL too. */
static const char *str_of(json_object *o)
{
	return o ? json_object_get_string(o) : "null";
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
		if (ha && strcmp(str_of(va), str_of(vb)))
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

static bool get_metric(json_object *r, const struct metric *m, double *v)
{
	json_object *o = r, *x;

	if (m->lat && !json_object_object_get_ex(r, "lat", &o))
		return false;
	if (!json_object_object_get_ex(o, m->key, &x))
		return false;
	*v = json_object_get_double(x);
	return true;
}

/* "write bw 64K": the test a line is about. */
static void test_label(json_object *r, char *buf, size_t len)
{
	json_object *op = NULL, *mode = NULL, *size = NULL, *qps = NULL;
	char sz[32] = "";

	json_object_object_get_ex(r, "op", &op);
	json_object_object_get_ex(r, "mode", &mode);
	if (json_object_object_get_ex(r, "size", &size))
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

		if (!get_metric(r, m, &v) || !get_metric(b, m, &base) ||
		    base <= 0)
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
		/* A figure sysfs did not have is null: json-c's NULL. */
		const char *a = str_of(val);
		const char *c = json_object_object_get_ex(eb, key, &x) ?
				str_of(x) : "null";

		if (!strcmp(a, c))
			continue;
		open_json_array(key);
		print_string(PRINT_JSON, NULL, NULL, a);
		print_string(PRINT_JSON, NULL, NULL, c);
		close_json_array();
		print_text("env: %s %s vs %s\n", key, a, c);
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
		{ "tolerance", ARG_U32, 0, 0, 0, 1000, &tol, "PCT" },
	};
	struct compare_state st = { 0 };
	json_object *res, *bl, *r, *b = NULL;
	size_t i, j;
	int rc;

	rc = cmd_args(specs, ARRAY_SIZE(specs), argc, argv);
	if (rc)
		return rc == ARGS_HELP ? EXIT_OK : EXIT_USAGE;
	st.tolerance = tol.set ? (double)tol.num : COMPARE_TOLERANCE_DFLT;
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
	print_uint(PRINT_JSON, "tolerance_pct", NULL, (uint64_t)st.tolerance);
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
	print_text(" than the baseline by more than %.0f%%", st.tolerance);
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
	.fn_args = "[ result ] FILE baseline FILE [ tolerance PCT ]",
	.notes = "Matches the results of FILE with those of the baseline by op, mode, size,\n"
		 "qps and bidir, and lists every figure that moved by more than PCT\n"
		 "percent (default 10): MB/s, messages/s and the slowest QP's MB/s\n"
		 "(higher is better), p50, p99 and p99.9 (lower is better); then what\n"
		 "differs in their environments (kernel, device, MTU, cq_poll, ...).\n"
		 "Exit 5 if anything got worse beyond the tolerance, 1 if the files\n"
		 "cannot be read or have nothing in common.\n",
};
