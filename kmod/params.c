// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: a test's parameters as the spec declares them - which test modes
 * take which attribute of test-start, the defaults of what a request
 * leaves out and the bounds of what it gives (include/krdma_params.h and
 * netlink-gen.c's table, generated from the spec's "default:" and
 * "modes:"). Shared by the test netlink starts and the peer's test we
 * respond to, which is also the bidir mirror we run back (peer.c), so
 * that both sides hold a test to the same. What a session or a device
 * allows is the engines' (check_params).
 */
#include <linux/minmax.h>
#include <net/genetlink.h>

#include "test.h"
#include "netlink-gen.h"

/*
 * NL_SET_ERR_MSG_ATTR() for a message of the spec's table: 6.1's takes
 * only a literal (and has no _FMT), whose static copy it makes.
 */
static void krdma_refuse(struct netlink_ext_ack *extack,
			 const struct nlattr *attr, const char *msg)
{
	if (!extack)
		return;
	do_trace_netlink_extack(msg);
	extack->_msg = msg;
	NL_SET_BAD_ATTR(extack, attr);
}

/*
 * Does @mode refuse attribute @ma given as @val? A mode the spec does not
 * name takes it only at its default, which asks the mode for nothing
 * (bidir 0, qps 1).
 */
static bool krdma_mode_refuses(const struct krdma_mode_attr *ma, u8 mode,
			       u64 val)
{
	return !(ma->modes & (1U << mode)) &&
	       !(ma->has_default && val == ma->dflt);
}

/**
 * krdma_test_attrs_check() - the attributes of test-start @mode takes
 * @tb: the request's attributes, checked by the policy
 * @mode: the test mode the request asks for
 * @extack: says which attribute, and which modes take it
 *
 * One loop over the spec's table (netlink-gen.c), in the spec's order.
 *
 * Return: 0, or -EINVAL.
 */
int krdma_test_attrs_check(struct nlattr **tb, u8 mode,
			   struct netlink_ext_ack *extack)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(krdma_test_mode_attrs); i++) {
		const struct krdma_mode_attr *ma = &krdma_test_mode_attrs[i];
		struct nlattr *attr = tb[ma->attr];
		u64 val;

		if (!attr)
			continue;
		switch (ma->type) {
		case NLA_U8:
			val = nla_get_u8(attr);
			break;
		case NLA_U32:
			val = nla_get_u32(attr);
			break;
		default:
			val = nla_get_u64(attr);
			break;
		}
		if (krdma_mode_refuses(ma, mode, val)) {
			krdma_refuse(extack, attr, ma->refusal);
			return -EINVAL;
		}
	}
	return 0;
}

/* The parameter of @p that attribute @attr of the spec's table sets. */
static u64 krdma_test_param(const struct krdma_test_params *p, u16 attr)
{
	switch (attr) {
	case KRDMA_A_TEST_SIGNAL_EVERY:
		return p->signal_every;
	case KRDMA_A_TEST_CHAIN:
		return p->chain;
	case KRDMA_A_TEST_BIDIR:
		return p->bidir;
	case KRDMA_A_TEST_QPS:
		return p->qps;
	case KRDMA_A_TEST_RATE:
		return p->rate;
	case KRDMA_A_TEST_BURST:
		return p->burst;
	case KRDMA_A_TEST_VIOLATE:
		return p->violate;
	case KRDMA_A_TEST_ATOMIC_VARIANT:
		return p->atomic_variant;
	case KRDMA_A_TEST_SGES:
		return p->sges;
	case KRDMA_A_TEST_READ_BACK:
		return p->read_back;
	case KRDMA_A_TEST_SEND_INVALIDATE:
		return p->send_inv;
	case KRDMA_A_TEST_ZERO_LENGTH:
		return p->zero_length;
	case KRDMA_A_TEST_RNR_HOLD:
		return p->rnr_hold;
	case KRDMA_A_TEST_ZERO_READ_BEHIND:
		return p->zero_behind;
	case KRDMA_A_TEST_REG_BEHIND:
		return p->reg_behind;
	}
	/* The spec gave "modes:" to an attribute this does not know. */
	WARN_ON_ONCE(1);
	return U64_MAX;
}

