// SPDX-License-Identifier: GPL-2.0
/*
 * krdmactl: pure parsing helpers.  No I/O here: errors are returned (and
 * described into a caller buffer by args_parse()), never printed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/krdma.h>

#include "krdma_name.h"
#include "parse.h"

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int hex_val(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static char lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/*
 * Scan an unsigned number at s: decimal, or hex with a 0x prefix if
 * allow_hex.  At least one digit is required; no sign, no white space.
 * *end points past the digits.  Overflow gives -ERANGE (after scanning
 * all digits, so the caller can still check what follows).
 */
static int scan_num(const char *s, bool allow_hex, uint64_t *v,
		    const char **end)
{
	unsigned int base = 10;
	uint64_t acc = 0;
	bool any = false, ovf = false;
	const char *p = s;

	if (!s)
		return -EINVAL;
	if (allow_hex && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
	    hex_val(p[2]) >= 0) {
		base = 16;
		p += 2;
	}
	for (;; p++) {
		int d;

		if (base == 16)
			d = hex_val(*p);
		else
			d = is_digit(*p) ? *p - '0' : -1;
		if (d < 0)
			break;
		any = true;
		if (ovf || acc > (UINT64_MAX - (uint64_t)d) / base)
			ovf = true;
		else
			acc = acc * base + (uint64_t)d;
	}
	if (!any)
		return -EINVAL;
	*end = p;
	*v = acc;
	return ovf ? -ERANGE : 0;
}

int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	const char *end;
	uint64_t v;
	int rc;

	rc = scan_num(s, true, &v, &end);
	if (rc == -EINVAL || (rc == 0 && *end) || (rc == -ERANGE && *end))
		return -EINVAL;
	if (rc)
		return rc;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	uint64_t v;
	int rc;

	rc = parse_u64(s, min, max, &v);
	if (!rc)
		*out = (uint32_t)v;
	return rc;
}

int parse_size_range(const char *s, uint64_t *lo, uint64_t *hi)
{
	const char *dash = s ? strchr(s, '-') : NULL;
	uint64_t a, b;
	char first[32];
	int rc;

	if (!dash) {
		rc = parse_size(s, &a);
		b = a;
	} else {
		if (dash == s || (size_t)(dash - s) >= sizeof(first))
			return -EINVAL;
		memcpy(first, s, (size_t)(dash - s));
		first[dash - s] = '\0';
		rc = parse_size(first, &a);
		if (!rc)
			rc = parse_size(dash + 1, &b);
		if (!rc && (!a || (a & (a - 1)) || a > b))
			rc = -ERANGE;
	}
	if (rc)
		return rc;
	*lo = a;
	*hi = b;
	return 0;
}

int parse_size(const char *s, uint64_t *out)
{
	const char *p;
	unsigned int shift = 0;
	uint64_t v;
	int rc;

	rc = scan_num(s, false, &v, &p);
	if (rc == -EINVAL)
		return rc;
	switch (lower(*p)) {
	case 'k':
		shift = 10;
		break;
	case 'm':
		shift = 20;
		break;
	case 'g':
		shift = 30;
		break;
	case 't':
		shift = 40;
		break;
	}
	if (shift) {
		p++;
		if (*p == 'i')
			p++;
	}
	if (*p == 'B' || *p == 'b')
		p++;
	if (*p)
		return -EINVAL;
	if (rc)
		return rc;
	if (v > (UINT64_MAX >> shift))
		return -ERANGE;
	*out = v << shift;
	return 0;
}

int parse_duration_ms(const char *s, uint64_t *out)
{
	static const struct {
		const char *unit;
		uint64_t ms;
	} units[] = {
		{ "ms", 1 }, { "s", 1000 }, { "m", 60000 },
		{ "min", 60000 }, { "h", 3600000 },
	};
	const char *p;
	uint64_t v;
	size_t i;
	int rc;

	rc = scan_num(s, false, &v, &p);
	if (rc == -EINVAL)
		return rc;
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcmp(p, units[i].unit))
			continue;
		if (rc)
			return rc;
		if (v > UINT64_MAX / units[i].ms)
			return -ERANGE;
		*out = v * units[i].ms;
		return 0;
	}
	return -EINVAL;
}

