// SPDX-License-Identifier: GPL-2.0
/*
 * krdmactl: host names to addresses (getaddrinfo()), for addr.c's
 * parse_resolver.  Kept apart so that addr.c does no I/O.
 */
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
