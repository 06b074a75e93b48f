/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The rule for listener and session names, shared by the module (which
 * enforces it) and krdmactl (which checks before it asks): 1 to
 * KRDMA_NAME_MAX - 1 bytes, each above space and not DEL (so any UTF-8
 * text without spaces), not all ASCII digits (a number always means an
 * id). The only definition; Documentation/netlink/specs/krdma.yaml says
 * the same in words.
 */
#ifndef _KRDMA_NAME_H
#define _KRDMA_NAME_H

enum krdma_name_check {
	KRDMA_NAME_OK,
	KRDMA_NAME_EMPTY,
	KRDMA_NAME_TOO_LONG,
	KRDMA_NAME_BAD_CHAR,
	KRDMA_NAME_ALL_DIGITS,
};

/* What is wrong with the NUL-terminated @name, or KRDMA_NAME_OK. */
static inline enum krdma_name_check krdma_name_check(const char *name)
{
	const unsigned char *c = (const unsigned char *)name;
	int digits = 1, len = 0;

	if (!*c)
		return KRDMA_NAME_EMPTY;
	for (; *c; c++, len++) {
		if (*c <= ' ' || *c == 0x7f)
			return KRDMA_NAME_BAD_CHAR;
		if (*c < '0' || *c > '9')
			digits = 0;
	}
	if (len > KRDMA_NAME_MAX - 1)
		return KRDMA_NAME_TOO_LONG;
	return digits ? KRDMA_NAME_ALL_DIGITS : KRDMA_NAME_OK;
}

#endif /* _KRDMA_NAME_H */
