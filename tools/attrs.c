// SPDX-License-Identifier: GPL-2.0
/*
 * krdmactl: the generic attribute printer (each attribute's label, JSON
 * key and kind) and lookups in the spec's name tables of nl-gen.c.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <linux/netlink.h>
#include <netlink/genl/genl.h>

#include "attrs.h"
#include "output.h"

const char *name_of(const char *const *names, size_t n, unsigned int v)
{
	return v < n ? names[v] : NULL;
}

/* @name in @buf with '_' as @sep, in capitals if @upper (NULL: NULL). */
static const char *respell(const char *name, char sep, bool upper, char *buf,
			   size_t len)
{
	size_t i;

	if (!name || strlen(name) >= len)
		return name;
	for (i = 0; name[i]; i++)
		buf[i] = name[i] == '_' ? sep :
			 upper ? (char)toupper((unsigned char)name[i]) : name[i];
	buf[i] = '\0';
	return buf;
}

const char *port_state_name(unsigned int v)
{
	static char buf[32];

	return respell(STRMAP_NAME(krdma_ib_port_state_strmap, v), '_', true,
		       buf, sizeof(buf));
}

const char *addr_attr_name(unsigned int type)
{
	static char buf[32];

	return respell(STRMAP_NAME(krdma_addr_attr_strmap, type), '-', false,
		       buf, sizeof(buf));
}

/* The spec's names less "_ns", and "p99.9": what a reader of latency knows. */
const char *lat_stat_name(unsigned int v)
{
	static const char *const names[] = {
		[KRDMA_LAT_A_SAMPLES] = "samples", [KRDMA_LAT_A_MIN_NS] = "min",
		[KRDMA_LAT_A_P50_NS] = "p50", [KRDMA_LAT_A_P90_NS] = "p90",
		[KRDMA_LAT_A_P99_NS] = "p99", [KRDMA_LAT_A_P999_NS] = "p99.9",
		[KRDMA_LAT_A_MAX_NS] = "max", [KRDMA_LAT_A_AVG_NS] = "avg",
		[KRDMA_LAT_A_STDEV_NS] = "stdev",
	};

	return STRMAP_NAME(names, v);
}

/*
 * A completion's status as the kernel (ib_wc_status_msg()) words it;
 * libibverbs numbers its ibv_wc_status the same.
 */
const char *wc_status_name(uint32_t status)
{
	static const char *const names[] = {
		"success", "local length error", "local QP operation error",
		"local EE context operation error", "local protection error",
		"WR flushed", "memory bind operation error",
		"bad response error", "local access error",
		"remote invalid request error", "remote access error",
		"remote operation error", "transport retry counter exceeded",
		"RNR retry counter exceeded", "local RDD violation error",
		"remote invalid RD request", "operation aborted",
		"invalid EE context number", "invalid EE context state",
		"fatal error", "response timeout error", "general error",
	};

	return status < ARRAY_SIZE(names) ? names[status] : "unknown";
}

enum attr_kind {
	K_NONE,		/* not printed generically */
	K_SPEC,		/* as the spec types it: a number of its width,
			 * its enum's name, a string */
	K_QSTR,		/* string, quoted in text (may contain spaces) */
	K_GUID,
	K_ENDPOINT,
	K_ELAPSED,	/* u64 ns */
	K_ERRNO,	/* s32: 0 or -errno */
	K_WC_STATUS,	/* u32: enum ib_wc_status */
	K_STATS,
	K_LAT,		/* latency figures, nested */
};

struct attr_desc {
	const char *text;	/* text label */
	const char *json;	/* JSON key */
	enum attr_kind kind;
};

