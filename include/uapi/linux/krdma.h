/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/krdma.yaml */
/* by scripts/spec-to-c.py --uapi; make check-spec checks that it is current. */

#ifndef _UAPI_LINUX_KRDMA_H
#define _UAPI_LINUX_KRDMA_H

#define KRDMA_GENL_NAME		"krdma"
#define KRDMA_GENL_VERSION	1

/*
 * ABI version reported by version-get; bumped on any incompatible change.
 * krdmactl warns when its own differs from the module's.
 */
#define KRDMA_ABI_VERSION	1

/*
 * Size of a listener or session name, including the terminating NUL (so at
 * most 31 characters).
 */
#define KRDMA_NAME_MAX	32

/* Largest message (8 MiB) of a test or of a session. */
#define KRDMA_MSG_SIZE_MAX	8388608

/* Most operations a test keeps in flight. */
#define KRDMA_DEPTH_MAX	128

/* Smallest send or receive queue depth of a session. */
#define KRDMA_QUEUE_DEPTH_MIN	4

/* Largest send or receive queue depth of a session. */
#define KRDMA_QUEUE_DEPTH_MAX	4096

/* Shortest connect timeout, in milliseconds. */
#define KRDMA_TIMEOUT_MS_MIN	100

/* Longest connect timeout, in milliseconds. */
#define KRDMA_TIMEOUT_MS_MAX	60000

/* Longest test duration (one hour), in milliseconds. */
#define KRDMA_DURATION_MS_MAX	3600000

/* Shortest interval between two test-progress events, in milliseconds. */
#define KRDMA_INTERVAL_MS_MIN	100

/*
 * Most scatter/gather entries krdma puts in a send work request (the device's
 * own most, dev-max-sge, can be lower or higher): what a session may ask
 * (session-max-sge).
 */
#define KRDMA_SGE_MAX	32

/*
 * Scatter/gather entries a send work request of a session's queue pairs takes
 * at most unless the session asks for more (session-max-sge): every QP's send
 * queue grows with it.
 */
#define KRDMA_SGE_DEFAULT	16

/*
 * Largest target of a check-mode atomics test (test-size), whose iterations go
 * to its 8-byte words in turn.
 */
#define KRDMA_ATOMIC_TARGET_MAX	4096

/* Most work requests a bw test posts with one ib_post_send(). */
#define KRDMA_CHAIN_MAX	32

/* Most queue pairs of one session, the control one included. */
#define KRDMA_QPS_MAX	16

/*
 * Smallest transport ACK timeout of a session or listener, as the exponent N
 * of 4.096 us x 2^N (8: 1 ms).
 */
#define KRDMA_ACK_TIMEOUT_MIN	8

/*
 * Largest transport ACK timeout, the exponent N of 4.096 us x 2^N (31: 2.4
 * hours; the IB spec's field has five bits).
 */
#define KRDMA_ACK_TIMEOUT_MAX	31

/*
 * test-rnr-hold: how long the peer keeps its receives back once none is left
 * posted, in ms.
 */
#define KRDMA_RNR_HOLD_MS	500

/*
 * test-rnr-hold: the longest the peer keeps its receives back from the test's
 * start, in ms, whatever the driver sends.
 */
#define KRDMA_RNR_HOLD_MAX_MS	10000

/**
 * enum krdma_session_state - Life cycle of a session.
 * @KRDMA_SESSION_CONNECTING: Resolving the route, or waiting for the peer to
 *   accept.
 * @KRDMA_SESSION_UP: Connected; tests can run.
 * @KRDMA_SESSION_CLOSING: Disconnecting; resources being released.
 * @KRDMA_SESSION_DOWN: Closed or failed; the reason attribute says why.
 */
enum krdma_session_state {
	KRDMA_SESSION_CONNECTING = 1,
	KRDMA_SESSION_UP,
	KRDMA_SESSION_CLOSING,
	KRDMA_SESSION_DOWN,
};

/**
 * enum krdma_cq_poll - Where a session's completions run, chosen by the module
 *   parameter cq_poll when the session is created.
 * @KRDMA_CQ_POLL_WORKQUEUE: IB_POLL_WORKQUEUE, the RDMA core's per-CPU
 *   completion workqueue.
 * @KRDMA_CQ_POLL_UNBOUND: IB_POLL_UNBOUND_WORKQUEUE, on any CPU.
 * @KRDMA_CQ_POLL_DIRECT: IB_POLL_DIRECT, polled by a kernel thread of the
 *   session.
 * @KRDMA_CQ_POLL_SOFTIRQ: IB_POLL_SOFTIRQ for the data channels (sessions of
 *   several QPs), whose completions are only bw messages, handled under
 *   spinlocks; the session's first QP stays on IB_POLL_WORKQUEUE, its handlers
 *   may sleep.
 */
enum krdma_cq_poll {
	KRDMA_CQ_POLL_WORKQUEUE = 1,
	KRDMA_CQ_POLL_UNBOUND,
	KRDMA_CQ_POLL_DIRECT,
	KRDMA_CQ_POLL_SOFTIRQ,
};

/**
 * enum krdma_session_role - Which side of the connection this host is.
 * @KRDMA_ROLE_CLIENT: Made the connection (active side, session-new).
 * @KRDMA_ROLE_SERVER: Accepted it on a listener (passive side).
 */
enum krdma_session_role {
	KRDMA_ROLE_CLIENT = 1,
	KRDMA_ROLE_SERVER,
};

/**
 * enum krdma_op - The RDMA operation a test exercises; every byte is checked.
 * @KRDMA_OP_PING: The krping loop - READ the peer's source, WRITE it back.
 * @KRDMA_OP_SEND: Two-sided SEND into the peer's posted receives.
 * @KRDMA_OP_SEND_IMM: SEND with immediate data.
 * @KRDMA_OP_WRITE: One-sided RDMA WRITE into a region the peer registered.
 * @KRDMA_OP_WRITE_IMM: RDMA WRITE with immediate data, consuming a peer
 *   receive.
 * @KRDMA_OP_READ: One-sided RDMA READ from a region the peer registered.
 * @KRDMA_OP_ATOMIC_FADD: 8-byte fetch-and-add.
 * @KRDMA_OP_ATOMIC_CSWAP: 8-byte compare-and-swap.
 */
enum krdma_op {
	KRDMA_OP_PING = 1,
	KRDMA_OP_SEND,
	KRDMA_OP_SEND_IMM,
	KRDMA_OP_WRITE,
	KRDMA_OP_WRITE_IMM,
	KRDMA_OP_READ,
	KRDMA_OP_ATOMIC_FADD,
	KRDMA_OP_ATOMIC_CSWAP,

	/* private: */
	__KRDMA_OP_MAX,
	KRDMA_OP_MAX = (__KRDMA_OP_MAX - 1)
};

