/* SPDX-License-Identifier: GPL-2.0 */
/* krdmactl: host name lookup (see parse_resolver in parse.h). */
#ifndef KRDMACTL_RESOLVE_H
#define KRDMACTL_RESOLVE_H

#include <errno.h>
#include <stddef.h>

#include "parse.h"

int resolve_host(const char *host, struct ip_addr *a, char *err,
		 size_t errlen);
/*
 * --parse-only: a host name is not looked up (the documentation's hostA
 * is nobody's host): any name of host name characters stands for
 * 192.0.2.1 (TEST-NET-1), ADDR6%IFACE for ADDR6 on an interface.
 */
int resolve_unchecked(const char *host, struct ip_addr *a, char *err,
		      size_t errlen);

#endif /* KRDMACTL_RESOLVE_H */