static const char *const expect_names[__EXPECT_METRIC_MAX] = {
	[EXPECT_BW] = "bw", [EXPECT_MIN_QP_BW] = "min_qp_bw",
	[EXPECT_MSG_RATE] = "msg_rate", [EXPECT_P50] = "p50",
	[EXPECT_P90] = "p90", [EXPECT_P99] = "p99", [EXPECT_P999] = "p99.9",
	[EXPECT_MAX] = "max", [EXPECT_AVG] = "avg", [EXPECT_STDEV] = "stdev",
};

const char *expect_metric_name(enum expect_metric m)
{
	return (unsigned int)m < __EXPECT_METRIC_MAX ? expect_names[m] : NULL;
}

bool expect_metric_is_latency(enum expect_metric m)
{
	return m >= EXPECT_P50 && m < __EXPECT_METRIC_MAX;
}

struct unit_scale {
	const char *unit;
	double scale;
};

/* A non-negative decimal number and one of @units ("" for none). */
static int parse_scaled(const char *s, const struct unit_scale *units,
			size_t n, double *out)
{
	char *end;
	double v;
	size_t i;

	/* strtod() would take hex, inf, nan and leading blanks or signs. */
	if (!is_digit(*s) && !(*s == '.' && is_digit(s[1])))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	/* ...and hex floats ("0x10"): it must stop where the digits do. */
	if (end != s + strspn(s, "0123456789.eE+-"))
		return -EINVAL;
	if (errno || !isfinite(v))
		return -ERANGE;
	for (i = 0; i < n; i++) {
		if (!strcmp(end, units[i].unit)) {
			*out = v * units[i].scale;
			return 0;
		}
	}
	return -EINVAL;
}

static const struct unit_scale bw_units[] = {
	{ "", 1 }, { "MB/s", 1 }, { "GB/s", 1000 }, { "Gb/s", 125 },
};

int parse_bw(const char *s, uint64_t *bytes_per_s)
{
	double mb_s;
	int rc = parse_scaled(s, bw_units, ARRAY_SIZE(bw_units), &mb_s);

	if (rc)
		return rc;
	/* Above 2^64 bytes/s (and at 2^64, which rounds up to it): no. */
	if (mb_s * 1e6 >= 18446744073709551616.0)
		return -ERANGE;
	*bytes_per_s = (uint64_t)(mb_s * 1e6 + 0.5);
	return 0;
}

int parse_expect(const char *s, struct expect *e)
{
	static const struct unit_scale rate_units[] = {
		{ "", 1 }, { "k", 1e3 }, { "M", 1e6 }, { "G", 1e9 },
	};
	static const struct unit_scale time_units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	const char *op = strstr(s, ">=");
	char name[16];
	size_t len;
	int m;

	if (!op)
		op = strstr(s, "<=");
	if (!op)
		return -EINVAL;
	len = (size_t)(op - s);
	if (!len || len >= sizeof(name))
		return -EINVAL;
	memcpy(name, s, len);
	name[len] = '\0';
	/* Names in full: a threshold on the wrong figure passes silently. */
	for (m = 0; m < __EXPECT_METRIC_MAX; m++)
		if (!strcmp(name, expect_names[m]))
			break;
	if (!strcmp(name, "p999"))
		m = EXPECT_P999;
	if (m == __EXPECT_METRIC_MAX)
		return -EINVAL;
	e->text = s;
	e->metric = m;
	e->at_most = op[0] == '<';
	if (m == EXPECT_BW || m == EXPECT_MIN_QP_BW)
		return parse_scaled(op + 2, bw_units, ARRAY_SIZE(bw_units),
				    &e->value);
	if (m == EXPECT_MSG_RATE)
		return parse_scaled(op + 2, rate_units, ARRAY_SIZE(rate_units),
				    &e->value);
	return parse_scaled(op + 2, time_units, ARRAY_SIZE(time_units),
			    &e->value);
}

int format_size_units(char *buf, size_t len, uint64_t v)
{
	static const char units[] = "KMGT";
	int i = -1;

	while (v && i < 3 && !(v & 1023)) {
		v >>= 10;
		i++;
	}
	if (i < 0)
		return snprintf(buf, len, "%llu", (unsigned long long)v);
	return snprintf(buf, len, "%llu%c", (unsigned long long)v, units[i]);
}

