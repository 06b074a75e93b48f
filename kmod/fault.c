// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Faults on demand, so that a test can prove every failure path of the
 * module unwinds (as nvme's fault_inject.c does for errors), and races
 * that a test could otherwise only hit by luck. Everything is in debugfs
 * krdma/, root only; nothing is built without CONFIG_DEBUG_FS.
 *
 * krdma/fail_alloc is a standard fault attribute
 * (Documentation/fault-injection/fault-injection.rst): probability,
 * interval, times, task-filter, verbose, and /proc/<pid>/fail-nth. It is
 * consulted at every allocation krdma makes itself and before every
 * object it asks of the RDMA core (PD, CQ, QP, MR), in every context:
 * netlink requests, CM handlers, completions, work items. Unlike failslab
 * it fails nothing outside the module. Only with
 * CONFIG_FAULT_INJECTION_DEBUG_FS (the debug kernel has it, Debian's
 * kernels do not).
 *
 * krdma/delay_*_ms widen race windows for the guest tests, which run on
 * Debian's kernels: see krdma_delay_publish() and the functions after it.
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/fault-inject.h>

#include "conn.h"
#include "krdma.h"

static struct dentry *krdma_debugfs_dir;

#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
static DECLARE_FAULT_ATTR(krdma_fail_alloc_attr);

/**
 * krdma_alloc_fail() - does krdma/fail_alloc fail this allocation?
 *
 * Asked by krdma_failable() and its kin, in any context.
 *
 * Return: true to fail it.
 */
bool krdma_alloc_fail(void)
{
	return should_fail(&krdma_fail_alloc_attr, 1);
}

/*
 * Module init under faults: load with fail_init_nth=N and the Nth fault
 * point that init passes fails - krdma/fail_alloc's, and failslab's
 * where it is armed - through the task's fail-nth, as
 * /proc/<pid>/fail-nth does for a request (debugfs cannot arm a module
 * that is not loaded yet). tests/guest-debug/init-faults.sh loads it with
 * N = 1, 2, ... until init says it got past its last fault point.
 */
static unsigned int krdma_fail_init_nth;
module_param_named(fail_init_nth, krdma_fail_init_nth, uint, 0444);
MODULE_PARM_DESC(fail_init_nth,
		 "Testing: fail the Nth fault point of module init (0: none)");

/**
 * krdma_fail_init_begin() - arms fail_init_nth for module init
 *
 * The init task's fail-nth counts down from here: see fail_init_nth
 * above.
 */
void krdma_fail_init_begin(void)
{
	if (!krdma_fail_init_nth)
		return;
	/* The sweep's faults are expected: no stack dump for each. */
	krdma_fail_alloc_attr.verbose = 0;
	WRITE_ONCE(current->fail_nth, krdma_fail_init_nth);
}

/**
 * krdma_fail_init_end() - module init is past its last fault point
 *
 * A fail-nth not counted down to the end is cleared, and the sweep told
 * that it has gone far enough.
 */
void krdma_fail_init_end(void)
{
	if (!krdma_fail_init_nth || !READ_ONCE(current->fail_nth))
		return;
	/* Not counted down to the end: no fault point was the Nth. */
	WRITE_ONCE(current->fail_nth, 0);
	pr_info("krdma: fail_init_nth %u: past the last fault point of init\n",
		krdma_fail_init_nth);
}

static void krdma_fail_alloc_init(void)
{
	struct dentry *attr;

	attr = fault_create_debugfs_attr("fail_alloc", krdma_debugfs_dir,
					 &krdma_fail_alloc_attr);
	if (IS_ERR(attr))
		pr_warn("krdma: no fail_alloc in debugfs: %pe\n", attr);
}
#else
static void krdma_fail_alloc_init(void)
{
}
#endif

/* Well below the hung task timeout: the sleep is uninterruptible. */
#define KRDMA_DELAY_MAX_MS	30000

static u32 krdma_delay_publish_ms;
static u32 krdma_delay_test_req_ms;
static u32 krdma_delay_late_msg_ms;

static void krdma_delay(const u32 *knob)
{
	u32 ms = READ_ONCE(*knob);

	if (ms)
		msleep(min_t(u32, ms, KRDMA_DELAY_MAX_MS));
}

/*
 * krdma_delay(), cut short once @on(@sess) says the other side of the
 * race has come: a window held open only as long as it takes the test to
 * act in it, however slow the guest, and no longer.
 */
static void krdma_delay_until(const u32 *knob,
			      bool (*on)(const struct krdma_session *sess),
			      const struct krdma_session *sess)
{
	u32 ms = READ_ONCE(*knob);
	unsigned long end;

	if (!ms)
		return;
	end = jiffies + msecs_to_jiffies(min_t(u32, ms, KRDMA_DELAY_MAX_MS));
	while (time_before(jiffies, end) && !on(sess))
		msleep(20);
}

static bool krdma_session_closing(const struct krdma_session *sess)
{
	return READ_ONCE(sess->state) != KRDMA_SESSION_CONNECTING;
}

/**
 * krdma_delay_publish() - holds a new server session open to a close
 * @sess: the session, published
 *
 * A server's CONNECT_REQUEST handler sleeps krdma/delay_publish_ms here,
 * once its new session can be found by id or name and before the
 * connection is accepted, so that a test can close the session there
 * every time (tests/guest/races.sh); it goes on as soon as it has.
 *
 * Context: process; sleeps while the knob is set.
 */
void krdma_delay_publish(const struct krdma_session *sess)
{
	krdma_delay_until(&krdma_delay_publish_ms, krdma_session_closing, sess);
}

/**
 * krdma_delay_test_req() - holds the responder's TEST_REQ open to teardown
 * @sess: the session
 *
 * The responder's TEST_REQ handler, in the session's CQ context, sleeps
 * krdma/delay_test_req_ms here before it registers the test's memory, so
 * that a test can tear the session down meanwhile: teardown's drain then
 * waits for the handler, whose posts come after the drain's marker
 * (tests/guest/races.sh).
 *
 * Context: process; sleeps while the knob is set.
 */
void krdma_delay_test_req(const struct krdma_session *sess)
{
	/* On once teardown has shut the gate: the posts come after it. */
	krdma_delay_until(&krdma_delay_test_req_ms, krdma_session_gate_closed,
			  sess);
}

/**
 * krdma_delay_late_msg() - holds a late message's handler open to a new test
 *
 * A message that comes while the session's own test is over - late, or
 * for the peer's test - sleeps krdma/delay_late_msg_ms here, in the CQ
 * context, once its handler has found that test: a "test start" then
 * replaces the test under the handler every time (tests/guest/races.sh).
 *
 * Context: process; sleeps while the knob is set.
 */
void krdma_delay_late_msg(void)
{
	krdma_delay(&krdma_delay_late_msg_ms);
}

/*
 * The bytes debug_dma saw synced for the CPU: a receive of n bytes must
 * sync n, not its whole buffer (tests/guest/dma-checker.sh).
 */
static int krdma_dma_cpu_sync_bytes_get(void *data, u64 *val)
{
	*val = atomic64_read(&krdma_dma_cpu_sync_bytes);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(krdma_dma_cpu_sync_bytes_fops,
			 krdma_dma_cpu_sync_bytes_get, NULL, "%llu\n");

static u32 krdma_sim_dma_max;

/**
 * krdma_sim_dma_max_mapping() - a simulated limit on DMA mappings
 *
 * A DMA mapping limit for devices added from now on, as swiotlb or an
 * IOMMU would impose (rxe and siw have none): debugfs
 * krdma/sim_dma_max_mapping, in bytes, 0 for none.
 *
 * Return: the limit in bytes; SIZE_MAX for none.
 */
size_t krdma_sim_dma_max_mapping(void)
{
	u32 max = READ_ONCE(krdma_sim_dma_max);

	return max ? max : SIZE_MAX;
}

static u32 krdma_delay_teardown_ms;
static u32 krdma_delay_set_up_ms;

/**
 * krdma_delay_teardown() - holds teardown in its cm_mutex, after the drain
 *
 * A session's teardown sleeps krdma/delay_teardown_ms here, holding its
 * cm_mutex after the drain, as a drain that waits long for the device
 * would: requests must not wait for it (tests/guest/races.sh).
 *
 * Context: process; sleeps while the knob is set.
 */
void krdma_delay_teardown(void)
{
	krdma_delay(&krdma_delay_teardown_ms);
}

/**
 * krdma_delay_set_up() - holds a session that just went up open to a close
 *
 * A session that has just gone up sleeps krdma/delay_set_up_ms here, in
 * its CM handler (cm_mutex held), between making the session UP and the
 * rest of going up, where its keepalive was once armed: a close meanwhile
 * starts teardown, whose cancel of the keepalive must stay the last word
 * (tests/guest/races.sh).
 *
 * Context: process; sleeps while the knob is set.
 */
void krdma_delay_set_up(void)
{
	krdma_delay(&krdma_delay_set_up_ms);
}

static u32 krdma_delay_channel_rx_ms;

/**
 * krdma_delay_channel_rx() - holds back a data channel's message
 *
 * A message received on a data channel sleeps krdma/delay_channel_rx_ms
 * here, before its handler runs, where the channel's CQ context may
 * sleep (not in a softirq): the TEST_END of a send test over several QPs,
 * on the session's QP, then overtakes the channels' last messages every
 * time, and the responder must wait for them (tests/guest/multi-qp.sh).
 *
 * Context: any; sleeps only in a task.
 */
void krdma_delay_channel_rx(void)
{
	if (in_task())
		krdma_delay(&krdma_delay_channel_rx_ms);
}

static u32 krdma_hello_version;

/**
 * krdma_hello_version_sent() - the version our hellos announce
 *
 * The protocol version the hellos of new connections announce:
 * krdma/hello_version if it is one we accept (0: KRDMA_PROTO_VERSION),
 * so that a test can have a peer of an older version say what it does
 * not serve (tests/guest/multi-qp.sh). Only the announcement: the
 * module goes on serving what its peer asks for in its own version.
 *
 * Return: the version.
 */
u16 krdma_hello_version_sent(void)
{
	u32 v = READ_ONCE(krdma_hello_version);

	return v >= KRDMA_PROTO_VERSION_MIN && v <= KRDMA_PROTO_VERSION ?
	       v : KRDMA_PROTO_VERSION;
}

static u32 krdma_fail_peer_reg_test;

/**
 * krdma_fault_peer_reg() - is a peer's test's registration refused?
 * @test_id: the peer's test
 * @slot: the slot whose memory is registered
 *
 * The peer's test whose id is krdma/fail_peer_reg_test fails its setup
 * half way: the registration of its second slot is refused once the
 * first slot's are posted, so that a test can prove what such a test
 * leaves - BROKEN, its work in flight, freed only after teardown's drain
 * - against a TEST_END that follows at once (tests/hostile,
 * end_after_broken_setup). An id, not a count: other tests and sessions
 * are not touched however slow the guest.
 *
 * Return: true to refuse it.
 */
bool krdma_fault_peer_reg(u32 test_id, u32 slot)
{
	return slot && test_id && test_id == READ_ONCE(krdma_fail_peer_reg_test);
}

static bool krdma_fail_atomic_reg;

/**
 * krdma_fault_atomic_reg() - are REG_MRs with remote atomic access refused?
 *
 * While krdma/fail_atomic_reg is set, every REG_MR that grants remote
 * atomic access is refused at post with -EINVAL, as mlx5 refuses it where
 * its firmware forbids changing that access (typically on a VF,
 * mlx5r_umr_can_reconfig()): the responder must refuse such a test and
 * keep its session (tests/guest/transfer.sh).
 *
 * Return: true to refuse them.
 */
bool krdma_fault_atomic_reg(void)
{
	return READ_ONCE(krdma_fail_atomic_reg);
}

static u32 krdma_lat_tail_first_ms;

/**
 * krdma_fault_lat_tail_first_ms() - how long a lat write's marker goes first
 *
 * krdma/lat_tail_first_ms (at most 1000): a lat write's marker is
 * written alone that long before its message (lat.c,
 * krdma_lat_post_tail()); tests/guest/perf.sh.
 *
 * Return: milliseconds; 0 for none.
 */
u32 krdma_fault_lat_tail_first_ms(void)
{
	return min_t(u32, READ_ONCE(krdma_lat_tail_first_ms), MSEC_PER_SEC);
}

/**
 * krdma_fault_init() - debugfs krdma/ and its knobs
 *
 * A knob debugfs cannot make is not there; the module loads all the same.
 */
void krdma_fault_init(void)
{
	/* The u32 knobs, root's to read and write. */
	static const struct {
		const char	*name;
		u32		*val;
	} knobs[] = {
		{ "delay_publish_ms",		&krdma_delay_publish_ms },
		{ "sim_dma_max_mapping",	&krdma_sim_dma_max },
		{ "delay_test_req_ms",		&krdma_delay_test_req_ms },
		{ "delay_late_msg_ms",		&krdma_delay_late_msg_ms },
		{ "delay_teardown_ms",		&krdma_delay_teardown_ms },
		{ "delay_set_up_ms",		&krdma_delay_set_up_ms },
		{ "delay_channel_rx_ms",	&krdma_delay_channel_rx_ms },
		{ "hello_version",		&krdma_hello_version },
		{ "fail_peer_reg_test",		&krdma_fail_peer_reg_test },
		{ "lat_tail_first_ms",		&krdma_lat_tail_first_ms },
	};
	int i;

	krdma_debugfs_dir = debugfs_create_dir("krdma", NULL);
	krdma_fail_alloc_init();
	for (i = 0; i < ARRAY_SIZE(knobs); i++)
		debugfs_create_u32(knobs[i].name, 0600, krdma_debugfs_dir,
				   knobs[i].val);
	debugfs_create_bool("fail_atomic_reg", 0600, krdma_debugfs_dir,
			    &krdma_fail_atomic_reg);
	debugfs_create_file_unsafe("dma_cpu_sync_bytes", 0400, krdma_debugfs_dir,
				   NULL, &krdma_dma_cpu_sync_bytes_fops);
}

/**
 * krdma_fault_exit() - removes debugfs krdma/
 */
void krdma_fault_exit(void)
{
	debugfs_remove_recursive(krdma_debugfs_dir);
}
