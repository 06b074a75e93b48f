// SPDX-License-Identifier: GPL-2.0
/*
 * krdmactl: numbers as the command line writes them: integers, sizes
 * and size ranges, durations, bandwidths, pass/fail thresholds, and
 * sizes and durations written back in their units.  No I/O here:
 * errors are returned, never printed.
 */
#include <errno.h>
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

/*
 * The one grammar of a quantity on the command line, whatever its unit
 * (sizes, counts, times, rates, percentages, thresholds):
 *
 *	NUMBER := DIGITS [ "." DIGITS ] | "." DIGITS
 *
 * no sign, no exponent, no hex, no blanks; its unit follows at once.
 * The value is kept as written, mant / 10^frac, and multiplied by the
 * unit exactly: "1.5s" is 1500 ms, "1.5M" 1500000 iterations, and what
 * is no whole number of the unit counted in ("1.5" bytes) is -EDOM, not
 * rounded behind the user's back. (Ids and the plain N of depth, qps,
 * tos are integers: parse_u64(), which takes 0x.)
 */
struct decimal {
	uint64_t mant;
	unsigned int frac;	/* digits after the point */
};

#define DECIMAL_FRAC_MAX	19	/* 10^19 still fits 64 bits */

static uint64_t pow10_u64(unsigned int n)
{
	uint64_t v = 1;

	while (n--)
		v *= 10;
	return v;
}

/*
 * Scan NUMBER at s into *d; *end is where its unit starts. -EINVAL if
 * there is no NUMBER there; -ERANGE (after scanning every digit, so
 * that the unit can still be checked) if it has more digits than 64 bits
 * hold.
 */
static int scan_decimal(const char *s, struct decimal *d, const char **end)
{
	bool point = false, ovf = false;
	unsigned int digits = 0, after = 0;
	const char *p = s;

	d->mant = 0;
	d->frac = 0;
	if (!s)
		return -EINVAL;
	for (;; p++) {
		unsigned int v;

		if (*p == '.' && !point) {
			point = true;
			continue;
		}
		if (!is_digit(*p))
			break;
		v = (unsigned int)(*p - '0');
		digits++;
		if (point)
			after++;
		if (ovf || d->mant > (UINT64_MAX - v) / 10 ||
		    after > DECIMAL_FRAC_MAX) {
			ovf = true;
			continue;
		}
		d->mant = d->mant * 10 + v;
		d->frac = after;
	}
	/* "5." and "." are not numbers; ".5" is. */
	if (!digits || (point && !after))
		return -EINVAL;
	*end = p;
	return ovf ? -ERANGE : 0;
}

/*
 * d * scale: exactly (-EDOM if that is no whole number), or rounded to
 * the nearest; -ERANGE beyond 64 bits.
 */
static int decimal_times(const struct decimal *d, uint64_t scale, bool round,
			 uint64_t *out)
{
	unsigned __int128 prod = (unsigned __int128)d->mant * scale;
	uint64_t div = pow10_u64(d->frac);
	unsigned __int128 q = prod / div, r = prod % div;

	if (r && !round)
		return -EDOM;
	if (r * 2 >= div && r)
		q++;
	if (q > UINT64_MAX)
		return -ERANGE;
	*out = (uint64_t)q;
	return 0;
}

struct unit_scale {
	const char *unit;
	uint64_t scale;		/* in the unit counted in */
};

/* NUMBER and one of @units ("" for none, if listed), in *d and *scale. */
static int parse_units(const char *s, const struct unit_scale *units,
		       size_t n, struct decimal *d, uint64_t *scale)
{
	const char *end;
	size_t i;
	int rc;

	rc = scan_decimal(s, d, &end);
	if (rc == -EINVAL)
		return rc;
	for (i = 0; i < n; i++) {
		if (!strcmp(end, units[i].unit)) {
			*scale = units[i].scale;
			return rc;
		}
	}
	return -EINVAL;
}

/* NUMBER UNIT, exactly or rounded, in the unit counted in. */
static int parse_units_u64(const char *s, const struct unit_scale *units,
			   size_t n, bool round, uint64_t *out)
{
	struct decimal d;
	uint64_t scale, v;
	int rc = parse_units(s, units, n, &d, &scale);

	if (!rc)
		rc = decimal_times(&d, scale, round, &v);
	if (!rc)
		*out = v;
	return rc;
}