/**
 * enum krdma_atomic_variant - How a check-mode atomics test drives its target,
 *   for a conformance case (krdmactl conform): each slot's first, third, ...
 *   iteration is the variant's, the one after it brings the target back to the
 *   test's sequence, so the peer's check of the final values holds.
 * @KRDMA_ATOMIC_FADD_WRAP: atomic_fadd: the iteration's addend less 2^32,
 *   which takes the target below 0, to just under 2^64; the next one's addend
 *   plus 2^32, which carries it past 2^64 back to the sum.
 * @KRDMA_ATOMIC_CSWAP_MISS: atomic_cswap: the iteration compares with a value
 *   the target does not hold (the complement of the one it holds): nothing is
 *   swapped, and the target's value comes back; the next one hits.
 */
enum krdma_atomic_variant {
	KRDMA_ATOMIC_FADD_WRAP = 1,
	KRDMA_ATOMIC_CSWAP_MISS,

	/* private: */
	__KRDMA_ATOMIC_MAX,
	KRDMA_ATOMIC_MAX = (__KRDMA_ATOMIC_MAX - 1)
};

/**
 * enum krdma_violation - A rule of the verbs that a test's one iteration
 *   breaks on purpose, for a conformance case (krdmactl conform): the device
 *   must refuse it with the completion status the IBTA specification names,
 *   and the queue pair goes to the error state.
 * @KRDMA_VIOLATE_OUT_OF_BOUNDS: The RDMA WRITE, READ or atomic aims at the
 *   first byte past the region the peer registered (a remote access error).
 * @KRDMA_VIOLATE_STALE_RKEY: The RDMA WRITE, READ or atomic carries the key
 *   the peer's MR had before its re-registration with a new key
 *   (ib_inc_rkey()): that key is no longer valid (a remote access error).
 * @KRDMA_VIOLATE_NO_ACCESS: A read test whose iteration WRITEs into the region
 *   the peer registered for remote READ only (a remote access error).
 * @KRDMA_VIOLATE_LONG_SEND: A send test whose SEND is longer than the peer's
 *   receive buffer: the responder's receive completes with a local length
 *   error, the requester's SEND with a remote invalid request error.
 * @KRDMA_VIOLATE_UNALIGNED: An atomics test (test-size 16 or more) whose
 *   atomic aims 4 bytes into the peer's target, inside its bounds but not
 *   8-byte aligned (a remote invalid request error).
 * @KRDMA_VIOLATE_INVALIDATED_RKEY: The RDMA WRITE, READ or atomic carries the
 *   key of an MR the peer invalidated with a LOCAL_INV before telling it
 *   (protocol version 6): an invalid key (a remote access error).
 * @KRDMA_VIOLATE_SEND_INVALIDATED_RKEY: A send test with test-send-invalidate
 *   whose SEND_WITH_INV is followed by an RDMA WRITE of a byte into the target
 *   through the key that SEND invalidated (protocol version 6): an invalid key
 *   (a remote access error).
 */
enum krdma_violation {
	KRDMA_VIOLATE_OUT_OF_BOUNDS = 1,
	KRDMA_VIOLATE_STALE_RKEY,
	KRDMA_VIOLATE_NO_ACCESS,
	KRDMA_VIOLATE_LONG_SEND,
	KRDMA_VIOLATE_UNALIGNED,
	KRDMA_VIOLATE_INVALIDATED_RKEY,
	KRDMA_VIOLATE_SEND_INVALIDATED_RKEY,

	/* private: */
	__KRDMA_VIOLATE_MAX,
	KRDMA_VIOLATE_MAX = (__KRDMA_VIOLATE_MAX - 1)
};

/**
 * enum krdma_test_mode - How a test moves its data.
 * @KRDMA_MODE_CHECK: Every iteration acknowledged by the peer and its data
 *   compared (the default).
 * @KRDMA_MODE_BW: Bandwidth - a pipeline of test-depth messages, posted in
 *   chains of test-chain with one in test-signal-every signaled, checked at
 *   the receiving end (sampled for sends, once at the end for RDMA ops); with
 *   test-qps above 1, one such pipeline per queue pair.
 * @KRDMA_MODE_LAT: Latency - one message at a time, each round trip timed: a
 *   send or a write is answered by the peer (a write by write-polling) and
 *   half the round trip counts; a read or an atomic is a round trip of its own
 *   and counts whole. The figures come in test-lat.
 */
enum krdma_test_mode {
	KRDMA_MODE_CHECK = 1,
	KRDMA_MODE_BW,
	KRDMA_MODE_LAT,

	/* private: */
	__KRDMA_MODE_MAX,
	KRDMA_MODE_MAX = (__KRDMA_MODE_MAX - 1)
};

/**
 * enum krdma_test_state - State of a test.
 * @KRDMA_TEST_RUNNING: Operations are being posted.
 * @KRDMA_TEST_DONE: Ended; the test-status attribute says how.
 */
enum krdma_test_state {
	KRDMA_TEST_RUNNING = 1,
	KRDMA_TEST_DONE,
};

/**
 * enum krdma_event - What an event-ntf message reports (its event attribute).
 * @KRDMA_EVENT_SESSION_UP: A session connected (either role).
 * @KRDMA_EVENT_SESSION_DOWN: A session closed or failed to connect; carries
 *   the reason.
 * @KRDMA_EVENT_TEST_PROGRESS: Periodic progress of a running test (every
 *   test-interval-ms).
 * @KRDMA_EVENT_TEST_DONE: A test ended; carries test-status and the final
 *   counters.
 */
enum krdma_event {
	KRDMA_EVENT_SESSION_UP = 1,
	KRDMA_EVENT_SESSION_DOWN,
	KRDMA_EVENT_TEST_PROGRESS,
	KRDMA_EVENT_TEST_DONE,
};