int format_duration_units(char *buf, size_t len, uint64_t ms)
{
	static const struct {
		const char *unit;
		uint64_t ms;
	} units[] = { { "h", 3600000 }, { "m", 60000 }, { "s", 1000 } };
	size_t i;

	/* Minutes from 2m: "60s" reads better than "1m" next to "100ms". */
	for (i = 0; ms && i < ARRAY_SIZE(units); i++)
		if (!(ms % units[i].ms) && (units[i].ms != 60000 || ms >= 120000))
			return snprintf(buf, len, "%llu%s",
					(unsigned long long)(ms / units[i].ms),
					units[i].unit);
	return snprintf(buf, len, "%llums", (unsigned long long)ms);
}

int parse_ip_addr(const char *s, struct ip_addr *a)
{
	struct ip_addr tmp;

	if (!s || !*s)
		return -EINVAL;
	memset(&tmp, 0, sizeof(tmp));
	if (inet_pton(AF_INET, s, tmp.bytes) == 1) {
		tmp.family = AF_INET;
	} else if (inet_pton(AF_INET6, s, tmp.bytes) == 1) {
		tmp.family = AF_INET6;
	} else {
		return -EINVAL;
	}
	*a = tmp;
	return 0;
}

int parse_port(const char *s, uint16_t *port)
{
	uint32_t v;
	int rc;

	/* Ports are always decimal. */
	if (!s || !is_digit(s[0]) || (s[0] == '0' && s[1] == 'x'))
		return -EINVAL;
	rc = parse_u32(s, 1, 65535, &v);
	if (!rc)
		*port = (uint16_t)v;
	return rc;
}

int parse_endpoint(const char *s, struct ip_addr *a, uint16_t *port,
		   bool *has_port)
{
	char buf[INET6_ADDRSTRLEN + 1];
	const char *colon, *close;
	struct ip_addr tmp;
	uint16_t p = 0;
	size_t len;
	int rc;

	if (!s || !*s)
		return -EINVAL;
	if (s[0] == '[') {
		close = strchr(s, ']');
		if (!close)
			return -EINVAL;
		len = (size_t)(close - s - 1);
		if (len == 0 || len >= sizeof(buf))
			return -EINVAL;
		memcpy(buf, s + 1, len);
		buf[len] = '\0';
		if (parse_ip_addr(buf, &tmp) || tmp.family != AF_INET6)
			return -EINVAL;
		if (close[1] == '\0') {
			*has_port = false;
		} else if (close[1] == ':') {
			rc = parse_port(close + 2, &p);
			if (rc)
				return rc;
			*has_port = true;
		} else {
			return -EINVAL;
		}
	} else {
		colon = strchr(s, ':');
		if (colon && !strchr(colon + 1, ':')) {
			/* Exactly one colon: IPv4:PORT. */
			len = (size_t)(colon - s);
			if (len == 0 || len >= sizeof(buf))
				return -EINVAL;
			memcpy(buf, s, len);
			buf[len] = '\0';
			if (parse_ip_addr(buf, &tmp) || tmp.family != AF_INET)
				return -EINVAL;
			rc = parse_port(colon + 1, &p);
			if (rc)
				return rc;
			*has_port = true;
		} else {
			rc = parse_ip_addr(s, &tmp);
			if (rc)
				return rc;
			*has_port = false;
		}
	}
	*a = tmp;
	if (*has_port)
		*port = p;
	return 0;
}

resolver_fn parse_resolver;

int parse_host_endpoint(const char *s, struct ip_addr *a, uint16_t *port,
			bool *has_port, char *err, size_t errlen)
{
	const char *colon = s ? strchr(s, ':') : NULL, *start = s, *close;
	char host[256];
	struct ip_addr tmp;
	uint16_t p = 0;
	size_t len;
	int rc;

	if (!s || !*s) {
		snprintf(err, errlen, "not an address");
		return -EINVAL;
	}
	if (s[0] == '[') {
		/* [ADDR6%IFACE]:PORT */
		close = strchr(s, ']');
		if (!close || !strchr(s, '%') || (close[1] && close[1] != ':')) {
			snprintf(err, errlen, "not an address");
			return -EINVAL;
		}
		start = s + 1;
		len = (size_t)(close - start);
		colon = close[1] ? close + 1 : NULL;
	} else if (colon && strchr(colon + 1, ':')) {
		/* ADDR6%IFACE: every colon is the address's */
		if (!strchr(s, '%')) {
			snprintf(err, errlen, "not an address");
			return -EINVAL;
		}
		len = strlen(s);
		colon = NULL;
	} else {
		len = colon ? (size_t)(colon - s) : strlen(s);
	}
	if (!len || len >= sizeof(host)) {
		snprintf(err, errlen, "not a host name");
		return -EINVAL;
	}
	memcpy(host, start, len);
	host[len] = '\0';
	if (colon) {
		rc = parse_port(colon + 1, &p);
		if (rc) {
			snprintf(err, errlen, "bad port '%s' (1..65535)", colon + 1);
			return rc;
		}
	}
	if (!parse_resolver) {
		snprintf(err, errlen, "host names are not looked up here");
		return -EINVAL;
	}
	rc = parse_resolver(host, &tmp, err, errlen);
	if (rc)
		return rc;
	*a = tmp;
	*has_port = colon != NULL;
	if (colon)
		*port = p;
	return 0;
}

