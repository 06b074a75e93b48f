// SPDX-License-Identifier: GPL-2.0
/*
 * krdmactl: host names to addresses (getaddrinfo()), for addr.c's
 * parse_resolver.  Kept apart so that addr.c does no I/O.
 */
#include <arpa/inet.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "resolve.h"

int resolve_host(const char *host, struct ip_addr *a, char *err, size_t errlen)
{
	const struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
	};
	struct addrinfo *res, *ai;
	int rc;

	rc = getaddrinfo(host, NULL, &hints, &res);
	if (rc) {
		snprintf(err, errlen, "cannot resolve '%s': %s", host,
			 gai_strerror(rc));
		return -ENOENT;
	}
	/* getaddrinfo() orders them by preference (RFC 6724): the first. */
	for (ai = res; ai; ai = ai->ai_next) {
		memset(a, 0, sizeof(*a));
		if (ai->ai_family == AF_INET) {
			const struct sockaddr_in *sin = (void *)ai->ai_addr;

			a->family = AF_INET;
			memcpy(a->bytes, &sin->sin_addr, 4);
			break;
		}
		if (ai->ai_family == AF_INET6) {
			const struct sockaddr_in6 *sin6 = (void *)ai->ai_addr;

			a->family = AF_INET6;
			memcpy(a->bytes, &sin6->sin6_addr, 16);
			/* "fe80::1%eth0": getaddrinfo() looked the zone up. */
			a->scope_id = sin6->sin6_scope_id;
			break;
		}
	}
	freeaddrinfo(res);
	if (!ai) {
		snprintf(err, errlen, "'%s' has no IPv4 or IPv6 address", host);
		return -ENOENT;
	}
	return 0;
}

int resolve_unchecked(const char *host, struct ip_addr *a, char *err,
		      size_t errlen)
{
	static const uint8_t test_net_1[4] = { 192, 0, 2, 1 };
	const char *zone = strchr(host, '%');
	char addr6[INET6_ADDRSTRLEN];
	size_t len;

	memset(a, 0, sizeof(*a));
	if (zone) {
		len = (size_t)(zone - host);
		if (len >= sizeof(addr6) || !zone[1] ||
		    strlen(zone + 1) >= IF_NAMESIZE)
			goto bad;
		memcpy(addr6, host, len);
		addr6[len] = '\0';
		if (inet_pton(AF_INET6, addr6, a->bytes) != 1)
			goto bad;
		a->family = AF_INET6;
		a->scope_id = 1;
		return 0;
	}
	if (!*host || strspn(host, "abcdefghijklmnopqrstuvwxyz"
				   "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789.-_") != strlen(host))
		goto bad;
	a->family = AF_INET;
	memcpy(a->bytes, test_net_1, sizeof(test_net_1));
	return 0;
bad:
	snprintf(err, errlen, "'%s' is not a host name", host);
	return -ENOENT;
}