/**
 * enum krdma_attr - Top-level attributes of every krdma message.
 * @KRDMA_A_UNSPEC: reserved
 * @KRDMA_A_PAD: padding that aligns the u64 attributes
 * @KRDMA_A_VERSION: (string) Version string of the loaded module, e.g.
 *   "0.2.0".
 * @KRDMA_A_ABI_VERSION: (u32) The module's abi-version constant.
 * @KRDMA_A_DEV_INDEX: (u32) Index of the RDMA device (struct ib_device index).
 * @KRDMA_A_DEV_NAME: (string) Name of an RDMA device, e.g. rxe0: selects the
 *   device in dev-get, and names the device a listener or an up session is
 *   bound to.
 * @KRDMA_A_DEV_NODE_GUID: (u64) Node GUID of the device, in host byte order.
 * @KRDMA_A_DEV_MAX_QP_RD_ATOM: (u32) Most RDMA READ/atomic operations a QP can
 *   take as responder.
 * @KRDMA_A_DEV_MAX_QP_INIT_RD_ATOM: (u32) Most RDMA READ/atomic operations a
 *   QP can issue as initiator.
 * @KRDMA_A_DEV_MAX_FAST_REG_PAGES: (u32) Most pages one fast-registration
 *   (FRWR) MR can map.
 * @KRDMA_A_DEV_MAX_SGE: (u32) Most scatter/gather entries of a send work
 *   request.
 * @KRDMA_A_DEV_ATOMIC_CAP: (u8, enum ib_atomic_cap) Atomic operations support
 *   of the device.
 * @KRDMA_A_DEV_PORT: (nest, enum krdma_port_attr, multi) One per port of the
 *   device.
 * @KRDMA_A_LISTENER_ID: (u32) Id of a listener (never 0); for a server
 *   session, the listener that accepted it.
 * @KRDMA_A_NAME: (string) Name of a listener or a session: 1 to 31 printable
 *   characters without spaces, not all digits (a number always means an id).
 *   Without one at creation the module names a listener l<id> and a session
 *   s<id>.
 * @KRDMA_A_LOCAL_ADDR: (nest, enum krdma_addr_attr) Local address: where a
 *   listener listens (no IP: every address), or the source a client session
 *   connects from.
 * @KRDMA_A_PEER_ADDR: (nest, enum krdma_addr_attr) Address and port of the
 *   peer of a session.
 * @KRDMA_A_TIMEOUT_MS: (u32) Connect timeout in milliseconds. default: 10000
 * @KRDMA_A_SESSION_ID: (u32) Id of a session (never 0).
 * @KRDMA_A_SESSION_STATE: (u8, enum krdma_session_state) State of the session.
 * @KRDMA_A_SESSION_ROLE: (u8, enum krdma_session_role) Role of this host in
 *   the session.
 * @KRDMA_A_SESSION_QPN: (u32) Number of the session's local queue pair.
 * @KRDMA_A_SESSION_PEER_QPN: (u32) Number of the peer's queue pair.
 * @KRDMA_A_SESSION_RESPONDER_RESOURCES: (u8) RDMA READ/atomic operations this
 *   side accepts as responder (negotiated).
 * @KRDMA_A_SESSION_INITIATOR_DEPTH: (u8) RDMA READ/atomic operations this side
 *   may have outstanding (negotiated).
 * @KRDMA_A_SESSION_SQ_DEPTH: (u32) Send queue depth (negotiated with the
 *   peer). default: 256
 * @KRDMA_A_SESSION_RQ_DEPTH: (u32) Receive queue depth (negotiated with the
 *   peer). default: 32
 * @KRDMA_A_SESSION_MAX_MSG_SIZE: (u32) Largest message of the session in bytes
 *   (64 KiB by default). default: 65536
 * @KRDMA_A_SESSION_PEER_PROTO: (u32) Wire protocol version the peer module
 *   speaks.
 * @KRDMA_A_REASON: (string) Why a session went down, why a test failed, or
 *   that a listener lost its device; free text for people.
 * @KRDMA_A_TEST_ID: (u32) Id of a test (never 0).
 * @KRDMA_A_TEST_OP: (u8, enum krdma_op) The operation the test runs (checked
 *   against the op enum).
 * @KRDMA_A_TEST_SIZE: (u32) Bytes per message. The atomics always move 8
 *   (their default); in check mode their size is the peer's target, a multiple
 *   of 8 up to atomic-target-max, whose words the iterations go to in turn -
 *   each slot's first use word 0, its next word 1, ... - so that a count of
 *   depth x size / 8 makes an atomic at every 8-byte-aligned offset of it (a
 *   peer of protocol version 5). default: 4096
 * @KRDMA_A_TEST_COUNT: (u64) Iterations to run (the default when no duration
 *   is given; 0 is rejected). Excludes test-duration-ms. default: 1000
 * @KRDMA_A_TEST_DURATION_MS: (u32) Run for this long instead of a count, in
 *   milliseconds.
 * @KRDMA_A_TEST_DEPTH: (u32) Operations in flight, per queue pair. default: 1;
 *   bw: 64
 * @KRDMA_A_TEST_INTERVAL_MS: (u32) Interval of test-progress events in
 *   milliseconds. default: 1000
 * @KRDMA_A_TEST_STATE: (u8, enum krdma_test_state) State of the test.
 * @KRDMA_A_TEST_STATUS: (s32) 0, or the negative errno the test ended with.
 * @KRDMA_A_TEST_ITERS: (u64) Iterations completed.
 * @KRDMA_A_TEST_BYTES: (u64) Payload bytes moved.
 * @KRDMA_A_TEST_ELAPSED_NS: (u64) Time the test has run (or ran), in
 *   nanoseconds.
 * @KRDMA_A_TEST_VALIDATED: (u64) Iterations whose data was checked byte by
 *   byte.
 * @KRDMA_A_STATS: (nest, enum krdma_stats_attr) Counters, module-wide
 *   (stats-get) or of one session (session-get).
 * @KRDMA_A_EVENT: (u8, enum krdma_event) What an event-ntf message reports.
 * @KRDMA_A_TEST_MODE: (u8, enum krdma_test_mode) How the test moves its data
 *   (checked against the enum). default: check
 * @KRDMA_A_TEST_SIGNAL_EVERY: (u32) bw and lat modes - one send work request
 *   in this many asks for a completion (in bw at most test-depth, which lowers
 *   the default). default: 16 modes: bw, lat
 * @KRDMA_A_TEST_CHAIN: (u32) bw and lat modes - work requests posted by one
 *   ib_post_send() (at most test-depth, which lowers bw's default). default:
 *   1; bw: 8 modes: bw, lat
 * @KRDMA_A_TEST_INLINE: (u8) 1 if the data went inline in the work requests
 *   (small sends).
 * @KRDMA_A_TEST_CPU_NS: (u64) CPU time the module's data path spent on the
 *   test (completion handlers and posting), in nanoseconds; bw and lat modes.
 * @KRDMA_A_TEST_PEER_CPU_NS: (u64) The same on the responder, reported at the
 *   end of the test.
 * @KRDMA_A_TEST_LAT: (nest, enum krdma_lat_attr) Latency figures of a finished
 *   lat test.
 * @KRDMA_A_SESSION_MAX_INLINE: (u32) Bytes of inline data a send work request
 *   of the session can carry.
 * @KRDMA_A_SESSION_CQ_POLL: (u8, enum krdma_cq_poll) Where the session's
 *   completions run.
 * @KRDMA_A_TEST_BIDIR: (u8) bw mode - 1: traffic both ways at once; the peer
 *   module runs the same test back (a test of its own, as long as this one)
 *   and reports its figures in test-peer-iters and test-peer-bytes. default: 0
 *   modes: bw
 * @KRDMA_A_TEST_PEER_ITERS: (u64) bidir - the messages of the peer's reverse
 *   stream.
 * @KRDMA_A_TEST_PEER_BYTES: (u64) bidir - the bytes of the peer's reverse
 *   stream.
 * @KRDMA_A_SESSION_QPS: (u32) Queue pairs of the session, the control one
 *   included. Each is a reliable connection of its own to the peer (its own
 *   rdma_cm connection and completion queue, on distinct completion vectors).
 *   The first carries the control messages and every test; the other ones,
 *   data channels joined to the session by a cookie in the CM handshake, carry
 *   the data of bw tests run with test-qps above 1: RDMA WRITE, READ and
 *   atomics, and with a peer of protocol version 3 send, send-imm and
 *   write-imm, for which each keeps session-rq-depth receives posted. The
 *   session is up only once all of them are connected. default: 1
 * @KRDMA_A_TEST_QPS: (u32) bw mode - queue pairs the messages spread over: the
 *   first test-qps of the session's session-qps, each with its own pipeline of
 *   test-depth messages in flight (test-depth is per QP); a test-count is
 *   split between them. Above 1 only in bw mode, and at most the session's
 *   session-qps; send, send-imm and write-imm, which consume the peer's
 *   receives, only with a peer of protocol version 3, each QP paced by credits
 *   of its own. On iWARP, above 1, the messages go over the test-qps - 1 data
 *   channels and the first QP carries the test's control messages and the
 *   keepalive alone: no completion there tells the peer alive, and its probes
 *   must not wait behind bulk data. default: 1 modes: bw
 * @KRDMA_A_TEST_QP: (nest, enum krdma_test_qp_attr, multi) bw mode, once the
 *   test is over - one per queue pair the messages went over, in order: what
 *   each moved and when it was done, so a slow or unfair queue pair shows.
 * @KRDMA_A_SESSION_TOS: (u8) Type of service of a client session's connections
 *   (rdma_cm's rdma_set_service_type(), perftest's --tos): on RoCE the IP
 *   header's DSCP and ECN bits of what the session sends, and the priority it
 *   maps to; on InfiniBand the service level (its low four bits). Without it
 *   the device's default (rdma_cm's default_roce_tos in configfs).
 * @KRDMA_A_TEST_HOST_CPU: (nest, enum krdma_host_cpu_attr) Once the test is
 *   over - what all the CPUs of this host did while it ran, from the kernel's
 *   own accounting: the test's context, the RDMA driver's softirqs and
 *   workers, and everything else.
 * @KRDMA_A_TEST_PEER_HOST_CPU: (nest, enum krdma_host_cpu_attr) The same on
 *   the peer, over its side of the test (the responder of one-sided operations
 *   runs no handler, so test-peer-cpu-ns is 0 there, but its softirqs and the
 *   driver's workers are here).
 * @KRDMA_A_TEST_RATE: (u64) bw mode - the most the test sends, in bytes per
 *   second (perftest's --rate_limit with --rate_limit_type=SW): the messages
 *   go out in bursts of test-burst, the next burst only once the rate allows
 *   it, a timer resuming the sending when the window is open but the budget
 *   spent. Over several QPs each carries an equal share. Not 0 (leave it out
 *   for no limit), not with test-bidir (the peer's stream would not be
 *   limited). test-bytes over test-elapsed-ns is what it achieved. modes: bw
 * @KRDMA_A_TEST_BURST: (u32) bw mode, with test-rate - messages posted at once
 *   before the sender waits for the rate (perftest's --burst_size; default
 *   test-chain, one ib_post_send() a burst; at most test-depth). modes: bw
 * @KRDMA_A_SESSION_ACK_TIMEOUT: (u8) Transport ACK timeout of the session's
 *   queue pairs, the control one and every data channel: the requester waits
 *   4.096 us x 2^N for an ACK before it retransmits (rdma_set_ack_timeout(),
 *   perftest's -u). In a session-new request it sets the client session's, in
 *   a listener-add request that of every session the listener accepts; 0 or
 *   absent is the module parameter ack_timeout (default 18, 1.07 s) as it is
 *   when the session connects. 1 to ack-timeout-min - 1 are refused.
 *   session-get reports the value in effect, listener-get a listener's own
 *   when it has one. 14 (67 ms, perftest's default) on a wire that drops
 *   packets; see Documentation/usage.rst, "On a lossy network".
 * @KRDMA_A_TEST_PEER_ENV: (nest, enum krdma_host_env_attr) Once the test is
 *   over - where the peer measured its side: its host name, its device's
 *   firmware and its port's link, as the peer reported them in its TEST_RESULT
 *   (protocol version 4). Absent when the peer speaks an older version.
 * @KRDMA_A_TEST_VIOLATE: (u8, enum krdma_violation) check mode - the test
 *   breaks this rule of the verbs on purpose, for a conformance case: its one
 *   iteration (test-count 1, test-depth 1) is refused by the peer's device,
 *   the session's queue pair goes to the error state and the session ends, its
 *   reason and test-wc-status saying what the device answered. Run it on a
 *   session of its own (krdmactl conform connects one). modes: check
 * @KRDMA_A_TEST_ATOMIC_VARIANT: (u8, enum krdma_atomic_variant) check mode,
 *   atomic_fadd (fadd-wrap) or atomic_cswap (cswap-miss) - the variant of the
 *   atomics' sequence the test runs, each returned value checked as ever; its
 *   test-count must be a multiple of twice its test-depth (each slot ends on
 *   an iteration that brings the target back). modes: check
 * @KRDMA_A_TEST_SGES: (u32) check mode, send, send-imm, write, write-imm and
 *   read - each message's work request carries this many scatter/gather
 *   entries, its memory split to fill them: at most the session's
 *   session-max-sge (session-max-read-sge for read) and the bytes the work
 *   request moves (a send's header included). Absent: as many as its memory
 *   takes. modes: check
 * @KRDMA_A_SESSION_MAX_SGE: (u32) Scatter/gather entries a send work request
 *   of the session's queue pairs takes: the device's dev-max-sge, at most
 *   sge-default (16) - or in a session-new request what the client asks for
 *   its QPs instead, up to sge-max (32), of which it gets no more than its
 *   device takes. A server's sessions take sge-default.
 * @KRDMA_A_TEST_WC_STATUS: (u32) The status of the completion that failed the
 *   test, as enum ib_wc_status (and libibverbs' ibv_wc_status) number it: 10 a
 *   remote access error, 9 a remote invalid request. Absent when no completion
 *   failed it.
 * @KRDMA_A_TEST_READ_BACK: (u8) check mode, write - 1: each iteration's WRITE
 *   is read back, a READ of the same remote memory fenced behind it
 *   (IB_SEND_FENCE) into a second buffer, checked against what was written
 *   (the peer checks the WRITE as ever). Needs a peer of protocol version 5
 *   (session-peer-proto). default: 0 modes: check
 * @KRDMA_A_SESSION_MAX_READ_SGE: (u32) Scatter/gather entries an RDMA READ
 *   work request of the session's queue pairs takes (the device's max_sge_rd,
 *   at most session-max-sge; siw: 1).
 * @KRDMA_A_TEST_SEND_INVALIDATE: (u8) check mode, send - 1: each iteration's
 *   SEND is a SEND_WITH_INV carrying the key of a target the peer registered
 *   for its slot, which the peer's device invalidates as the SEND arrives; the
 *   peer checks that its receive's completion says so (IB_WC_WITH_INVALIDATE,
 *   and the key) and registers the target again under the next key before it
 *   acks the iteration. Needs a peer of protocol version 6
 *   (session-peer-proto). default: 0 modes: check
 * @KRDMA_A_TEST_ZERO_LENGTH: (u8) check mode, write, write_imm, read - 1: each
 *   iteration's RDMA WRITE or READ moves 0 bytes (a work request of no SGE,
 *   aimed at the slot's target); test-size is then the target's, which must
 *   stay as it was - the peer's, for a write, filled with a pattern it checks
 *   at each iteration; ours, for a read, filled with one before each READ.
 *   Needs a peer of protocol version 6 (session-peer-proto). default: 0 modes:
 *   check
 * @KRDMA_A_SESSION_RNR_RETRY: (u8) How many times the session's queue pairs
 *   send again a message the peer's device answered with a receiver-not-ready
 *   NAK (no receive posted) before the work request fails with
 *   IB_WC_RNR_RETRY_EXC_ERR: 0 to 6, or 7 for ever (the IBTA's RNR retry
 *   count). In a session-new request it sets the client's QPs' (absent: 6),
 *   which the IB CM takes from the server's REP: the client's hello asks the
 *   server for it, and a server older than protocol version 7 refuses the
 *   connection (reason 3). The peer's QPs keep 6. session-get reports each
 *   side's own QPs' value, as the CM set it (0 on iWARP, which has no RNR
 *   NAK). Its reason to exist is test-rnr-hold: krdma's credits keep the
 *   peer's receive queues from running empty.
 * @KRDMA_A_TEST_RNR_HOLD: (u8) check mode, send, send_imm - 1: the peer keeps
 *   back every receive its session's QP completes from the test's start, until
 *   none is left posted and rnr-hold-ms more have passed (or rnr-hold-max-ms
 *   since the start), then posts them all again: the SENDs meanwhile meet an
 *   empty receive queue, and the device answers them with receiver-not-ready
 *   NAKs, which ours retries session-rnr-retry times. test-count must exceed
 *   the receives the peer keeps posted on its session's QP (its rq_depth plus
 *   4 a QP of the session, the credits'); no probe of the keepalive goes
 *   meanwhile. Not on iWARP (a SEND into an empty receive queue ends the
 *   connection there, RFC 5040). Needs a peer of protocol version 7
 *   (session-peer-proto). default: 0 modes: check
 * @KRDMA_A_TEST_ZERO_READ_BEHIND: (u8) check mode, read - 1: each iteration's
 *   READ is followed on the same QP, unfenced, by a READ of one SGE of 0 bytes
 *   aimed at the same target, whose completion ends the iteration too: the
 *   peer's device may take the second request while it still answers the first
 *   (a responder that queues it must still answer it with nothing). The second
 *   READ's SGE points into a buffer of ours holding a pattern that must stay
 *   as it was. Asks nothing of the peer's krdma beyond a read test. default: 0
 *   modes: check
 * @KRDMA_A_TEST_REG_BEHIND: (u8) check mode, send, send_imm - 1: each
 *   iteration's SEND is followed on the same QP, with no fence and no
 *   invalidation between them, by a REG_MR of a memory region of ours that is
 *   free (invalid) when posted and is never offered to the peer; its
 *   completion ends the iteration too, and the region is invalidated after it.
 *   A device must run the REG_MR once, also when it sends the SEND again (a
 *   retransmission, a receiver-not-ready retry: with test-rnr-hold); one that
 *   runs it a second time finds the region valid and fails it. Asks nothing of
 *   the peer's krdma beyond a send test. default: 0 modes: check
 */