int format_ip_addr(char *buf, size_t len, const struct ip_addr *a)
{
	char tmp[INET6_ADDRSTRLEN];

	if (!a || !inet_ntop(a->family, a->bytes, tmp, sizeof(tmp)))
		return snprintf(buf, len, "?");
	return snprintf(buf, len, "%s", tmp);
}

int format_endpoint(char *buf, size_t len, const struct ip_addr *a, int port)
{
	char tmp[INET6_ADDRSTRLEN + 2];

	if (!a)
		snprintf(tmp, sizeof(tmp), "*");
	else if (a->family == AF_INET6 && port >= 0) {
		tmp[0] = '[';
		format_ip_addr(tmp + 1, sizeof(tmp) - 2, a);
		strcat(tmp, "]");
	} else {
		format_ip_addr(tmp, sizeof(tmp), a);
	}
	if (port < 0)
		return snprintf(buf, len, "%s", tmp);
	return snprintf(buf, len, "%s:%d", tmp, port);
}

int format_guid(char *buf, size_t len, uint64_t guid)
{
	return snprintf(buf, len, "%04x:%04x:%04x:%04x",
			(unsigned int)(guid >> 48) & 0xffff,
			(unsigned int)(guid >> 32) & 0xffff,
			(unsigned int)(guid >> 16) & 0xffff,
			(unsigned int)guid & 0xffff);
}

static const char *table_name(const void *table, size_t i, size_t stride)
{
	return *(const char *const *)((const char *)table + i * stride);
}

int match_table(const char *word, const void *table, size_t n, size_t stride)
{
	int found = MATCH_NONE;
	size_t len, i;

	if (!word || !*word)
		return MATCH_NONE;
	len = strlen(word);
	for (i = 0; i < n; i++) {
		const char *name = table_name(table, i, stride);

		if (!name)
			continue;
		if (!strcmp(name, word))
			return (int)i;
		if (!strncmp(name, word, len))
			found = found == MATCH_NONE ? (int)i : MATCH_AMBIGUOUS;
	}
	return found;
}

int match_word(const char *word, const char *const *names, size_t n)
{
	return match_table(word, names, n, sizeof(*names));
}

const char *const op_names[] = {
	[KRDMA_OP_PING] = "ping",
	[KRDMA_OP_SEND] = "send",
	[KRDMA_OP_SEND_IMM] = "send_imm",
	[KRDMA_OP_WRITE] = "write",
	[KRDMA_OP_WRITE_IMM] = "write_imm",
	[KRDMA_OP_READ] = "read",
	[KRDMA_OP_ATOMIC_FADD] = "atomic_fadd",
	[KRDMA_OP_ATOMIC_CSWAP] = "atomic_cswap",
	[__KRDMA_OP_MAX] = NULL,
};

const char *const mode_names[] = {
	[KRDMA_MODE_CHECK] = "check",
	[KRDMA_MODE_BW] = "bw",
	[KRDMA_MODE_LAT] = "lat",
	[__KRDMA_MODE_MAX] = NULL,
};

int parse_mode(const char *s)
{
	return s ? match_word(s, mode_names, __KRDMA_MODE_MAX) : MATCH_NONE;
}

int parse_op(const char *s)
{
	char buf[32];
	size_t i;

	if (!s || strlen(s) >= sizeof(buf))
		return MATCH_NONE;
	for (i = 0; s[i]; i++)
		buf[i] = s[i] == '-' ? '_' : s[i];
	buf[i] = '\0';
	return match_word(buf, op_names, __KRDMA_OP_MAX);
}

const char *op_name(unsigned int op)
{
	return op < __KRDMA_OP_MAX ? op_names[op] : NULL;
}