static const struct attr_desc descs[KRDMA_A_MAX + 1] = {
	[KRDMA_A_VERSION] = { "version", "version", K_SPEC },
	[KRDMA_A_ABI_VERSION] = { "abi", "abi", K_SPEC },
	[KRDMA_A_DEV_INDEX] = { "dev_index", "dev_index", K_SPEC },
	[KRDMA_A_DEV_NAME] = { "dev", "dev", K_SPEC },
	[KRDMA_A_DEV_NODE_GUID] = { "node_guid", "node_guid", K_GUID },
	[KRDMA_A_DEV_MAX_QP_RD_ATOM] = { "max_qp_rd_atom", "max_qp_rd_atom",
					 K_SPEC },
	[KRDMA_A_DEV_MAX_QP_INIT_RD_ATOM] = { "max_qp_init_rd_atom",
					      "max_qp_init_rd_atom", K_SPEC },
	[KRDMA_A_DEV_MAX_FAST_REG_PAGES] = { "max_fast_reg_pages",
					     "max_fast_reg_pages", K_SPEC },
	[KRDMA_A_DEV_MAX_SGE] = { "max_sge", "max_sge", K_SPEC },
	[KRDMA_A_DEV_ATOMIC_CAP] = { "atomic", "atomic", K_SPEC },
	[KRDMA_A_DEV_PORT] = { "port", "port", K_NONE },
	[KRDMA_A_LISTENER_ID] = { "listener", "listener_id", K_SPEC },
	[KRDMA_A_NAME] = { "name", "name", K_SPEC },
	[KRDMA_A_LOCAL_ADDR] = { "local", "local", K_ENDPOINT },
	[KRDMA_A_PEER_ADDR] = { "peer", "peer", K_ENDPOINT },
	[KRDMA_A_TIMEOUT_MS] = { "timeout_ms", "timeout_ms", K_SPEC },
	[KRDMA_A_SESSION_ID] = { "session", "session_id", K_SPEC },
	[KRDMA_A_SESSION_STATE] = { "state", "state", K_SPEC },
	[KRDMA_A_SESSION_ROLE] = { "role", "role", K_SPEC },
	[KRDMA_A_SESSION_QPN] = { "qpn", "qpn", K_SPEC },
	[KRDMA_A_SESSION_PEER_QPN] = { "peer_qpn", "peer_qpn", K_SPEC },
	[KRDMA_A_SESSION_RESPONDER_RESOURCES] = { "responder_resources",
						  "responder_resources",
						  K_SPEC },
	[KRDMA_A_SESSION_INITIATOR_DEPTH] = { "initiator_depth",
					      "initiator_depth", K_SPEC },
	[KRDMA_A_SESSION_SQ_DEPTH] = { "sq_depth", "sq_depth", K_SPEC },
	[KRDMA_A_SESSION_RQ_DEPTH] = { "rq_depth", "rq_depth", K_SPEC },
	[KRDMA_A_SESSION_MAX_MSG_SIZE] = { "max_msg_size", "max_msg_size",
					   K_SPEC },
	[KRDMA_A_SESSION_PEER_PROTO] = { "peer_proto", "peer_proto", K_SPEC },
	[KRDMA_A_REASON] = { "reason", "reason", K_QSTR },
	[KRDMA_A_TEST_ID] = { "test", "test_id", K_SPEC },
	[KRDMA_A_TEST_OP] = { "op", "op", K_SPEC },
	[KRDMA_A_TEST_SIZE] = { "size", "size", K_SPEC },
	[KRDMA_A_TEST_COUNT] = { "count", "count", K_SPEC },
	[KRDMA_A_TEST_DURATION_MS] = { "duration_ms", "duration_ms", K_SPEC },
	[KRDMA_A_TEST_DEPTH] = { "depth", "depth", K_SPEC },
	[KRDMA_A_TEST_INTERVAL_MS] = { "interval_ms", "interval_ms", K_SPEC },
	[KRDMA_A_TEST_STATE] = { "state", "state", K_SPEC },
	[KRDMA_A_TEST_STATUS] = { "status", "status", K_ERRNO },
	[KRDMA_A_TEST_ITERS] = { "iters", "iters", K_SPEC },
	[KRDMA_A_TEST_BYTES] = { "bytes", "bytes", K_SPEC },
	[KRDMA_A_TEST_ELAPSED_NS] = { "elapsed", "elapsed_ns", K_ELAPSED },
	[KRDMA_A_TEST_VALIDATED] = { "validated", "validated", K_SPEC },
	[KRDMA_A_STATS] = { "stats", "stats", K_STATS },
	[KRDMA_A_EVENT] = { "event", "event", K_SPEC },
	[KRDMA_A_TEST_MODE] = { "mode", "mode", K_SPEC },
	[KRDMA_A_TEST_SIGNAL_EVERY] = { "signal_every", "signal_every",
					K_SPEC },
	[KRDMA_A_TEST_CHAIN] = { "chain", "chain", K_SPEC },
	[KRDMA_A_TEST_INLINE] = { "inline", "inline", K_SPEC },
	[KRDMA_A_TEST_CPU_NS] = { "cpu", "cpu_ns", K_ELAPSED },
	[KRDMA_A_TEST_PEER_CPU_NS] = { "peer_cpu", "peer_cpu_ns", K_ELAPSED },
	[KRDMA_A_TEST_LAT] = { "lat", "lat", K_LAT },
	[KRDMA_A_SESSION_MAX_INLINE] = { "max_inline", "max_inline", K_SPEC },
	[KRDMA_A_SESSION_CQ_POLL] = { "cq_poll", "cq_poll", K_SPEC },
	[KRDMA_A_TEST_BIDIR] = { "bidir", "bidir", K_SPEC },
	[KRDMA_A_TEST_PEER_ITERS] = { "peer_iters", "peer_iters", K_SPEC },
	[KRDMA_A_TEST_PEER_BYTES] = { "peer_bytes", "peer_bytes", K_SPEC },
	[KRDMA_A_SESSION_QPS] = { "qps", "qps", K_SPEC },
	[KRDMA_A_TEST_QPS] = { "qps", "qps", K_SPEC },
	[KRDMA_A_TEST_QP] = { "qp", "qp", K_NONE },
	[KRDMA_A_SESSION_TOS] = { "tos", "tos", K_SPEC },
	[KRDMA_A_TEST_HOST_CPU] = { "host_cpu", "host_cpu", K_NONE },
	[KRDMA_A_TEST_PEER_HOST_CPU] = { "peer_host_cpu", "peer_host_cpu",
					 K_NONE },
	/* Bytes/s as the kernel has it: MB/s would round what was asked. */
	[KRDMA_A_TEST_RATE] = { "rate_bytes_per_s", "rate_bytes_per_s",
				K_SPEC },
	[KRDMA_A_TEST_BURST] = { "burst", "burst", K_SPEC },
	[KRDMA_A_TEST_VIOLATE] = { "violate", "violate", K_SPEC },
	[KRDMA_A_TEST_ATOMIC_VARIANT] = { "atomic_variant", "atomic_variant",
					  K_SPEC },
	[KRDMA_A_TEST_SGES] = { "sges", "sges", K_SPEC },
	[KRDMA_A_TEST_READ_BACK] = { "read_back", "read_back", K_SPEC },
	[KRDMA_A_TEST_SEND_INVALIDATE] = { "send_invalidate", "send_invalidate",
					   K_SPEC },
	[KRDMA_A_TEST_ZERO_LENGTH] = { "zero_length", "zero_length", K_SPEC },
	[KRDMA_A_TEST_RNR_HOLD] = { "rnr_hold", "rnr_hold", K_SPEC },
	[KRDMA_A_TEST_ZERO_READ_BEHIND] = { "zero_read_behind",
					    "zero_read_behind", K_SPEC },
	[KRDMA_A_TEST_REG_BEHIND] = { "reg_behind", "reg_behind", K_SPEC },
	[KRDMA_A_SESSION_RNR_RETRY] = { "rnr_retry", "rnr_retry", K_SPEC },
	[KRDMA_A_SESSION_MAX_SGE] = { "max_sge", "max_sge", K_SPEC },
	[KRDMA_A_SESSION_MAX_READ_SGE] = { "max_read_sge", "max_read_sge",
					   K_SPEC },
	[KRDMA_A_TEST_WC_STATUS] = { "wc_status", "wc_status", K_WC_STATUS },
	[KRDMA_A_SESSION_ACK_TIMEOUT] = { "ack_timeout", "ack_timeout",
					  K_SPEC },
};

