/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/krdma.yaml */
/* by scripts/spec-to-c.py --params; make check-spec checks that it is current. */
/*
 * What a request may leave out and what it may ask, for the module, which
 * applies it, and krdmactl, which says it: each attribute's default (the
 * spec's "default:"; _DEFAULT_<MODE> where a test mode has its own), the
 * bounds of its checks or of its enum, and for test-start the test modes
 * that take it (the spec's "modes:", 1 << mode each). Include the uAPI
 * header first.
 */

#ifndef _KRDMA_PARAMS_H
#define _KRDMA_PARAMS_H

/* timeout-ms */
#define KRDMA_A_TIMEOUT_MS_DEFAULT	10000
#define KRDMA_A_TIMEOUT_MS_MIN		KRDMA_TIMEOUT_MS_MIN
#define KRDMA_A_TIMEOUT_MS_MAX		KRDMA_TIMEOUT_MS_MAX

/* session-sq-depth */
#define KRDMA_A_SESSION_SQ_DEPTH_DEFAULT	256
#define KRDMA_A_SESSION_SQ_DEPTH_MIN		KRDMA_QUEUE_DEPTH_MIN
#define KRDMA_A_SESSION_SQ_DEPTH_MAX		KRDMA_QUEUE_DEPTH_MAX

/* session-rq-depth */
#define KRDMA_A_SESSION_RQ_DEPTH_DEFAULT	32
#define KRDMA_A_SESSION_RQ_DEPTH_MIN		KRDMA_QUEUE_DEPTH_MIN
#define KRDMA_A_SESSION_RQ_DEPTH_MAX		KRDMA_QUEUE_DEPTH_MAX

/* session-max-msg-size */
#define KRDMA_A_SESSION_MAX_MSG_SIZE_DEFAULT	65536
#define KRDMA_A_SESSION_MAX_MSG_SIZE_MIN	1
#define KRDMA_A_SESSION_MAX_MSG_SIZE_MAX	KRDMA_MSG_SIZE_MAX

/* test-op */
#define KRDMA_A_TEST_OP_MIN	1
#define KRDMA_A_TEST_OP_MAX	KRDMA_OP_MAX

/* test-size */
#define KRDMA_A_TEST_SIZE_DEFAULT	4096
#define KRDMA_A_TEST_SIZE_MIN		1
#define KRDMA_A_TEST_SIZE_MAX		KRDMA_MSG_SIZE_MAX

/* test-count */
#define KRDMA_A_TEST_COUNT_DEFAULT	1000

/* test-duration-ms */
#define KRDMA_A_TEST_DURATION_MS_MIN	1
#define KRDMA_A_TEST_DURATION_MS_MAX	KRDMA_DURATION_MS_MAX

/* test-depth */
#define KRDMA_A_TEST_DEPTH_DEFAULT	1
#define KRDMA_A_TEST_DEPTH_DEFAULT_BW	64
#define KRDMA_A_TEST_DEPTH_MIN		1
#define KRDMA_A_TEST_DEPTH_MAX		KRDMA_DEPTH_MAX

/* test-interval-ms */
#define KRDMA_A_TEST_INTERVAL_MS_DEFAULT	1000
#define KRDMA_A_TEST_INTERVAL_MS_MIN		KRDMA_INTERVAL_MS_MIN
#define KRDMA_A_TEST_INTERVAL_MS_MAX		KRDMA_DURATION_MS_MAX

/* test-mode */
#define KRDMA_A_TEST_MODE_DEFAULT	KRDMA_MODE_CHECK
#define KRDMA_A_TEST_MODE_MIN		1
#define KRDMA_A_TEST_MODE_MAX		KRDMA_MODE_MAX

/* test-signal-every */
#define KRDMA_A_TEST_SIGNAL_EVERY_DEFAULT	16
#define KRDMA_A_TEST_SIGNAL_EVERY_MIN		1
#define KRDMA_A_TEST_SIGNAL_EVERY_MAX		KRDMA_DEPTH_MAX
#define KRDMA_A_TEST_SIGNAL_EVERY_MODES		((1U << KRDMA_MODE_BW) | (1U << KRDMA_MODE_LAT))

/* test-chain */
#define KRDMA_A_TEST_CHAIN_DEFAULT	1
#define KRDMA_A_TEST_CHAIN_DEFAULT_BW	8
#define KRDMA_A_TEST_CHAIN_MIN		1
#define KRDMA_A_TEST_CHAIN_MAX		KRDMA_CHAIN_MAX
#define KRDMA_A_TEST_CHAIN_MODES	((1U << KRDMA_MODE_BW) | (1U << KRDMA_MODE_LAT))