/**
 * krdma_test_params_defaults() - the spec's defaults for what @p leaves out
 * @p: a test's parameters, 0 where not given
 *
 * A count only when no duration is given; a burst only with a rate. A bw
 * pipeline's window (depth) also caps its signal_every and chain.
 */
void krdma_test_params_defaults(struct krdma_test_params *p)
{
	bool bw;

	p->mode = p->mode ?: KRDMA_A_TEST_MODE_DEFAULT;
	bw = p->mode == KRDMA_MODE_BW;
	/* The atomics always move 8 bytes. */
	if (!p->size)
		p->size = krdma_op_is_atomic(p->op) ? sizeof(u64) :
			  KRDMA_A_TEST_SIZE_DEFAULT;
	if (!p->depth)
		p->depth = bw ? KRDMA_A_TEST_DEPTH_DEFAULT_BW :
			   KRDMA_A_TEST_DEPTH_DEFAULT;
	if (!p->signal_every)
		p->signal_every = bw ? min_t(u32, p->depth,
					     KRDMA_A_TEST_SIGNAL_EVERY_DEFAULT) :
				  KRDMA_A_TEST_SIGNAL_EVERY_DEFAULT;
	if (!p->chain)
		p->chain = min_t(u32, p->depth, bw ? KRDMA_A_TEST_CHAIN_DEFAULT_BW :
					       KRDMA_A_TEST_CHAIN_DEFAULT);
	/* A burst is one ib_post_send() unless the user says otherwise. */
	if (p->rate && !p->burst)
		p->burst = p->chain;
	if (!p->qps)
		p->qps = KRDMA_A_TEST_QPS_DEFAULT;
	if (!p->interval_ms)
		p->interval_ms = KRDMA_A_TEST_INTERVAL_MS_DEFAULT;
	if (!p->count && !p->duration_ms)
		p->count = KRDMA_A_TEST_COUNT_DEFAULT;
}

/* Is @val within [@min, @max]? */
static bool krdma_param_in(u64 val, u64 min, u64 max)
{
	return val >= min && val <= max;
}

/*
 * A conformance case's test (test-violate): one iteration, which the
 * peer's device refuses, and an op that has the rule it breaks. What the
 * session must have for it (long-send's size) is the check engine's.
 */
static int krdma_test_violation_check(const struct krdma_test_params *p,
				      struct netlink_ext_ack *extack)
{
	const struct krdma_op_info *info = krdma_op(p->op);
	bool fits;

	if (!p->violate)
		return 0;
	if (p->count != 1 || p->duration_ms || p->depth != 1) {
		NL_SET_ERR_MSG(extack,
			       "violate runs one iteration: count 1, depth 1, no duration");
		return -EINVAL;
	}
	switch (p->violate) {
	case KRDMA_VIOLATE_OUT_OF_BOUNDS:
	case KRDMA_VIOLATE_STALE_RKEY:
	case KRDMA_VIOLATE_INVALIDATED_RKEY:
		/* An access to a region the peer registered. */
		fits = info->peer_access;
		break;
	case KRDMA_VIOLATE_NO_ACCESS:
		fits = p->op == KRDMA_OP_READ;
		break;
	case KRDMA_VIOLATE_LONG_SEND:
		fits = info->send;
		break;
	case KRDMA_VIOLATE_UNALIGNED:
		/* 4 bytes in, and still inside the target. */
		fits = krdma_op_is_atomic(p->op) && p->size >= 2 * sizeof(u64);
		break;
	case KRDMA_VIOLATE_SEND_INVALIDATED_RKEY:
		/* The key a SEND_WITH_INV invalidated, WRITTEN through. */
		fits = p->op == KRDMA_OP_SEND && p->send_inv;
		break;
	default:
		fits = false;
		break;
	}
	if (!fits) {
		NL_SET_ERR_MSG(extack,
			       "this op has no such rule to break (out-of-bounds, stale-rkey, invalidated-rkey: write, write_imm, read, atomics; no-access: read; long-send: send, send_imm; unaligned: atomics of size 16 or more; send-invalidated-rkey: send with send-invalidate)");
		return -EINVAL;
	}
	return 0;
}