const char *attr_name(unsigned int type)
{
	if (type <= KRDMA_A_MAX && descs[type].json)
		return descs[type].json;
	return NULL;
}

int put_endpoint(struct nl_msg *msg, int type, const struct ip_addr *a,
		 int port)
{
	struct nlattr *nest;
	int rc = 0;

	nest = nla_nest_start(msg, type | NLA_F_NESTED);
	if (!nest)
		return -ENOMEM;
	if (a && a->family == AF_INET)
		rc = nla_put(msg, KRDMA_ADDR_A_IPV4, 4, a->bytes);
	else if (a && a->family == AF_INET6)
		rc = nla_put(msg, KRDMA_ADDR_A_IPV6, 16, a->bytes);
	if (!rc && a && a->family == AF_INET6 && a->scope_id)
		rc = nla_put_u32(msg, KRDMA_ADDR_A_SCOPE_ID, a->scope_id);
	if (!rc && port >= 0)
		rc = nla_put_u16(msg, KRDMA_ADDR_A_PORT, (uint16_t)port);
	if (rc)
		return -ENOMEM;
	return nla_nest_end(msg, nest) < 0 ? -ENOMEM : 0;
}

int get_endpoint(const struct nlattr *nest, struct endpoint *ep)
{
	struct nlattr *tb[KRDMA_ADDR_A_MAX + 1];

	memset(ep, 0, sizeof(*ep));
	ep->port = -1;
	if (nla_parse_nested(tb, KRDMA_ADDR_A_MAX, (struct nlattr *)nest,
			     krdma_addr_policy))
		return -EINVAL;
	if (tb[KRDMA_ADDR_A_IPV4]) {
		ep->has_addr = true;
		ep->addr.family = AF_INET;
		memcpy(ep->addr.bytes, nla_data(tb[KRDMA_ADDR_A_IPV4]), 4);
	} else if (tb[KRDMA_ADDR_A_IPV6]) {
		ep->has_addr = true;
		ep->addr.family = AF_INET6;
		memcpy(ep->addr.bytes, nla_data(tb[KRDMA_ADDR_A_IPV6]), 16);
		if (tb[KRDMA_ADDR_A_SCOPE_ID])
			ep->addr.scope_id = nla_get_u32(tb[KRDMA_ADDR_A_SCOPE_ID]);
	}
	if (tb[KRDMA_ADDR_A_PORT])
		ep->port = nla_get_u16(tb[KRDMA_ADDR_A_PORT]);
	return 0;
}

