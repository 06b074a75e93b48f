// SPDX-License-Identifier: GPL-2.0
/*
 * krdmactl: the words of the command line: prefix matching, op, mode
 * and object names, and args_parse(), the keyword-argument table
 * parser built on them and on parse.c and addr.c.  No I/O here:
 * errors are described into a caller buffer, never printed.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/krdma.h>

#include "krdma_name.h"
#include "nl-gen.h"
#include "parse.h"

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

int parse_mode(const char *s)
{
	return s ? match_word(s, krdma_test_mode_strmap,
			       ARRAY_SIZE(krdma_test_mode_strmap)) : MATCH_NONE;
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
	return match_word(buf, krdma_op_strmap, ARRAY_SIZE(krdma_op_strmap));
}

const char *op_name(unsigned int op)
{
	return op < ARRAY_SIZE(krdma_op_strmap) ? krdma_op_strmap[op] : NULL;
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

static void eb_vadd(struct errbuf *eb, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
static void eb_add(struct errbuf *eb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int eb_invalid(struct errbuf *eb, const struct arg_spec *sp,
		      const char *value, int rc, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void eb_vadd(struct errbuf *eb, const char *fmt, va_list ap)
{
	int n;

	if (!eb->buf || eb->used >= eb->len)
		return;
	n = vsnprintf(eb->buf + eb->used, eb->len - eb->used, fmt, ap);
	if (n > 0)
		eb->used += (size_t)n;
	if (eb->used >= eb->len)
		eb->used = eb->len;
}

static void eb_add(struct errbuf *eb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	eb_vadd(eb, fmt, ap);
	va_end(ap);
}

/*
 * "invalid KW 'VALUE': " and what fmt says of it; returns rc, so that a
 * value's check ends in one "return eb_invalid(...)".
 */