enum krdma_attr {
	KRDMA_A_UNSPEC,
	KRDMA_A_PAD,
	KRDMA_A_VERSION,
	KRDMA_A_ABI_VERSION,
	KRDMA_A_DEV_INDEX,
	KRDMA_A_DEV_NAME,
	KRDMA_A_DEV_NODE_GUID,
	KRDMA_A_DEV_MAX_QP_RD_ATOM,
	KRDMA_A_DEV_MAX_QP_INIT_RD_ATOM,
	KRDMA_A_DEV_MAX_FAST_REG_PAGES,
	KRDMA_A_DEV_MAX_SGE,
	KRDMA_A_DEV_ATOMIC_CAP,
	KRDMA_A_DEV_PORT,
	KRDMA_A_LISTENER_ID,
	KRDMA_A_NAME,
	KRDMA_A_LOCAL_ADDR,
	KRDMA_A_PEER_ADDR,
	KRDMA_A_TIMEOUT_MS,
	KRDMA_A_SESSION_ID,
	KRDMA_A_SESSION_STATE,
	KRDMA_A_SESSION_ROLE,
	KRDMA_A_SESSION_QPN,
	KRDMA_A_SESSION_PEER_QPN,
	KRDMA_A_SESSION_RESPONDER_RESOURCES,
	KRDMA_A_SESSION_INITIATOR_DEPTH,
	KRDMA_A_SESSION_SQ_DEPTH,
	KRDMA_A_SESSION_RQ_DEPTH,
	KRDMA_A_SESSION_MAX_MSG_SIZE,
	KRDMA_A_SESSION_PEER_PROTO,
	KRDMA_A_REASON,
	KRDMA_A_TEST_ID,
	KRDMA_A_TEST_OP,
	KRDMA_A_TEST_SIZE,
	KRDMA_A_TEST_COUNT,
	KRDMA_A_TEST_DURATION_MS,
	KRDMA_A_TEST_DEPTH,
	KRDMA_A_TEST_INTERVAL_MS,
	KRDMA_A_TEST_STATE,
	KRDMA_A_TEST_STATUS,
	KRDMA_A_TEST_ITERS,
	KRDMA_A_TEST_BYTES,
	KRDMA_A_TEST_ELAPSED_NS,
	KRDMA_A_TEST_VALIDATED,
	KRDMA_A_STATS,
	KRDMA_A_EVENT,
	KRDMA_A_TEST_MODE,
	KRDMA_A_TEST_SIGNAL_EVERY,
	KRDMA_A_TEST_CHAIN,
	KRDMA_A_TEST_INLINE,
	KRDMA_A_TEST_CPU_NS,
	KRDMA_A_TEST_PEER_CPU_NS,
	KRDMA_A_TEST_LAT,
	KRDMA_A_SESSION_MAX_INLINE,
	KRDMA_A_SESSION_CQ_POLL,
	KRDMA_A_TEST_BIDIR,
	KRDMA_A_TEST_PEER_ITERS,
	KRDMA_A_TEST_PEER_BYTES,
	KRDMA_A_SESSION_QPS,
	KRDMA_A_TEST_QPS,
	KRDMA_A_TEST_QP,
	KRDMA_A_SESSION_TOS,
	KRDMA_A_TEST_HOST_CPU,
	KRDMA_A_TEST_PEER_HOST_CPU,
	KRDMA_A_TEST_RATE,
	KRDMA_A_TEST_BURST,
	KRDMA_A_SESSION_ACK_TIMEOUT,
	KRDMA_A_TEST_PEER_ENV,
	KRDMA_A_TEST_VIOLATE,
	KRDMA_A_TEST_ATOMIC_VARIANT,
	KRDMA_A_TEST_SGES,
	KRDMA_A_SESSION_MAX_SGE,
	KRDMA_A_TEST_WC_STATUS,
	KRDMA_A_TEST_READ_BACK,
	KRDMA_A_SESSION_MAX_READ_SGE,
	KRDMA_A_TEST_SEND_INVALIDATE,
	KRDMA_A_TEST_ZERO_LENGTH,
	KRDMA_A_SESSION_RNR_RETRY,
	KRDMA_A_TEST_RNR_HOLD,
	KRDMA_A_TEST_ZERO_READ_BEHIND,
	KRDMA_A_TEST_REG_BEHIND,