int check_name(const char *s)
{
	if (!s)
		return -EINVAL;
	switch (krdma_name_check(s)) {
	case KRDMA_NAME_OK:
		return 0;
	case KRDMA_NAME_TOO_LONG:
		return -ERANGE;
	default:
		return -EINVAL;
	}
}

/* ---- keyword argument tables ---- */

struct errbuf {
	char *buf;
	size_t len;
	size_t used;
};

static void eb_add(struct errbuf *eb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void eb_add(struct errbuf *eb, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!eb->buf || eb->used >= eb->len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(eb->buf + eb->used, eb->len - eb->used, fmt, ap);
	va_end(ap);
	if (n > 0)
		eb->used += (size_t)n;
	if (eb->used >= eb->len)
		eb->used = eb->len;
}

/* Append "a, b, c" of the names in table that start with prefix. */
static void eb_list(struct errbuf *eb, const void *table, size_t n,
		    size_t stride, const char *prefix)
{
	size_t plen = prefix ? strlen(prefix) : 0;
	bool first = true;
	size_t i;

	for (i = 0; i < n; i++) {
		const char *name = table_name(table, i, stride);

		if (!name || (plen && strncmp(name, prefix, plen)))
			continue;
		eb_add(eb, "%s%s", first ? "" : ", ", name);
		first = false;
	}
}

static const char *meta(const struct arg_spec *sp)
{
	return sp->meta ? sp->meta : "VALUE";
}

/*
 * The checks every numeric kind shares: a syntax error (@rc -EINVAL) says
 * what was expected, anything else out of sp->min..sp->max (0: the type's
 * limit) says the range, in @unit. @lo..@hi is what @value parsed to (one
 * number, or a range); it is only read when @rc is 0.
 */
static int check_number(struct errbuf *eb, const struct arg_spec *sp,
			const char *value, int rc, const char *expected,
			uint64_t lo, uint64_t hi)
{
	uint64_t max = sp->max;
	char smin[32], smax[32];

	if (!max)
		max = sp->type == ARG_U32 ? UINT32_MAX : UINT64_MAX;
	if (rc == -EINVAL) {
		eb_add(eb, "invalid %s '%s': %s", sp->kw, value, expected);
		return rc;
	}
	if (rc || lo < sp->min || hi > max) {
		/* In the units the user writes the value in. */
		if (sp->type == ARG_DURATION) {
			format_duration_units(smin, sizeof(smin), sp->min);
			format_duration_units(smax, sizeof(smax), max);
		} else if (sp->type == ARG_SIZE || sp->type == ARG_SIZES) {
			format_size_units(smin, sizeof(smin), sp->min);
			format_size_units(smax, sizeof(smax), max);
		} else {
			snprintf(smin, sizeof(smin), "%llu",
				 (unsigned long long)sp->min);
			snprintf(smax, sizeof(smax), "%llu",
				 (unsigned long long)max);
		}
		eb_add(eb, "%s '%s' out of range: must be %s..%s", sp->kw,
		       value, smin, smax);
		return -ERANGE;
	}
	sp->val->num = lo;
	sp->val->num_hi = hi;
	return 0;
}

/* A keyword out of @names (@rc: what the matcher made of @value). */
static int parse_keyword(struct errbuf *eb, const struct arg_spec *sp,
			 struct arg_val *v, const char *value, int rc,
			 const char *const *names, size_t n)
{
	if (rc == MATCH_AMBIGUOUS) {
		eb_add(eb, "ambiguous %s '%s' (could be: ", sp->kw, value);
		eb_list(eb, names, n, sizeof(*names), value);
		eb_add(eb, ")");
		return -EINVAL;
	}
	if (rc < 0) {
		eb_add(eb, "unknown %s '%s' (valid: ", sp->kw, value);
		eb_list(eb, names, n, sizeof(*names), NULL);
		eb_add(eb, ")");
		return -EINVAL;
	}
	v->num = (uint64_t)rc;
	return 0;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!is_digit(*s))
			return false;
	return true;
}

static int convert(const struct arg_spec *sp, const char *value,
		   struct errbuf *eb)
{
	struct arg_val *v = sp->val;
	uint64_t num = 0, hi = 0;
	uint16_t port;
	int rc;