void format_ns(char *buf, size_t len, uint64_t ns)
{
	if (ns >= 1000000000ULL)
		snprintf(buf, len, "%.3fs", (double)ns / 1e9);
	else if (ns >= 1000000ULL)
		snprintf(buf, len, "%.3fms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.3fus", (double)ns / 1e3);
}

void format_utc_now(char *buf, size_t len, bool usec)
{
	struct timespec ts;
	struct tm tm;
	size_t n;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	if (usec)
		snprintf(buf + n, len - n, ".%06ldZ", ts.tv_nsec / 1000);
	else
		snprintf(buf + n, len - n, "Z");
}

int each_nested(struct nlmsghdr *nlh, int type, int maxtype,
		struct nla_policy *policy, nested_fn fn, void *arg)
{
	struct nlattr *tb[EACH_NESTED_MAXTYPE + 1];
	struct genlmsghdr *gh = nlmsg_data(nlh);
	struct nlattr *nla;
	int rem, bad = 0;

	if (maxtype > EACH_NESTED_MAXTYPE)
		return -EINVAL;
	nla_for_each_attr(nla, genlmsg_attrdata(gh, 0), genlmsg_attrlen(gh, 0),
			  rem) {
		if (nla_type(nla) != type)
			continue;
		if (nla_parse_nested(tb, maxtype, nla, policy)) {
			bad++;
			continue;
		}
		fn(tb, arg);
	}
	return bad;
}

void compute_rates(uint64_t bytes, uint64_t iters, uint64_t elapsed_ns,
		   struct rates *r)
{
	double secs = (double)elapsed_ns / 1e9;

	memset(r, 0, sizeof(*r));
	if (elapsed_ns == 0)
		return;
	r->mb_s = (double)bytes / 1e6 / secs;
	r->gb_s = (double)bytes * 8 / 1e9 / secs;
	r->msgs_s = (double)iters / secs;
}

/*
 * Attribute @type as the spec types it (krdma_policy): a string, or an
 * unsigned number of its width, by name if it takes an enum
 * (krdma_attr_enums).
 */