	__KRDMA_A_MAX,
};

#define KRDMA_A_MAX (__KRDMA_A_MAX - 1)

/**
 * enum krdma_host_env_attr - A host and the device port a session uses, as the
 *   host itself reported them when the session came up; nested in
 *   test-peer-env. The strings are printable ASCII, empty when the host has
 *   none.
 * @KRDMA_HOST_ENV_A_UNSPEC: reserved
 * @KRDMA_HOST_ENV_A_HOST: (string) The node name of the host's initial UTS
 *   namespace (uname -n outside any container), at most 64 characters.
 * @KRDMA_HOST_ENV_A_FW_VER: (string) The device's firmware version
 *   (ib_get_device_fw_str(), sysfs fw_ver), at most 63 characters; empty if
 *   the driver has none.
 * @KRDMA_HOST_ENV_A_LINK_MBIT_PER_S: (u32) The port's rate over all its lanes,
 *   10^6 bits/s, as sysfs's ports/N/rate computes it; 0 unknown.
 * @KRDMA_HOST_ENV_A_LINK_WIDTH: (u32) The port's lanes (4 of 4X); 0 unknown.
 */
enum krdma_host_env_attr {
	KRDMA_HOST_ENV_A_UNSPEC,
	KRDMA_HOST_ENV_A_HOST,
	KRDMA_HOST_ENV_A_FW_VER,
	KRDMA_HOST_ENV_A_LINK_MBIT_PER_S,
	KRDMA_HOST_ENV_A_LINK_WIDTH,

