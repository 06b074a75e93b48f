// SPDX-License-Identifier: GPL-2.0
/*
 * krdmactl: the report of a finished test - a record, a sweep's table,
 * the latency histogram's plot, and the thresholds it is held to.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include "output.h"
#include "records.h"
#include "report.h"

/* The widest bar of the histogram's plot, in characters. */
#define PLOT_WIDTH	50

static uint64_t get_u64(const struct nlattr *nla)
{
	return nla && nla_len(nla) >= (int)sizeof(uint64_t) ?
	       nla_get_u64((struct nlattr *)nla) : 0;
}

/* Calls @fn for every KRDMA_A_TEST_QP of @nlh. */
static void for_each_qp(struct nlmsghdr *nlh, nested_fn fn, void *arg)
{
	if (nlh)
		each_nested(nlh, KRDMA_A_TEST_QP, KRDMA_TEST_QP_A_MAX, NULL,
			    fn, arg);
}

static double qp_mb_s(struct nlattr **q)
{
	struct rates r;

	compute_rates(get_u64(q[KRDMA_TEST_QP_A_BYTES]),
		      get_u64(q[KRDMA_TEST_QP_A_ITERS]),
		      get_u64(q[KRDMA_TEST_QP_A_ELAPSED_NS]), &r);
	return r.mb_s;
}

static void result_qp(struct nlattr **q, void *arg)
{
	struct test_result *res = arg;
	double mb_s = qp_mb_s(q);

	if (!res->nqp || mb_s < res->qp_min_mb_s)
		res->qp_min_mb_s = mb_s;
	if (!res->nqp || mb_s > res->qp_max_mb_s)
		res->qp_max_mb_s = mb_s;
	res->nqp++;
}

void test_result_get(struct nlattr **tb, struct nlmsghdr *nlh,
		     struct test_result *res)
{
	struct nlattr *nla;
	int rem;

	memset(res, 0, sizeof(*res));
	if (tb[KRDMA_A_TEST_ID])
		res->id = nla_get_u32(tb[KRDMA_A_TEST_ID]);
	if (tb[KRDMA_A_TEST_MODE])
		res->mode = nla_get_u8(tb[KRDMA_A_TEST_MODE]);
	if (tb[KRDMA_A_TEST_SIZE])
		res->size = nla_get_u32(tb[KRDMA_A_TEST_SIZE]);
	res->iters = get_u64(tb[KRDMA_A_TEST_ITERS]);
	res->elapsed_ns = get_u64(tb[KRDMA_A_TEST_ELAPSED_NS]);
	res->validated = get_u64(tb[KRDMA_A_TEST_VALIDATED]);
	if (tb[KRDMA_A_TEST_BYTES] && tb[KRDMA_A_TEST_ITERS] &&
	    tb[KRDMA_A_TEST_ELAPSED_NS]) {
		res->has_rates = true;
		compute_rates(get_u64(tb[KRDMA_A_TEST_BYTES]), res->iters,
			      res->elapsed_ns, &res->r);
	}
	/* bidir: both ways together. */
	if (res->has_rates && tb[KRDMA_A_TEST_PEER_BYTES] &&
	    tb[KRDMA_A_TEST_PEER_ITERS]) {
		res->has_both = true;
		compute_rates(get_u64(tb[KRDMA_A_TEST_BYTES]) +
			      get_u64(tb[KRDMA_A_TEST_PEER_BYTES]),
			      res->iters + get_u64(tb[KRDMA_A_TEST_PEER_ITERS]),
			      res->elapsed_ns, &res->both);
	}
	if (tb[KRDMA_A_TEST_LAT]) {
		res->has_lat = true;
		nla_for_each_nested(nla, tb[KRDMA_A_TEST_LAT], rem) {
			int t = nla_type(nla);

			if (t <= 0 || t > KRDMA_LAT_A_MAX ||
			    t == KRDMA_LAT_A_HIST ||
			    nla_len(nla) < (int)sizeof(uint64_t))
				continue;
			res->lat[t] = nla_get_u64(nla);
			res->lat_has[t] = true;
		}
	}
	for_each_qp(nlh, result_qp, res);
}

