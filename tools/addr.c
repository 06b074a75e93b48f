// SPDX-License-Identifier: GPL-2.0
/*
 * krdmactl: addresses as the command line writes them: IP literals,
 * ports, ADDR:PORT endpoints, host names (looked up by parse_resolver,
 * resolve.c in krdmactl), and addresses, endpoints and GUIDs written
 * back.  No I/O here: errors are returned, never printed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "parse.h"

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