	__KRDMA_HOST_ENV_A_MAX,
};

#define KRDMA_HOST_ENV_A_MAX (__KRDMA_HOST_ENV_A_MAX - 1)

/**
 * enum krdma_host_cpu_attr - CPU time of a whole host over a test, summed over
 *   its online CPUs (kcpustat), all u64 nanoseconds. Without
 *   CONFIG_IRQ_TIME_ACCOUNTING (Debian's kernels) irq and softirq time are
 *   sampled at the tick, so a short test reads coarse. The RDMA driver's
 *   workqueue threads (rxe on 6.12) count as system time, its tasklets (rxe on
 *   6.1) as softirq.
 * @KRDMA_HOST_CPU_A_UNSPEC: reserved
 * @KRDMA_HOST_CPU_A_PAD: padding that aligns the u64 attributes
 * @KRDMA_HOST_CPU_A_CAPACITY_NS: (u64) The test's wall time times the online
 *   CPUs.
 * @KRDMA_HOST_CPU_A_USER_NS: (u64) User time, nice included.
 * @KRDMA_HOST_CPU_A_SYSTEM_NS: (u64) Kernel time outside interrupts (kernel
 *   threads and workers too).
 * @KRDMA_HOST_CPU_A_SOFTIRQ_NS: (u64)
 * @KRDMA_HOST_CPU_A_IRQ_NS: (u64)
 */
enum krdma_host_cpu_attr {
	KRDMA_HOST_CPU_A_UNSPEC,
	KRDMA_HOST_CPU_A_PAD,
	KRDMA_HOST_CPU_A_CAPACITY_NS,
	KRDMA_HOST_CPU_A_USER_NS,
	KRDMA_HOST_CPU_A_SYSTEM_NS,
	KRDMA_HOST_CPU_A_SOFTIRQ_NS,
	KRDMA_HOST_CPU_A_IRQ_NS,

	__KRDMA_HOST_CPU_A_MAX,
};

#define KRDMA_HOST_CPU_A_MAX (__KRDMA_HOST_CPU_A_MAX - 1)

/**
 * enum krdma_test_qp_attr - One queue pair's share of a bw test, nested in
 *   test-qp.
 * @KRDMA_TEST_QP_A_UNSPEC: reserved
 * @KRDMA_TEST_QP_A_PAD: padding that aligns the u64 attributes
 * @KRDMA_TEST_QP_A_INDEX: (u32) Which of the session's queue pairs (0, the
 *   session's own; on iWARP a test over several leaves it to the control
 *   messages).
 * @KRDMA_TEST_QP_A_ITERS: (u64) Messages it completed.
 * @KRDMA_TEST_QP_A_BYTES: (u64) Payload bytes it moved.
 * @KRDMA_TEST_QP_A_ELAPSED_NS: (u64) From the test's start to its last
 *   completion.
 */
enum krdma_test_qp_attr {
	KRDMA_TEST_QP_A_UNSPEC,
	KRDMA_TEST_QP_A_PAD,
	KRDMA_TEST_QP_A_INDEX,
	KRDMA_TEST_QP_A_ITERS,
	KRDMA_TEST_QP_A_BYTES,
	KRDMA_TEST_QP_A_ELAPSED_NS,

	__KRDMA_TEST_QP_A_MAX,
};

#define KRDMA_TEST_QP_A_MAX (__KRDMA_TEST_QP_A_MAX - 1)

/**
 * enum krdma_addr_attr - An IP endpoint, nested in local-addr and peer-addr.
 *   At most one of ipv4 and ipv6; neither means "any address" where that is
 *   allowed (and, in replies, a listener bound to any address).
 * @KRDMA_ADDR_A_UNSPEC: reserved
 * @KRDMA_ADDR_A_IPV4: (binary) IPv4 address, 4 bytes in network byte order.
 * @KRDMA_ADDR_A_IPV6: (binary) IPv6 address, 16 bytes in network byte order.
 * @KRDMA_ADDR_A_PORT: (u16) Port (RDMA CM port space TCP), in host byte order.
 * @KRDMA_ADDR_A_SCOPE_ID: (u32) IPv6 scope of a link-local ipv6 address: the
 *   index of the interface it is on (requests only; "fe80::1%eth0" in
 *   krdmactl).
 */
enum krdma_addr_attr {
	KRDMA_ADDR_A_UNSPEC,
	KRDMA_ADDR_A_IPV4,
	KRDMA_ADDR_A_IPV6,
	KRDMA_ADDR_A_PORT,
	KRDMA_ADDR_A_SCOPE_ID,

	__KRDMA_ADDR_A_MAX,
};

#define KRDMA_ADDR_A_MAX (__KRDMA_ADDR_A_MAX - 1)

/**
 * enum krdma_port_attr - One port of an RDMA device, nested in dev-port.
 * @KRDMA_PORT_A_UNSPEC: reserved
 * @KRDMA_PORT_A_INDEX: (u32) Port number (from 1).
 * @KRDMA_PORT_A_STATE: (u8, enum ib_port_state) Port state.
 * @KRDMA_PORT_A_ACTIVE_MTU: (u32) Active MTU in bytes.
 */