/* ---- the record ---- */

static const int result_head[] = {
	KRDMA_A_TEST_ID,
	KRDMA_A_SESSION_ID,
	KRDMA_A_TEST_OP,
	KRDMA_A_TEST_MODE,
	KRDMA_A_TEST_BIDIR,
	KRDMA_A_TEST_SIZE,
	KRDMA_A_TEST_DEPTH,
	KRDMA_A_TEST_QPS,
	KRDMA_A_TEST_SIGNAL_EVERY,
	KRDMA_A_TEST_CHAIN,
	KRDMA_A_TEST_RATE,
	KRDMA_A_TEST_BURST,
	KRDMA_A_TEST_INLINE,
	KRDMA_A_TEST_ITERS,
	KRDMA_A_TEST_BYTES,
	KRDMA_A_TEST_ELAPSED_NS,
};

static const int result_cpu[] = {
	KRDMA_A_TEST_LAT,
	KRDMA_A_TEST_CPU_NS,
	KRDMA_A_TEST_PEER_CPU_NS,
};

static const int result_tail[] = {
	KRDMA_A_TEST_VALIDATED,
	KRDMA_A_TEST_STATUS,
	KRDMA_A_TEST_VIOLATE,
	KRDMA_A_TEST_ATOMIC_VARIANT,
	KRDMA_A_TEST_SGES,
	KRDMA_A_TEST_READ_BACK,
	KRDMA_A_TEST_SEND_INVALIDATE,
	KRDMA_A_TEST_ZERO_LENGTH,
	KRDMA_A_TEST_WC_STATUS,
	KRDMA_A_REASON,
};

/*
 * A host's CPUs over the test: text " host_cpu 35.2% (user 1.0% sys
 * 20.1% softirq 12.0% irq 1.1%)", of all its CPUs' time; JSON the
 * nanoseconds and busy_pct.
 */
static void print_host_cpu(const struct nlattr *nest, const char *key)
{
	/* Text: top's words; JSON: the spec's names. */
	static const char *const names[] = {
		[KRDMA_HOST_CPU_A_USER_NS] = "user",
		[KRDMA_HOST_CPU_A_SYSTEM_NS] = "sys",
		[KRDMA_HOST_CPU_A_SOFTIRQ_NS] = "softirq",
		[KRDMA_HOST_CPU_A_IRQ_NS] = "irq",
	};
	struct nlattr *tb[KRDMA_HOST_CPU_A_MAX + 1];
	uint64_t cap, busy = 0;
	int i;

	if (!nest || nla_parse_nested(tb, KRDMA_HOST_CPU_A_MAX,
				      (struct nlattr *)nest, NULL))
		return;
	cap = get_u64(tb[KRDMA_HOST_CPU_A_CAPACITY_NS]);
	if (!cap)
		return;
	for (i = KRDMA_HOST_CPU_A_USER_NS; i <= KRDMA_HOST_CPU_A_IRQ_NS; i++)
		busy += get_u64(tb[i]);
	open_json_object(key);
	for (i = KRDMA_HOST_CPU_A_CAPACITY_NS; i <= KRDMA_HOST_CPU_A_IRQ_NS; i++)
		print_uint(PRINT_JSON, krdma_host_cpu_attr_strmap[i], NULL,
			   get_u64(tb[i]));
	print_float(PRINT_ANY, "busy_pct", NULL, 100.0 * busy / cap, 1);
	print_text(" %s %.1f%% (", key, 100.0 * busy / cap);
	for (i = KRDMA_HOST_CPU_A_USER_NS; i <= KRDMA_HOST_CPU_A_IRQ_NS; i++)
		print_text("%s%s %.1f%%", i == KRDMA_HOST_CPU_A_USER_NS ? "" : " ",
			   names[i], 100.0 * get_u64(tb[i]) / cap);
	print_text(")");
	close_json_object();
}