/* test-bidir */
#define KRDMA_A_TEST_BIDIR_DEFAULT	0
#define KRDMA_A_TEST_BIDIR_MAX		1
#define KRDMA_A_TEST_BIDIR_MODES	((1U << KRDMA_MODE_BW))

/* session-qps */
#define KRDMA_A_SESSION_QPS_DEFAULT	1
#define KRDMA_A_SESSION_QPS_MIN		1
#define KRDMA_A_SESSION_QPS_MAX		KRDMA_QPS_MAX

/* test-qps */
#define KRDMA_A_TEST_QPS_DEFAULT	1
#define KRDMA_A_TEST_QPS_MIN		1
#define KRDMA_A_TEST_QPS_MAX		KRDMA_QPS_MAX
#define KRDMA_A_TEST_QPS_MODES		((1U << KRDMA_MODE_BW))

/* test-rate */
#define KRDMA_A_TEST_RATE_MODES	((1U << KRDMA_MODE_BW))

/* test-burst */
#define KRDMA_A_TEST_BURST_MIN		1
#define KRDMA_A_TEST_BURST_MAX		KRDMA_DEPTH_MAX
#define KRDMA_A_TEST_BURST_MODES	((1U << KRDMA_MODE_BW))

/* session-ack-timeout */
#define KRDMA_A_SESSION_ACK_TIMEOUT_MAX	KRDMA_ACK_TIMEOUT_MAX

/* test-violate */
#define KRDMA_A_TEST_VIOLATE_MIN	1
#define KRDMA_A_TEST_VIOLATE_MAX	KRDMA_VIOLATE_MAX
#define KRDMA_A_TEST_VIOLATE_MODES	((1U << KRDMA_MODE_CHECK))

/* test-atomic-variant */
#define KRDMA_A_TEST_ATOMIC_VARIANT_MIN		1
#define KRDMA_A_TEST_ATOMIC_VARIANT_MAX		KRDMA_ATOMIC_MAX
#define KRDMA_A_TEST_ATOMIC_VARIANT_MODES	((1U << KRDMA_MODE_CHECK))

/* test-sges */
#define KRDMA_A_TEST_SGES_MIN	1
#define KRDMA_A_TEST_SGES_MAX	KRDMA_SGE_MAX
#define KRDMA_A_TEST_SGES_MODES	((1U << KRDMA_MODE_CHECK))

/* session-max-sge */
#define KRDMA_A_SESSION_MAX_SGE_MIN	1
#define KRDMA_A_SESSION_MAX_SGE_MAX	KRDMA_SGE_MAX

/* test-read-back */
#define KRDMA_A_TEST_READ_BACK_DEFAULT	0
#define KRDMA_A_TEST_READ_BACK_MAX	1
#define KRDMA_A_TEST_READ_BACK_MODES	((1U << KRDMA_MODE_CHECK))

/* test-send-invalidate */
#define KRDMA_A_TEST_SEND_INVALIDATE_DEFAULT	0
#define KRDMA_A_TEST_SEND_INVALIDATE_MAX	1
#define KRDMA_A_TEST_SEND_INVALIDATE_MODES	((1U << KRDMA_MODE_CHECK))

/* test-zero-length */
#define KRDMA_A_TEST_ZERO_LENGTH_DEFAULT	0
#define KRDMA_A_TEST_ZERO_LENGTH_MAX		1
#define KRDMA_A_TEST_ZERO_LENGTH_MODES		((1U << KRDMA_MODE_CHECK))

/* session-rnr-retry */
#define KRDMA_A_SESSION_RNR_RETRY_MAX	7

/* test-rnr-hold */
#define KRDMA_A_TEST_RNR_HOLD_DEFAULT	0
#define KRDMA_A_TEST_RNR_HOLD_MAX	1
#define KRDMA_A_TEST_RNR_HOLD_MODES	((1U << KRDMA_MODE_CHECK))

/* test-zero-read-behind */
#define KRDMA_A_TEST_ZERO_READ_BEHIND_DEFAULT	0
#define KRDMA_A_TEST_ZERO_READ_BEHIND_MAX	1
#define KRDMA_A_TEST_ZERO_READ_BEHIND_MODES	((1U << KRDMA_MODE_CHECK))

/* test-reg-behind */
#define KRDMA_A_TEST_REG_BEHIND_DEFAULT	0
#define KRDMA_A_TEST_REG_BEHIND_MAX	1
#define KRDMA_A_TEST_REG_BEHIND_MODES	((1U << KRDMA_MODE_CHECK))

#endif /* _KRDMA_PARAMS_H */