enum krdma_port_attr {
	KRDMA_PORT_A_UNSPEC,
	KRDMA_PORT_A_INDEX,
	KRDMA_PORT_A_STATE,
	KRDMA_PORT_A_ACTIVE_MTU,

	__KRDMA_PORT_A_MAX,
};

#define KRDMA_PORT_A_MAX (__KRDMA_PORT_A_MAX - 1)

/**
 * enum krdma_lat_attr - One-way latency of a lat test (half of each round
 *   trip), nested in test-lat; all u64 nanoseconds but samples. Percentiles
 *   come from a log-linear histogram, within 1/256 of the true value.
 * @KRDMA_LAT_A_UNSPEC: reserved
 * @KRDMA_LAT_A_PAD: padding that aligns the u64 attributes
 * @KRDMA_LAT_A_SAMPLES: (u64) Round trips timed.
 * @KRDMA_LAT_A_MIN_NS: (u64)
 * @KRDMA_LAT_A_P50_NS: (u64) Median (perftest's "typical").
 * @KRDMA_LAT_A_P90_NS: (u64)
 * @KRDMA_LAT_A_P99_NS: (u64)
 * @KRDMA_LAT_A_P999_NS: (u64) 99.9th percentile.
 * @KRDMA_LAT_A_MAX_NS: (u64)
 * @KRDMA_LAT_A_AVG_NS: (u64)
 * @KRDMA_LAT_A_STDEV_NS: (u64) Standard deviation, from the histogram
 *   (saturates at 2^32 - 1 ns, a spread of more than 4.29 s).
 * @KRDMA_LAT_A_HIST: (nest, enum krdma_hist_attr, multi) The histogram, one
 *   per non-empty bucket in increasing order: four buckets to a power of two,
 *   or two, or one, the finest that needs at most 64 of them.
 */
enum krdma_lat_attr {
	KRDMA_LAT_A_UNSPEC,
	KRDMA_LAT_A_PAD,
	KRDMA_LAT_A_SAMPLES,
	KRDMA_LAT_A_MIN_NS,
	KRDMA_LAT_A_P50_NS,
	KRDMA_LAT_A_P90_NS,
	KRDMA_LAT_A_P99_NS,
	KRDMA_LAT_A_P999_NS,
	KRDMA_LAT_A_MAX_NS,
	KRDMA_LAT_A_AVG_NS,
	KRDMA_LAT_A_STDEV_NS,
	KRDMA_LAT_A_HIST,

	__KRDMA_LAT_A_MAX,
};

#define KRDMA_LAT_A_MAX (__KRDMA_LAT_A_MAX - 1)

/**
 * enum krdma_hist_attr - One bucket of a latency histogram, nested in lat's
 *   hist.
 * @KRDMA_HIST_A_UNSPEC: reserved
 * @KRDMA_HIST_A_PAD: padding that aligns the u64 attributes
 * @KRDMA_HIST_A_LO_NS: (u64) The bucket's lowest latency, included.
 * @KRDMA_HIST_A_HI_NS: (u64) Its end, excluded (2^64 - 1 for the last possible
 *   bucket).
 * @KRDMA_HIST_A_COUNT: (u64) Samples in it.
 */
enum krdma_hist_attr {
	KRDMA_HIST_A_UNSPEC,
	KRDMA_HIST_A_PAD,
	KRDMA_HIST_A_LO_NS,
	KRDMA_HIST_A_HI_NS,
	KRDMA_HIST_A_COUNT,

	__KRDMA_HIST_A_MAX,
};

#define KRDMA_HIST_A_MAX (__KRDMA_HIST_A_MAX - 1)

/**
 * enum krdma_stats_attr - Counters nested in stats, all u64, module-wide or
 *   per session.
 * @KRDMA_STATS_A_UNSPEC: reserved
 * @KRDMA_STATS_A_PAD: padding that aligns the u64 attributes
 * @KRDMA_STATS_A_SESSIONS_OPENED: (u64) Sessions that came up.
 * @KRDMA_STATS_A_SESSIONS_CLOSED: (u64) Sessions that were torn down.
 * @KRDMA_STATS_A_CONNECT_ERRORS: (u64) Connection attempts that failed
 *   (address, route, unreachable, timeout).
 * @KRDMA_STATS_A_REJECTS_SENT: (u64) Connection requests this side rejected.
 * @KRDMA_STATS_A_TESTS_STARTED: (u64) Tests started.
 * @KRDMA_STATS_A_TESTS_FAILED: (u64) Tests that ended with a non-zero status.
 * @KRDMA_STATS_A_SEND_WRS: (u64) SEND work requests posted.
 * @KRDMA_STATS_A_RECV_WRS: (u64) Receive work requests posted.
 * @KRDMA_STATS_A_WRITE_WRS: (u64) RDMA WRITE work requests posted.
 * @KRDMA_STATS_A_READ_WRS: (u64) RDMA READ work requests posted.
 * @KRDMA_STATS_A_ATOMIC_WRS: (u64) Atomic work requests posted.
 * @KRDMA_STATS_A_REG_MR_WRS: (u64) Fast-registration (REG_MR) work requests
 *   posted.
 * @KRDMA_STATS_A_INV_WRS: (u64) Local invalidate work requests posted.
 * @KRDMA_STATS_A_BYTES_TX: (u64) Payload bytes sent or written.
 * @KRDMA_STATS_A_BYTES_RX: (u64) Payload bytes received or read.
 * @KRDMA_STATS_A_WC_ERRORS: (u64) Work completions with an error status.
 * @KRDMA_STATS_A_VALIDATION_ERRORS: (u64) Data that did not match the expected
 *   pattern.
 * @KRDMA_STATS_A_PROTOCOL_ERRORS: (u64) Malformed or unexpected control
 *   messages from a peer.
 * @KRDMA_STATS_A_SESSIONS_REFUSED: (u64) Connection requests rejected because
 *   the listener or the module had as many server sessions as module
 *   parameters max_listener_sessions or max_sessions allow.
 * @KRDMA_STATS_A_MEM_REFUSED: (u64) Connection, data channel and test requests
 *   refused because the memory they ask for is more than module parameter
 *   max_session_mem_mb allows a session, or than max_mem_mb leaves of all
 *   sessions.
 * @KRDMA_STATS_A_RESPONDER_TIMEOUTS: (u64) Sessions closed because the peer
 *   left the test it drives idle for stall_ms while this side responded.
 * @KRDMA_STATS_A_PEER_MEM: (u64) Gauge - bytes that peers now make this side
 *   pin (receive buffers and QPs and CQs, as estimated, of server sessions,
 *   buffers of the tests it responds to); per session, that session's. Not
 *   reset.
 * @KRDMA_STATS_A_PEER_MEM_PEAK: (u64) The most peer-mem since the last reset
 *   (module-wide) or ever (per session).
 * @KRDMA_STATS_A_SERVER_SESSIONS: (u64) Gauge, module-wide only - server
 *   sessions now (connecting, up or closing). Not reset.
 * @KRDMA_STATS_A_SERVER_SESSIONS_PEAK: (u64) Module-wide only - the most
 *   server-sessions since the last reset.
 * @KRDMA_STATS_A_QP_EVENTS: (u64) Asynchronous events of the sessions' queue
 *   pairs (a fatal one ends its session, with the event as the reason).
 * @KRDMA_STATS_A_PEER_SILENCE_MAX: (u64) The longest gap between two answers
 *   of the peer (milliseconds; an idle session's probes answer every
 *   keepalive_ms): how close an alive peer came to module parameter
 *   peer_timeout_ms, at which its session is closed. Since the last reset
 *   (module-wide: the most of any session) or ever (per session).
 * @KRDMA_STATS_A_POLLERS_REFUSED: (u64) lat write tests of peers refused
 *   because this side already responded to as many as module parameter
 *   max_responder_pollers allows, each with a thread polling for the peer's
 *   writes.
 * @KRDMA_STATS_A_RESPONDER_POLLERS: (u64) Gauge, module-wide only - the
 *   threads that poll for the writes of peers' lat write tests now (at most
 *   max_responder_pollers). Not reset.
 */