static void print_qp_json(struct nlattr **q, void *arg)
{
	(void)arg;
	open_json_object(NULL);
	print_uint(PRINT_JSON, "index", NULL,
		   q[KRDMA_TEST_QP_A_INDEX] ?
		   nla_get_u32(q[KRDMA_TEST_QP_A_INDEX]) : 0);
	print_uint(PRINT_JSON, "iters", NULL, get_u64(q[KRDMA_TEST_QP_A_ITERS]));
	print_uint(PRINT_JSON, "bytes", NULL, get_u64(q[KRDMA_TEST_QP_A_BYTES]));
	print_uint(PRINT_JSON, "elapsed_ns", NULL,
		   get_u64(q[KRDMA_TEST_QP_A_ELAPSED_NS]));
	print_float(PRINT_JSON, "mb_per_s", NULL, qp_mb_s(q), 2);
	close_json_object();
}

/* Several QPs: the slowest and the fastest, to show an unfair link. */
static void print_qps(struct nlmsghdr *nlh, const struct test_result *res)
{
	if (!res->nqp)
		return;
	if (out_json()) {
		open_json_array("qp");
		for_each_qp(nlh, print_qp_json, NULL);
		close_json_array();
	}
	if (res->nqp < 2)
		return;
	print_bw("min_qp_mb_per_s", "qp_min ", res->qp_min_mb_s);
	print_bw("max_qp_mb_per_s", "qp_max ", res->qp_max_mb_s);
}

static void print_record_rates(struct nlattr **tb,
			       const struct test_result *res)
{
	if (res->has_rates) {
		print_bw("mb_per_s", "", res->r.mb_s);
		print_float(PRINT_ANY, "gb_per_s", " %.3f Gb/s", res->r.gb_s, 3);
		print_float(PRINT_ANY, "msgs_per_s", " %.0f msgs/s",
			    res->r.msgs_s, 0);
	}
	/* bidir: what came back, and both ways together. */
	if (res->has_both) {
		print_attr(tb, KRDMA_A_TEST_PEER_ITERS);
		print_attr(tb, KRDMA_A_TEST_PEER_BYTES);
		print_bw("bidir_mb_per_s", "both ways ", res->both.mb_s);
	}
}

/*
 * The record's fields, in the object the caller opened: a line of text,
 * or a JSON object, an element of the run's "results".
 */
static void print_record(struct nlattr **tb, struct nlmsghdr *nlh,
			 const struct test_result *res)
{
	print_attrs(tb, result_head, ARRAY_SIZE(result_head));
	print_record_rates(tb, res);
	print_qps(nlh, res);
	print_attrs(tb, result_cpu, ARRAY_SIZE(result_cpu));
	print_host_cpu(tb[KRDMA_A_TEST_HOST_CPU], "host_cpu");
	print_host_cpu(tb[KRDMA_A_TEST_PEER_HOST_CPU], "peer_host_cpu");
	print_attrs(tb, result_tail, ARRAY_SIZE(result_tail));
}

void test_print_result(struct nlattr **tb, struct nlmsghdr *nlh)
{
	struct test_result res;

	test_result_get(tb, nlh, &res);
	open_json_object(NULL);
	print_record(tb, nlh, &res);
	print_nl();
	close_json_object();
}

/* ---- the sweep's table (text) ---- */

/* A latency figure in microseconds, or "-" if the kernel gave none. */
static void print_lat_cell(const struct test_result *res, int type)
{
	if (res->lat_has[type])
		print_text(" %10.2f", (double)res->lat[type] / 1e3);
	else
		print_text(" %10s", "-");
}

static void print_table_header(const struct test_result *res,
			       const struct report_opts *ro)
{
	char bw[16], both[24];

	if (res->mode == KRDMA_MODE_LAT) {
		print_text("%8s %10s %10s %10s %10s %10s %10s %10s %10s\n",
		       "#bytes", "#iters", "t_min[us]", "t_p50[us]",
		       "t_p90[us]", "t_p99[us]", "t_p99.9[us]", "t_max[us]",
		       "stdev[us]");
		return;
	}
	/* Each header names its unit: -M makes the bandwidth perftest's. */
	snprintf(bw, sizeof(bw), "BW[%s]", bw_text_unit());
	snprintf(both, sizeof(both), "  BW_both[%s]", bw_text_unit());
	print_text("%8s %10s %12s %10s %14s%s\n", "#bytes", "#iters", bw,
	       "BW[Gb/s]", "MsgRate[Mpps]", ro->bidir ? both : "");
}