/*
 * An atomics variant (test-atomic-variant): its op's, and a count that
 * ends every slot on an iteration that brings the target back to the
 * sequence the peer checks (check.c, krdma_check_variant_turn()).
 */
static int krdma_test_atomic_variant_check(const struct krdma_test_params *p,
					   struct netlink_ext_ack *extack)
{
	u8 op = p->atomic_variant == KRDMA_ATOMIC_FADD_WRAP ?
		KRDMA_OP_ATOMIC_FADD : KRDMA_OP_ATOMIC_CSWAP;

	if (!p->atomic_variant)
		return 0;
	if (p->op != op || p->atomic_variant > KRDMA_ATOMIC_MAX) {
		NL_SET_ERR_MSG(extack,
			       "fadd-wrap is atomic_fadd's, cswap-miss atomic_cswap's");
		return -EINVAL;
	}
	if (p->duration_ms || p->count % (2 * (u64)p->depth)) {
		NL_SET_ERR_MSG(extack,
			       "an atomics variant needs a count that is a multiple of twice the depth");
		return -EINVAL;
	}
	return 0;
}

/**
 * krdma_test_params_check() - @p, its defaults applied, against the spec
 * @p: a test's parameters, after krdma_test_params_defaults()
 * @extack: why not; NULL for a peer's test
 *
 * The bounds of the spec's checks (which the policy holds a request to,
 * but not a peer's TEST_REQ), the modes that take bidir and several QPs,
 * which modes take which parameter (as krdma_test_attrs_check() asks
 * of a request), and the size of the atomics: what no session changes. The driver (its
 * test and the bidir mirror, krdma_test_start_locked()) and the
 * responder (krdma_peer_on_req()) both ask it.
 *
 * Return: 0, -EOPNOTSUPP for a mode outside the spec's range, else -EINVAL.
 */
int krdma_test_params_check(const struct krdma_test_params *p,
			    struct netlink_ext_ack *extack)
{
	unsigned int i;
	int ret;