	switch (sp->type) {
	case ARG_STR:
		if (!*value || (sp->max && strlen(value) > sp->max)) {
			eb_add(eb, "%s: %s must be 1..%llu characters",
			       sp->kw, meta(sp), (unsigned long long)sp->max);
			return -EINVAL;
		}
		v->str = value;
		return 0;
	case ARG_NAME:
		rc = check_name(value);
		if (rc) {
			eb_add(eb, "invalid %s '%s': use 1..%d printable characters without spaces, not all digits",
			       sp->kw, value, KRDMA_NAME_MAX - 1);
			return rc;
		}
		v->str = value;
		return 0;
	case ARG_U32:
	case ARG_U64:
		rc = parse_u64(value, 0, UINT64_MAX, &num);
		return check_number(eb, sp, value, rc, "not a number", num, num);
	case ARG_SIZE:
		rc = parse_size(value, &num);
		return check_number(eb, sp, value, rc,
				    "expected a size such as 512, 4K, 64k, 1M, 1MiB, 2G",
				    num, num);
	case ARG_SIZES:
		rc = parse_size_range(value, &num, &hi);
		if (rc == -ERANGE && strchr(value, '-')) {
			eb_add(eb, "invalid %s '%s': a range goes from a power of two up to a larger size",
			       sp->kw, value);
			return rc;
		}
		return check_number(eb, sp, value, rc,
				    "expected a size such as 4K, or a range of powers of two such as 2-8M",
				    num, hi);
	case ARG_BW:
		rc = parse_bw(value, &num);
		return check_number(eb, sp, value, rc,
				    "expected MB/s such as 2, 0.5, 1.5GB/s or 10Gb/s",
				    num, num);
	case ARG_DURATION:
		rc = parse_duration_ms(value, &num);
		if (rc == -EINVAL && all_digits(value)) {
			eb_add(eb, "invalid %s '%s': a time needs a unit: %sms, %ss, %sm or %sh",
			       sp->kw, value, value, value, value, value);
			return rc;
		}
		return check_number(eb, sp, value, rc,
				    "expected a duration such as 500ms, 10s, 2m, 1h",
				    num, num);
	case ARG_ADDR: {
		char why[128];

		rc = parse_endpoint(value, &v->addr, &v->port, &v->has_port);
		if (!rc && v->addr.family == AF_INET6 && v->addr.bytes[0] == 0xfe &&
		    (v->addr.bytes[1] & 0xc0) == 0x80) {
			/* fe80::/10 exists on every interface: which one? */
			eb_add(eb, "invalid %s '%s': a link-local address needs its interface, ADDR6%%IFACE",
			       sp->kw, value);
			return -EINVAL;
		}
		if (!rc)
			return 0;
		rc = parse_host_endpoint(value, &v->addr, &v->port,
					 &v->has_port, why, sizeof(why));
		if (rc == -ENOENT) {
			eb_add(eb, "invalid %s '%s': %s", sp->kw, value, why);
			return -EINVAL;
		}
		if (rc) {
			eb_add(eb, "invalid %s '%s': expected a host name or an IPv4 or IPv6 address, optionally as HOST:PORT, ADDR4:PORT or [ADDR6]:PORT",
			       sp->kw, value);
			return -EINVAL;
		}
		return 0;
	}
	case ARG_PORT:
		rc = parse_port(value, &port);
		if (rc) {
			eb_add(eb, "invalid %s '%s': expected 1..65535", sp->kw,
			       value);
			return rc;
		}
		v->num = port;
		return 0;
	case ARG_FLAG:
		v->num = 1;
		return 0;
	case ARG_OP:
		return parse_keyword(eb, sp, v, value, parse_op(value), op_names,
				     __KRDMA_OP_MAX);
	case ARG_MODE:
		return parse_keyword(eb, sp, v, value, parse_mode(value),
				     mode_names, __KRDMA_MODE_MAX);
	case ARG_EXPECT:
		if (v->nexpect == EXPECTS_MAX) {
			eb_add(eb, "at most %d '%s'", EXPECTS_MAX, sp->kw);
			return -EINVAL;
		}
		rc = parse_expect(value, &v->expect[v->nexpect]);
		if (rc) {
			eb_add(eb, "invalid %s '%s': expected METRIC>=VALUE or METRIC<=VALUE, e.g. bw>=500, min_qp_bw>=100MB/s, msg_rate>=1M, p99<=2ms",
			       sp->kw, value);
			return rc;
		}
		v->nexpect++;
		return 0;
	case ARG_REF:
		if (all_digits(value)) {
			rc = parse_u64(value, 0, UINT32_MAX, &num);
			if (rc) {
				eb_add(eb, "%s '%s' out of range: must be 0..%u",
				       sp->kw, value, UINT32_MAX);
				return rc;
			}
			v->is_num = true;
			v->num = num;
			return 0;
		}
		if (check_name(value)) {
			eb_add(eb, "invalid %s '%s': expected an id or a name",
			       sp->kw, value);
			return -EINVAL;
		}
		v->str = value;
		return 0;
	}
	eb_add(eb, "internal error: bad argument type for %s", sp->kw);
	return -EINVAL;
}