static void print_table_row(const struct test_result *res,
			    const struct report_opts *ro)
{
	char size[32];

	format_size_units(size, sizeof(size), res->size);
	print_text("%8s %10" PRIu64, size, res->iters);
	if (res->mode == KRDMA_MODE_LAT) {
		print_lat_cell(res, KRDMA_LAT_A_MIN_NS);
		print_lat_cell(res, KRDMA_LAT_A_P50_NS);
		print_lat_cell(res, KRDMA_LAT_A_P90_NS);
		print_lat_cell(res, KRDMA_LAT_A_P99_NS);
		print_lat_cell(res, KRDMA_LAT_A_P999_NS);
		print_lat_cell(res, KRDMA_LAT_A_MAX_NS);
		print_lat_cell(res, KRDMA_LAT_A_STDEV_NS);
		return;
	}
	print_text(" %12.2f %10.3f %14.6f", bw_text(res->r.mb_s), res->r.gb_s,
	       res->r.msgs_s / 1e6);
	if (ro->bidir && res->has_both)
		print_text(" %14.2f", bw_text(res->both.mb_s));
}

/* ---- the histogram's plot (text) ---- */

static void plot_histogram(const struct test_result *res, struct nlattr *lat)
{
	struct nlattr *b[KRDMA_HIST_A_MAX + 1];
	uint64_t top = 0, count;
	struct nlattr *nla;
	int rem, bar;

	nla_for_each_nested(nla, lat, rem)
		if (nla_type(nla) == KRDMA_LAT_A_HIST &&
		    !nla_parse_nested(b, KRDMA_HIST_A_MAX, nla, NULL) &&
		    get_u64(b[KRDMA_HIST_A_COUNT]) > top)
			top = get_u64(b[KRDMA_HIST_A_COUNT]);
	if (!top) {
		print_text("test %u: no latency histogram\n", res->id);
		return;
	}
	print_text("test %u: latency histogram, %" PRIu64 " samples\n", res->id,
		   res->lat[KRDMA_LAT_A_SAMPLES]);
	/* One unit for the column, named in its header, as the table's. */
	print_text("%12s %12s %10s\n", "from[us]", "to[us]", "#samples");
	nla_for_each_nested(nla, lat, rem) {
		if (nla_type(nla) != KRDMA_LAT_A_HIST ||
		    nla_parse_nested(b, KRDMA_HIST_A_MAX, nla, NULL))
			continue;
		count = get_u64(b[KRDMA_HIST_A_COUNT]);
		/* Rounded up: a bucket with anything in it shows. */
		bar = (int)((count * PLOT_WIDTH + top - 1) / top);
		print_text("%12.3f %12.3f %10" PRIu64 " |%.*s\n",
			   (double)get_u64(b[KRDMA_HIST_A_LO_NS]) / 1e3,
			   (double)get_u64(b[KRDMA_HIST_A_HI_NS]) / 1e3, count,
			   bar, "##################################################");
	}
}

/* ---- thresholds ---- */

/* The figure @m of @res in the unit of struct expect; false if none. */
static bool expect_figure(const struct test_result *res, enum expect_metric m,
			  double *v)
{
	static const int lat_attr[__EXPECT_METRIC_MAX] = {
		[EXPECT_P50] = KRDMA_LAT_A_P50_NS,
		[EXPECT_P90] = KRDMA_LAT_A_P90_NS,
		[EXPECT_P99] = KRDMA_LAT_A_P99_NS,
		[EXPECT_P999] = KRDMA_LAT_A_P999_NS,
		[EXPECT_MAX] = KRDMA_LAT_A_MAX_NS,
		[EXPECT_AVG] = KRDMA_LAT_A_AVG_NS,
		[EXPECT_STDEV] = KRDMA_LAT_A_STDEV_NS,
	};

	switch (m) {
	case EXPECT_BW:
		*v = res->r.mb_s;
		return res->has_rates;
	case EXPECT_MIN_QP_BW:
		*v = res->qp_min_mb_s;
		return res->nqp > 0;
	case EXPECT_MSG_RATE:
		*v = res->r.msgs_s;
		return res->has_rates;
	default:
		if (!expect_metric_is_latency(m) || !res->lat_has[lat_attr[m]])
			return false;
		*v = (double)res->lat[lat_attr[m]];
		return true;
	}
}