	/*
	 * Which engines are registered is the caller's to ask (the request
	 * and the peer's TEST_REQ do): this check is of the parameters
	 * alone, the same before the engines register (KUnit runs then).
	 */
	if (!krdma_param_in(p->mode, KRDMA_A_TEST_MODE_MIN, KRDMA_A_TEST_MODE_MAX)) {
		NL_SET_ERR_MSG(extack, "no engine runs this mode");
		return -EOPNOTSUPP;
	}
	if (!krdma_param_in(p->op, KRDMA_A_TEST_OP_MIN, KRDMA_A_TEST_OP_MAX) ||
	    !krdma_param_in(p->size, KRDMA_A_TEST_SIZE_MIN, KRDMA_A_TEST_SIZE_MAX) ||
	    !krdma_param_in(p->depth, KRDMA_A_TEST_DEPTH_MIN, KRDMA_A_TEST_DEPTH_MAX) ||
	    !krdma_param_in(p->signal_every, KRDMA_A_TEST_SIGNAL_EVERY_MIN,
			    KRDMA_A_TEST_SIGNAL_EVERY_MAX) ||
	    !krdma_param_in(p->chain, KRDMA_A_TEST_CHAIN_MIN, KRDMA_A_TEST_CHAIN_MAX) ||
	    !krdma_param_in(p->qps, KRDMA_A_TEST_QPS_MIN, KRDMA_A_TEST_QPS_MAX) ||
	    !krdma_param_in(p->interval_ms, KRDMA_A_TEST_INTERVAL_MS_MIN,
			    KRDMA_A_TEST_INTERVAL_MS_MAX) ||
	    p->duration_ms > KRDMA_A_TEST_DURATION_MS_MAX ||
	    (!p->count && !p->duration_ms) ||
	    (p->rate && !krdma_param_in(p->burst, KRDMA_A_TEST_BURST_MIN,
					 KRDMA_A_TEST_BURST_MAX))) {
		NL_SET_ERR_MSG(extack, "test parameter out of range");
		return -EINVAL;
	}
	/* The same loop as the request's: 0 is a parameter left out. */
	for (i = 0; i < ARRAY_SIZE(krdma_test_mode_attrs); i++) {
		const struct krdma_mode_attr *ma = &krdma_test_mode_attrs[i];
		u64 val = krdma_test_param(p, ma->attr);

		if (val && krdma_mode_refuses(ma, p->mode, val)) {
			krdma_refuse(extack, NULL, ma->refusal);
			return -EINVAL;
		}
	}
	if (krdma_op_is_atomic(p->op) && p->size != sizeof(u64) &&
	    (p->mode != KRDMA_MODE_CHECK || p->size % sizeof(u64) ||
	     p->size > KRDMA_ATOMIC_TARGET_MAX || p->atomic_variant)) {
		NL_SET_ERR_MSG(extack,
			       "atomics operate on 8 bytes: size must be 8 (in check mode a target of 8-byte words, at most atomic-target-max, without a variant)");
		return -EINVAL;
	}
	ret = krdma_test_violation_check(p, extack);
	if (ret)
		return ret;
	ret = krdma_test_atomic_variant_check(p, extack);
	if (ret)
		return ret;
	if (p->sges && ((!krdma_op_is_send(p->op) && p->op != KRDMA_OP_WRITE &&
			 p->op != KRDMA_OP_WRITE_IMM && p->op != KRDMA_OP_READ) ||
			p->sges > KRDMA_SGE_MAX || p->violate)) {
		NL_SET_ERR_MSG(extack,
			       "sges is for send, send_imm, write, write_imm and read, at most sge-max");
		return -EINVAL;
	}
	if (p->read_back && (p->op != KRDMA_OP_WRITE || p->violate)) {
		NL_SET_ERR_MSG(extack, "read-back is for write, without a violation");
		return -EINVAL;
	}
	/* IB has no SEND_WITH_INV that carries an immediate too. */
	if (p->send_inv && (p->op != KRDMA_OP_SEND ||
			    (p->violate &&
			     p->violate != KRDMA_VIOLATE_SEND_INVALIDATED_RKEY))) {
		NL_SET_ERR_MSG(extack,
			       "send-invalidate is for send, without a violation but send-invalidated-rkey");
		return -EINVAL;
	}
	if (p->zero_length &&
	    ((p->op != KRDMA_OP_WRITE && p->op != KRDMA_OP_WRITE_IMM &&
	      p->op != KRDMA_OP_READ) ||
	     p->violate || p->read_back || p->sges)) {
		NL_SET_ERR_MSG(extack,
			       "zero-length is for write, write_imm and read, without a violation, read-back or sges");
		return -EINVAL;
	}
	/* The peer's queue runs empty only after a count of SENDs. */
	if (p->rnr_hold && (!krdma_op_is_send(p->op) || !p->count ||
			    p->violate || p->sges || p->send_inv)) {
		NL_SET_ERR_MSG(extack,
			       "rnr-hold is for send and send_imm with a count, without a violation, sges or send-invalidate");
		return -EINVAL;
	}
	if (p->zero_behind && (p->op != KRDMA_OP_READ || p->violate ||
			       p->zero_length || p->sges)) {
		NL_SET_ERR_MSG(extack,
			       "zero-read-behind is for read, without a violation, zero-length or sges");
		return -EINVAL;
	}
	if (p->reg_behind && (!krdma_op_is_send(p->op) || p->violate ||
			      p->send_inv)) {
		NL_SET_ERR_MSG(extack,
			       "reg-behind is for send and send_imm, without a violation or send-invalidate");
		return -EINVAL;
	}
	return 0;
}