static bool has_help_kw(const struct arg_spec *specs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(specs[i].kw, "help"))
			return true;
	return false;
}

int args_parse(const struct arg_spec *specs, size_t n, int argc,
	       char *const *argv, char *err, size_t errlen)
{
	struct errbuf eb = { err, errlen, 0 };
	const struct arg_spec *positional = NULL;
	size_t i, j;
	int a = 0;

	if (err && errlen)
		err[0] = '\0';
	for (i = 0; i < n; i++) {
		memset(specs[i].val, 0, sizeof(*specs[i].val));
		if ((specs[i].flags & ARG_POSITIONAL) && !positional)
			positional = &specs[i];
	}

	while (a < argc) {
		const char *word = argv[a], *value;
		const struct arg_spec *sp;
		int k;

		if (!strcmp(word, "help") && !has_help_kw(specs, n))
			return ARGS_HELP;
		k = match_table(word, specs, n, sizeof(*specs));
		if (k == MATCH_AMBIGUOUS) {
			eb_add(&eb, "ambiguous keyword '%s' (could be: ", word);
			eb_list(&eb, specs, n, sizeof(*specs), word);
			eb_add(&eb, ")");
			return -EINVAL;
		}
		if (k == MATCH_NONE) {
			if (a != 0 || !positional) {
				if (!n)
					eb_add(&eb, "unexpected argument '%s' (this command takes none)",
					       word);
				else {
					eb_add(&eb, "unknown keyword '%s' (valid keywords: ",
					       word);
					eb_list(&eb, specs, n, sizeof(*specs),
						NULL);
					eb_add(&eb, ")");
				}
				return -EINVAL;
			}
			sp = positional;
			value = word;
			a += 1;
		} else if (specs[k].type == ARG_FLAG) {
			sp = &specs[k];
			value = NULL;
			a += 1;
		} else {
			sp = &specs[k];
			if (a + 1 >= argc) {
				eb_add(&eb, "keyword '%s' needs a value (%s %s)",
				       sp->kw, sp->kw, meta(sp));
				return -EINVAL;
			}
			value = argv[a + 1];
			a += 2;
		}
		if (sp->val->set && sp->type != ARG_EXPECT) {
			eb_add(&eb, "duplicate keyword '%s'", sp->kw);
			return -EINVAL;
		}
		for (j = 0; sp->group && j < n; j++) {
			if (&specs[j] != sp && specs[j].group == sp->group &&
			    specs[j].val->set) {
				eb_add(&eb, "'%s' and '%s' cannot be used together",
				       specs[j].kw, sp->kw);
				return -EINVAL;
			}
		}
		if (convert(sp, value, &eb))
			return -EINVAL;
		sp->val->set = true;
	}

	for (i = 0; i < n; i++) {
		const struct arg_spec *sp = &specs[i];
		bool found = false;

		if (!(sp->flags & ARG_REQUIRED) || sp->val->set)
			continue;
		if (!sp->group && (sp->flags & ARG_POSITIONAL)) {
			eb_add(&eb, "missing %s", meta(sp));
			return -EINVAL;
		}
		if (!sp->group) {
			eb_add(&eb, "missing required keyword '%s' (%s %s)",
			       sp->kw, sp->kw, meta(sp));
			return -EINVAL;
		}
		for (j = 0; j < n; j++)
			if (specs[j].group == sp->group && specs[j].val->set)
				found = true;
		if (!found) {
			bool first = true;

			eb_add(&eb, "one of ");
			for (j = 0; j < n; j++) {
				if (specs[j].group != sp->group)
					continue;
				eb_add(&eb, "%s'%s'", first ? "" : ", ",
				       specs[j].kw);
				first = false;
			}
			eb_add(&eb, " is required");
			return -EINVAL;
		}
	}
	return 0;
}