static void print_spec(const struct attr_desc *d, int type,
		       const struct nlattr *nla)
{
	const struct krdma_strmap *e = &krdma_attr_enums[type];
	uint16_t t = krdma_policy[type].type;
	const char *name;
	char buf[32];
	uint64_t v;

	if (t == NLA_STRING) {
		print_string(PRINT_ANY, d->json, "%s", nla_get_string(nla));
		return;
	}
	v = t == NLA_U8 ? nla_get_u8(nla) : t == NLA_U16 ? nla_get_u16(nla) :
	    t == NLA_U32 ? nla_get_u32(nla) : nla_get_u64(nla);
	if (!e->names) {
		print_uint(PRINT_ANY, d->json, "%" PRIu64, v);
		return;
	}
	name = name_of(e->names, e->n, (unsigned int)v);
	if (!name) {
		snprintf(buf, sizeof(buf), "unknown(%" PRIu64 ")", v);
		name = buf;
	}
	print_string(PRINT_ANY, d->json, "%s", name);
}

static void print_endpoint(const struct attr_desc *d, const struct nlattr *nla)
{
	char key[32], buf[INET6_ADDRSTRLEN + 16];
	struct endpoint ep;

	if (get_endpoint(nla, &ep)) {
		print_string(PRINT_ANY, d->json, "%s", "?");
		return;
	}
	format_endpoint(buf, sizeof(buf), ep.has_addr ? &ep.addr : NULL,
			ep.port);
	print_string(PRINT_TEXT, NULL, "%s", buf);
	if (ep.has_addr) {
		format_ip_addr(buf, sizeof(buf), &ep.addr);
		snprintf(key, sizeof(key), "%s_addr", d->json);
		print_string(PRINT_JSON, key, NULL, buf);
	}
	if (ep.port >= 0) {
		snprintf(key, sizeof(key), "%s_port", d->json);
		print_uint(PRINT_JSON, key, NULL, (uint64_t)ep.port);
	}
}

void print_stats(const struct nlattr *nest, const char *key,
		 bool one_per_line)
{
	struct nlattr *nla;
	int rem;

	if (key)
		open_json_object(key);
	nla_for_each_nested(nla, nest, rem) {
		unsigned int type = (unsigned int)nla_type(nla);
		const char *name = STRMAP_NAME(krdma_stats_attr_strmap, type);
		char buf[32];

		if (type == KRDMA_STATS_A_PAD || type == KRDMA_STATS_A_UNSPEC ||
		    nla_len(nla) < (int)sizeof(uint64_t))
			continue;
		if (!name) {
			/* Newer module: show it rather than hide it. */
			snprintf(buf, sizeof(buf), "stat_%u", type);
			name = buf;
		}
		print_text(one_per_line ? "%s " : " %s ", name);
		print_uint(PRINT_ANY, name, "%" PRIu64, nla_get_u64(nla));
		if (one_per_line)
			print_nl();
	}
	if (key)
		close_json_object();
}

/* The histogram's buckets, JSON only: text plots them on request. */
static void print_hist_json(const struct nlattr *nest)
{
	struct nlattr *tb[KRDMA_HIST_A_MAX + 1];
	struct nlattr *nla;
	bool open = false;
	int rem, i;

	nla_for_each_nested(nla, nest, rem) {
		if (nla_type(nla) != KRDMA_LAT_A_HIST ||
		    nla_parse_nested(tb, KRDMA_HIST_A_MAX, nla, NULL))
			continue;
		if (!open) {
			open_json_array("histogram");
			open = true;
		}
		open_json_object(NULL);
		for (i = KRDMA_HIST_A_LO_NS; i <= KRDMA_HIST_A_COUNT; i++)
			if (tb[i] && nla_len(tb[i]) >= (int)sizeof(uint64_t))
				print_uint(PRINT_JSON,
					   krdma_hist_bucket_attr_strmap[i], NULL,
					   nla_get_u64(tb[i]));
		close_json_object();
	}
	if (open)
		close_json_array();
}

/*
 * Latency figures: text " lat min 1.2us p50 1.5us ...", JSON an object
 * {"samples": N, "min_ns": ..., "p99_9_ns": ..., "histogram": [...]}: JSON
 * keys without dots, which jq and most JSON paths read as nesting.
 */
