// SPDX-License-Identifier: GPL-2.0
/*
 * krdmactl: numbers as the command line writes them: integers, sizes
 * and size ranges, durations, bandwidths, pass/fail thresholds, and
 * sizes and durations written back in their units.  No I/O here:
 * errors are returned, never printed.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

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

int parse_percent(const char *s, uint64_t *hundredths)
{
	static const struct unit_scale pct_units[] = { { "", 1 }, { "%", 1 } };
	double pct;
	int rc = parse_scaled(s, pct_units, ARRAY_SIZE(pct_units), &pct);

	if (rc)
		return rc;
	if (pct * 100 >= 18446744073709551616.0)
		return -ERANGE;
	*hundredths = (uint64_t)(pct * 100 + 0.5);
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