static void format_figure(char *buf, size_t len, enum expect_metric m,
			  double v)
{
	if (expect_metric_is_latency(m))
		snprintf(buf, len, "%.2fus", v / 1e3);
	else if (m == EXPECT_MSG_RATE)
		snprintf(buf, len, "%.0f msgs/s", v);
	else
		snprintf(buf, len, "%.2f %s", bw_text(v), bw_text_unit());
}

/* Checks every threshold, JSON "expect": [{expr, value, met}], misses named. */
static void check_expect(const struct test_result *res,
			 struct report_opts *ro)
{
	const struct arg_val *ex = ro->expect;
	char size[32], fig[48];
	unsigned int i;
	bool has, met;
	double v = 0;

	format_size_units(size, sizeof(size), res->size);
	open_json_array("expect");
	for (i = 0; i < ex->nexpect; i++) {
		const struct expect *e = &ex->expect[i];

		has = expect_figure(res, e->metric, &v);
		met = has && (e->at_most ? v <= e->value : v >= e->value);
		open_json_object(NULL);
		print_string(PRINT_JSON, "expr", NULL, e->text);
		if (has)
			print_float(PRINT_JSON, "value", NULL, v, 2);
		print_bool(PRINT_JSON, "met", NULL, met);
		close_json_object();
		if (met)
			continue;
		ro->missed++;
		if (!has) {
			fprintf(stderr, "krdmactl: test %u (size %s): expect %s: this test has no %s figure\n",
				res->id, size, e->text,
				expect_metric_name(e->metric));
			continue;
		}
		format_figure(fig, sizeof(fig), e->metric, v);
		fprintf(stderr, "krdmactl: test %u (size %s): expect %s missed: %s was %s\n",
			res->id, size, e->text, expect_metric_name(e->metric),
			fig);
	}
	close_json_array();
}

void report_result(struct nlattr **tb, struct nlmsghdr *nlh,
		   struct report_opts *ro)
{
	bool passed = !tb[KRDMA_A_TEST_STATUS] ||
		      !nla_get_u32(tb[KRDMA_A_TEST_STATUS]);
	struct test_result res;

	test_result_get(tb, nlh, &res);
	ro->last = res;
	ro->last_status = passed ? 0 : (int32_t)nla_get_u32(tb[KRDMA_A_TEST_STATUS]);
	snprintf(ro->last_reason, sizeof(ro->last_reason), "%s",
		 tb[KRDMA_A_REASON] ? nla_get_string(tb[KRDMA_A_REASON]) : "");
	ro->last_wc_status = tb[KRDMA_A_TEST_WC_STATUS] ?
			     (int64_t)nla_get_u32(tb[KRDMA_A_TEST_WC_STATUS]) : -1;
	if (ro->env)
		env_take_peer(ro->env, tb[KRDMA_A_TEST_PEER_ENV]);
	if (ro->quiet)
		return;
	open_json_object(NULL);
	if (ro->sweep && !out_json()) {
		if (passed) {
			if (!ro->header_shown)
				print_table_header(&res, ro);
			ro->header_shown = true;
			print_table_row(&res, ro);
		}
	} else {
		print_record(tb, nlh, &res);
	}
	if (passed && ro->expect && ro->expect->nexpect)
		check_expect(&res, ro);
	print_nl();
	close_json_object();
	/* Text, -s: the environment once, after the first result. */
	if (ro->env && !out_json() && !ro->env_shown) {
		env_print(ro->env);
		print_nl();
		ro->env_shown = true;
	}
	if (ro->plot && passed && !out_json() && tb[KRDMA_A_TEST_LAT])
		plot_histogram(&res, tb[KRDMA_A_TEST_LAT]);
}
