/* SPDX-License-Identifier: GPL-2.0 */
/*
 * krdmactl: record printers of the objects, exported for the unit tests.
 * Each is an knl_msg_fn: it prints one reply (or event) message.
 */
#ifndef KRDMACTL_RECORDS_H
#define KRDMACTL_RECORDS_H

#include "nl.h"

int dev_print(struct nlattr **tb, struct nlmsghdr *nlh, void *arg);
int listener_print(struct nlattr **tb, struct nlmsghdr *nlh, void *arg);
int session_print(struct nlattr **tb, struct nlmsghdr *nlh, void *arg);
int test_print(struct nlattr **tb, struct nlmsghdr *nlh, void *arg);
/* A finished test: the DONE event or a TEST_GET reply, with rates. */
void test_print_result(struct nlattr **tb, struct nlmsghdr *nlh);
/* An event; @arg NULL, or the struct monitor_opts of "monitor". */
int event_print(struct nlattr **tb, struct nlmsghdr *nlh, void *arg);

#endif /* KRDMACTL_RECORDS_H */