enum krdma_stats_attr {
	KRDMA_STATS_A_UNSPEC,
	KRDMA_STATS_A_PAD,
	KRDMA_STATS_A_SESSIONS_OPENED,
	KRDMA_STATS_A_SESSIONS_CLOSED,
	KRDMA_STATS_A_CONNECT_ERRORS,
	KRDMA_STATS_A_REJECTS_SENT,
	KRDMA_STATS_A_TESTS_STARTED,
	KRDMA_STATS_A_TESTS_FAILED,
	KRDMA_STATS_A_SEND_WRS,
	KRDMA_STATS_A_RECV_WRS,
	KRDMA_STATS_A_WRITE_WRS,
	KRDMA_STATS_A_READ_WRS,
	KRDMA_STATS_A_ATOMIC_WRS,
	KRDMA_STATS_A_REG_MR_WRS,
	KRDMA_STATS_A_INV_WRS,
	KRDMA_STATS_A_BYTES_TX,
	KRDMA_STATS_A_BYTES_RX,
	KRDMA_STATS_A_WC_ERRORS,
	KRDMA_STATS_A_VALIDATION_ERRORS,
	KRDMA_STATS_A_PROTOCOL_ERRORS,
	KRDMA_STATS_A_SESSIONS_REFUSED,
	KRDMA_STATS_A_MEM_REFUSED,
	KRDMA_STATS_A_RESPONDER_TIMEOUTS,
	KRDMA_STATS_A_PEER_MEM,
	KRDMA_STATS_A_PEER_MEM_PEAK,
	KRDMA_STATS_A_SERVER_SESSIONS,
	KRDMA_STATS_A_SERVER_SESSIONS_PEAK,
	KRDMA_STATS_A_QP_EVENTS,
	KRDMA_STATS_A_PEER_SILENCE_MAX,
	KRDMA_STATS_A_POLLERS_REFUSED,
	KRDMA_STATS_A_RESPONDER_POLLERS,

	__KRDMA_STATS_A_MAX,
};

#define KRDMA_STATS_A_MAX (__KRDMA_STATS_A_MAX - 1)

/**
 * enum krdma_cmd - Commands of the family; their doc is the spec's.
 * @KRDMA_CMD_UNSPEC: Reserved; not a command.
 * @KRDMA_CMD_VERSION_GET: (do) Get the module's version and ABI version.
 * @KRDMA_CMD_DEV_GET: (do, dump) Get one RDMA device by name, or dump every
 *   device krdma can use, with its limits and one dev-port nest per port.
 * @KRDMA_CMD_LISTENER_ADD: (do, admin-perm) Listen for sessions. local-addr
 *   must hold a port; without an IP address the listener takes every address.
 *   Replies with the new listener, as listener-get does.
 * @KRDMA_CMD_LISTENER_DEL: (do, admin-perm) Remove a listener, by listener-id
 *   or by name. Sessions it accepted stay up.
 * @KRDMA_CMD_LISTENER_GET: (do, dump) Get one listener (by listener-id or
 *   name), or dump them all. dev-name is present once the listener is bound to
 *   one device; reason says the device went away.
 * @KRDMA_CMD_SESSION_NEW: (do, admin-perm) Connect to a listener at peer-addr
 *   (address and port required), optionally from local-addr (same family).
 *   Replies at once with the session id; the outcome comes as a session-up or
 *   session-down event. With session-qps above 1 the session opens that many
 *   queue pairs to the peer and is up only once all of them are connected; its
 *   session-sq-depth must then be 5 or more (EINVAL).
 * @KRDMA_CMD_SESSION_DEL: (do, admin-perm) Disconnect and remove a session, by
 *   session-id or by name.
 * @KRDMA_CMD_SESSION_GET: (do, dump) Get one session (by session-id or name),
 *   or dump them all, each with its counters. The queue attributes are present
 *   while the session is up; listener-id for server sessions only.
 * @KRDMA_CMD_TEST_START: (do, admin-perm) Start a test on an up session (by
 *   session-id or name). test-count and test-duration-ms exclude each other.
 *   Replies at once with the test id; progress and the result come as events.
 * @KRDMA_CMD_TEST_STOP: (do, admin-perm) Stop a running test; its test-done
 *   event follows.
 * @KRDMA_CMD_TEST_GET: (do, dump) Get one test by test-id, or dump them all.
 * @KRDMA_CMD_STATS_GET: (do) Get the module-wide counters.
 * @KRDMA_CMD_STATS_RESET: (do, admin-perm) Set the module-wide counters to
 *   zero.
 * @KRDMA_CMD_EVENT_NTF: (event) Event on the events group. event says what
 *   happened; session events carry the session's identity (session-id, name,
 *   state, role, reason, addresses, session-qps, session-tos); test events
 *   carry what test-get would reply.
 */
enum krdma_cmd {
	KRDMA_CMD_UNSPEC,
	KRDMA_CMD_VERSION_GET,
	KRDMA_CMD_DEV_GET,
	KRDMA_CMD_LISTENER_ADD,
	KRDMA_CMD_LISTENER_DEL,
	KRDMA_CMD_LISTENER_GET,
	KRDMA_CMD_SESSION_NEW,
	KRDMA_CMD_SESSION_DEL,
	KRDMA_CMD_SESSION_GET,
	KRDMA_CMD_TEST_START,
	KRDMA_CMD_TEST_STOP,
	KRDMA_CMD_TEST_GET,
	KRDMA_CMD_STATS_GET,
	KRDMA_CMD_STATS_RESET,
	KRDMA_CMD_EVENT_NTF,

	__KRDMA_CMD_MAX,
};

#define KRDMA_CMD_MAX (__KRDMA_CMD_MAX - 1)

#define KRDMA_MCGRP_EVENTS	"events"

#endif /* _UAPI_LINUX_KRDMA_H */