static int eb_invalid(struct errbuf *eb, const struct arg_spec *sp,
		      const char *value, int rc, const char *fmt, ...)
{
	va_list ap;

	eb_add(eb, "invalid %s '%s': ", sp->kw, value);
	va_start(ap, fmt);
	eb_vadd(eb, fmt, ap);
	va_end(ap);
	return rc;
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
	if (rc == -EINVAL)
		return eb_invalid(eb, sp, value, rc, "%s", expected);
	if (rc == -EDOM) {
		/* "1.5" bytes, "1500us" of a module that counts ms: say so
		 * rather than round behind the user's back. */
		return eb_invalid(eb, sp, value, -EINVAL, "not a whole number of %s",
				  sp->type == ARG_DURATION ? "milliseconds (the unit krdma counts times in)" :
				  sp->type == ARG_COUNT ? "iterations" : "bytes");
	}
	if (rc || lo < sp->min || hi > max) {
		/* In the units the user writes the value in. */
		if (sp->type == ARG_DURATION) {
			format_duration_units(smin, sizeof(smin), sp->min);
			format_duration_units(smax, sizeof(smax), max);
		} else if (sp->type == ARG_PERCENT) {
			snprintf(smin, sizeof(smin), "%g%%", (double)sp->min / 100);
			snprintf(smax, sizeof(smax), "%g%%", (double)max / 100);
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

/* "10K": a count written as a size's thousand (1024), 10k meant. */
static bool count_with_K(const char *s)
{
	size_t len = strlen(s);
	char k[32];
	uint64_t v;

	if (len < 2 || len >= sizeof(k) || s[len - 1] != 'K')
		return false;
	memcpy(k, s, len);
	k[len - 1] = 'k';
	k[len] = '\0';
	return parse_count(k, &v) != -EINVAL;
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
		if (rc)
			return eb_invalid(eb, sp, value, rc,
					  "use 1..%d printable characters without spaces, not all digits",
					  KRDMA_NAME_MAX - 1);
		v->str = value;
		return 0;
	case ARG_U32:
	case ARG_U64:
		rc = parse_u64(value, 0, UINT64_MAX, &num);
		/* "1k", "1.5": a number, but not the plain one asked for. */
		return check_number(eb, sp, value, rc,
				    is_digit(value[0]) || value[0] == '.' ?
				    "expected a whole number without a unit or a fraction, such as 16" :
				    "not a number", num, num);
	case ARG_COUNT:
		rc = parse_count(value, &num);
		if (rc == -EINVAL && count_with_K(value))
			return eb_invalid(eb, sp, value, rc,
					  "K is 1024, in sizes; a count's thousands are k: %.*sk",
					  (int)strlen(value) - 1, value);
		return check_number(eb, sp, value, rc,
				    "expected a count such as 1000, 10k, 1.5M or 2G",
				    num, num);
	case ARG_SIZE:
		rc = parse_size(value, &num);
		return check_number(eb, sp, value, rc,
				    "expected a size such as 512, 4K, 64k, 1.5M, 1MiB, 2G",
				    num, num);
	case ARG_SIZES:
		rc = parse_size_range(value, &num, &hi);
		if (rc == -ERANGE && strchr(value, '-'))
			return eb_invalid(eb, sp, value, rc,
					  "a range goes from a power of two up to a larger size");
		/* What the output's shape follows: "4K-4K" is a sweep of one. */
		v->range = strchr(value, '-') != NULL;
		return check_number(eb, sp, value, rc,
				    "expected a size such as 4K, or a range of powers of two such as 2-8M",
				    num, hi);
	case ARG_RATE:
		rc = parse_rate(value, &num, &v->per_msg);
		return check_number(eb, sp, value, rc,
				    "expected MB/s such as 2 or 0.5, or a unit: MB/s, GB/s, MiB/s, GiB/s, Mb/s, Gb/s, or packets/s: pps, kpps, Mpps",
				    num, num);
	case ARG_PERCENT:
		rc = parse_percent(value, &num);
		return check_number(eb, sp, value, rc,
				    "expected a percentage such as 5, 5% or 2.5%",
				    num, num);
	case ARG_DURATION:
		rc = parse_duration_ms(value, &num);
		if (rc == -EINVAL && *value &&
		    strspn(value, "0123456789.") == strlen(value))
			return eb_invalid(eb, sp, value, rc,
					  "a time needs a unit: %sms, %ss, %sm or %sh",
					  value, value, value, value);
		return check_number(eb, sp, value, rc,
				    "expected a duration such as 500ms, 1.5s, 2m, 1h",
				    num, num);
	case ARG_ADDR: {
		char why[128];

		rc = parse_endpoint(value, &v->addr, &v->port, &v->has_port);
		/* fe80::/10 exists on every interface: which one? */
		if (!rc && v->addr.family == AF_INET6 && v->addr.bytes[0] == 0xfe &&
		    (v->addr.bytes[1] & 0xc0) == 0x80)
			return eb_invalid(eb, sp, value, -EINVAL,
					  "a link-local address needs its interface, ADDR6%%IFACE");
		if (!rc)
			return 0;
		rc = parse_host_endpoint(value, &v->addr, &v->port,
					 &v->has_port, why, sizeof(why));
		if (rc == -ENOENT)
			return eb_invalid(eb, sp, value, -EINVAL, "%s", why);
		if (rc)
			return eb_invalid(eb, sp, value, -EINVAL,
					  "expected a host name or an IPv4 or IPv6 address, optionally as HOST:PORT, ADDR4:PORT or [ADDR6]:PORT");
		return 0;
	}
	case ARG_PORT:
		rc = parse_port(value, &port);
		if (rc)
			return eb_invalid(eb, sp, value, rc, "expected 1..65535");
		v->num = port;
		return 0;
	case ARG_FLAG:
		v->num = 1;
		return 0;
	case ARG_OP:
		return parse_keyword(eb, sp, v, value, parse_op(value),
				     krdma_op_strmap,
				     ARRAY_SIZE(krdma_op_strmap));
	case ARG_MODE:
		return parse_keyword(eb, sp, v, value, parse_mode(value),
				     krdma_test_mode_strmap,
				     ARRAY_SIZE(krdma_test_mode_strmap));
	case ARG_EXPECT:
		if (v->nexpect == EXPECTS_MAX) {
			eb_add(eb, "at most %d '%s'", EXPECTS_MAX, sp->kw);
			return -EINVAL;
		}
		rc = parse_expect(value, &v->expect[v->nexpect]);
		if (rc)
			return eb_invalid(eb, sp, value, rc,
					  "expected METRIC>=VALUE or METRIC<=VALUE, e.g. 'bw>=500', 'min_qp_bw>=100MB/s', 'msg_rate>=1M', 'p99<=2ms' (quoted for the shell)");
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
		if (check_name(value))
			return eb_invalid(eb, sp, value, -EINVAL,
					  "expected an id or a name");
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