static void print_lat(const struct nlattr *nest, const char *key)
{
	struct nlattr *nla;
	char buf[48], *dot;
	int rem;

	open_json_object(key);
	print_text(" %s", key);
	nla_for_each_nested(nla, nest, rem) {
		unsigned int type = (unsigned int)nla_type(nla);
		const char *name = lat_stat_name(type);

		if (!name || nla_len(nla) < (int)sizeof(uint64_t))
			continue;
		if (type == KRDMA_LAT_A_SAMPLES) {
			print_uint(PRINT_ANY, name, " samples %" PRIu64,
				   nla_get_u64(nla));
			continue;
		}
		snprintf(buf, sizeof(buf), "%s_ns", name);
		while ((dot = strchr(buf, '.')))
			*dot = '_';
		print_uint(PRINT_JSON, buf, NULL, nla_get_u64(nla));
		print_text(" %s", name);
		print_float(PRINT_TEXT, NULL, " %.2fus",
			    (double)nla_get_u64(nla) / 1e3, 2);
	}
	print_hist_json(nest);
	close_json_object();
}

void print_attr(struct nlattr **tb, int type)
{
	const struct attr_desc *d;
	const struct nlattr *nla;
	char buf[64];
	int32_t s;

	if (type <= 0 || type > KRDMA_A_MAX || !tb[type])
		return;
	d = &descs[type];
	nla = tb[type];
	if (d->kind == K_NONE)
		return;
	if (d->kind == K_LAT) {
		print_lat(nla, d->json);
		return;
	}
	if (d->kind == K_STATS) {
		/* Counters go on their own, indented, line. */
		print_nl();
		print_text("    %s", d->text);
		print_stats(nla, d->json, false);
		return;
	}
	print_text(" %s ", d->text);
	switch (d->kind) {
	case K_SPEC:
		print_spec(d, type, nla);
		break;
	case K_QSTR:
		print_string(PRINT_ANY, d->json, "\"%s\"", nla_get_string(nla));
		break;
	case K_GUID:
		format_guid(buf, sizeof(buf), nla_get_u64(nla));
		print_string(PRINT_ANY, d->json, "%s", buf);
		break;
	case K_ENDPOINT:
		print_endpoint(d, nla);
		break;
	case K_ELAPSED:
		format_ns(buf, sizeof(buf), nla_get_u64(nla));
		print_string(PRINT_TEXT, NULL, "%s", buf);
		print_uint(PRINT_JSON, d->json, NULL, nla_get_u64(nla));
		break;
	case K_ERRNO:
		s = (int32_t)nla_get_u32(nla);
		print_int(PRINT_JSON, d->json, NULL, s);
		if (s == 0) {
			print_string(PRINT_TEXT, NULL, "%s", "ok");
		} else {
			print_int(PRINT_TEXT, NULL, "%" PRId64, s);
			print_string(PRINT_ANY, "error", " (%s)",
				     strerror(s < 0 ? -s : s));
		}
		break;
	case K_WC_STATUS:
		print_uint(PRINT_ANY, d->json, "%" PRIu64, nla_get_u32(nla));
		print_string(PRINT_TEXT, NULL, " (%s)",
			     wc_status_name(nla_get_u32(nla)));
		break;
	case K_NONE:
	case K_STATS:
	case K_LAT:
		break;
	}
}

/* What the commands print themselves: the head of a monitor line; "-s". */
static bool printed_apart(int type)
{
	return type == KRDMA_A_EVENT || type == KRDMA_A_STATS;
}

void print_attrs(struct nlattr **tb, const int *types, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!printed_apart(types[i]))
			print_attr(tb, types[i]);
}

void print_attrs_then_rest(struct nlattr **tb, const int *types, size_t n)
{
	bool listed[KRDMA_A_MAX + 1] = { false };
	size_t i;
	int t;

	print_attrs(tb, types, n);
	for (i = 0; i < n; i++)
		if (types[i] > 0 && types[i] <= KRDMA_A_MAX)
			listed[types[i]] = true;
	for (t = 1; t <= KRDMA_A_MAX; t++)
		if (!listed[t] && !printed_apart(t))
			print_attr(tb, t);
}