/* NUMBER UNIT as a double in the unit counted in, for thresholds. */
static int parse_units_double(const char *s, const struct unit_scale *units,
			      size_t n, double *out)
{
	struct decimal d;
	uint64_t scale;
	int rc = parse_units(s, units, n, &d, &scale);

	if (!rc)
		*out = (double)d.mant / (double)pow10_u64(d.frac) *
		       (double)scale;
	return rc;
}

/* K, M, G, T in any case, then an optional "i", then an optional B or b. */
static bool size_unit(const char *p, uint64_t *scale)
{
	unsigned int shift = 0;

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
	*scale = 1ULL << shift;
	return !*p;
}

int parse_size(const char *s, uint64_t *out)
{
	struct decimal d;
	const char *end;
	uint64_t scale, v;
	int rc;

	rc = scan_decimal(s, &d, &end);
	if (rc == -EINVAL || !size_unit(end, &scale))
		return -EINVAL;
	if (!rc)
		rc = decimal_times(&d, scale, false, &v);
	if (!rc)
		*out = v;
	return rc;
}

/* The units of counts and of msg_rate: powers of 1000 (not bytes). */
static const struct unit_scale count_units[] = {
	{ "", 1 }, { "k", 1000 }, { "M", 1000000 }, { "G", 1000000000 },
};

int parse_count(const char *s, uint64_t *out)
{
	return parse_units_u64(s, count_units, ARRAY_SIZE(count_units), false,
			       out);
}

/* Every time, in nanoseconds; "m" and "min" are minutes. */
static const struct unit_scale time_units[] = {
	{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
	{ "s", 1000000000 }, { "m", 60000000000 }, { "min", 60000000000 },
	{ "h", 3600000000000 },
};

int parse_duration_ns(const char *s, uint64_t *out)
{
	return parse_units_u64(s, time_units, ARRAY_SIZE(time_units), false,
			       out);
}

int parse_duration_ms(const char *s, uint64_t *out)
{
	uint64_t ns;
	int rc = parse_duration_ns(s, &ns);

	if (rc)
		return rc;
	/* The module counts milliseconds: 1500us is not 1 ms, nor 2. */
	if (ns % 1000000)
		return -EDOM;
	*out = ns / 1000000;
	return 0;
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

/*
 * Bandwidths in bytes/s: a bare number is MB/s, as the reports count;
 * perftest's --rate_units M and G are the bits, Mb/s and Gb/s, and its
 * "MB/sec" columns MiB/s.
 */
static const struct unit_scale bw_units[] = {
	{ "", 1000000 }, { "MB/s", 1000000 }, { "GB/s", 1000000000 },
	{ "MiB/s", 1ULL << 20 }, { "GiB/s", 1ULL << 30 },
	{ "Mb/s", 125000 }, { "Gb/s", 125000000 },
};

/* Packets (messages) per second, perftest's --rate_units p. */
static const struct unit_scale pps_units[] = {
	{ "pps", 1 }, { "kpps", 1000 }, { "Mpps", 1000000 },
};

int parse_bw(const char *s, uint64_t *bytes_per_s)
{
	/* Rounded to the byte: a rate is not counted in anything finer. */
	return parse_units_u64(s, bw_units, ARRAY_SIZE(bw_units), true,
			       bytes_per_s);
}

int parse_rate(const char *s, uint64_t *value, bool *per_msg)
{
	int rc = parse_bw(s, value);

	*per_msg = false;
	if (rc != -EINVAL)
		return rc;
	*per_msg = true;
	return parse_units_u64(s, pps_units, ARRAY_SIZE(pps_units), true,
			       value);
}

int parse_percent(const char *s, uint64_t *hundredths)
{
	static const struct unit_scale pct_units[] = {
		{ "", 100 }, { "%", 100 },
	};

	return parse_units_u64(s, pct_units, ARRAY_SIZE(pct_units), true,
			       hundredths);
}

int parse_expect(const char *s, struct expect *e)
{
	const char *op = strstr(s, ">=");
	char name[16];
	size_t len;
	int m, rc;

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
	if (m == EXPECT_BW || m == EXPECT_MIN_QP_BW) {
		rc = parse_units_double(op + 2, bw_units, ARRAY_SIZE(bw_units),
					&e->value);
		e->value /= 1e6;	/* MB/s */
		return rc;
	}
	if (m == EXPECT_MSG_RATE)
		return parse_units_double(op + 2, count_units,
					  ARRAY_SIZE(count_units), &e->value);
	/* A latency needs its unit: "p99<=2" could be ns or ms. */
	return parse_units_double(op + 2, time_units, ARRAY_SIZE(time_units),
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
