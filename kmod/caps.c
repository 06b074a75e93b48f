// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: caps - what a device can do, as krdma uses it, and what a QP's
 * creation gave back, clamped to krdma's own structures.
 *
 * A hardware NIC reports and returns values that rxe and siw never do:
 * mlx5 writes back more send SGEs (26) and more inline bytes (312) than
 * were asked, irdma refuses a QP asking for more than 101 inline bytes,
 * bnxt_re has 6 SGEs and an SQ of 4063 WRs, cxgb4 4 receive SGEs, one
 * SGE a READ and FRWRs of 128 pages. The test-only module parameter
 * caps_profile makes a soft device look like one of those, so that the
 * clamps run on the test bed: its attributes are lowered to the NIC's at
 * device add, and rdma_create_qp() behaves and writes back as the NIC's
 * driver would. The real device never sees more than it reported.
 */
#include "krdma.h"

static char *krdma_caps_profile_name = "none";
module_param_named(caps_profile, krdma_caps_profile_name, charp, 0444);
MODULE_PARM_DESC(caps_profile,
		 "Testing: see devices with a hardware NIC's caps (none, mlx5, irdma, bnxt_re, cxgb4)");

/*
 * What a profile changes; 0 leaves the device's own value. @caps lowers
 * the attributes (never raises them: the device still does the work);
 * @inline_max fails a QP that asks more; @send_sge_back and @inline_back
 * are what rdma_create_qp() writes back.
 */
struct krdma_caps_profile {
	const char		*name;
	struct krdma_caps	caps;
	u32			inline_max;
	u32			send_sge_back;
	u32			inline_back;
};

static const struct krdma_caps_profile krdma_caps_profiles[] = {
	{ .name = "mlx5", .send_sge_back = 26, .inline_back = 312,
	  .caps = { .max_send_sge = 30, .max_recv_sge = 32, .max_sge_rd = 30 } },
	{ .name = "irdma", .inline_max = 101,
	  .caps = { .max_send_sge = 13, .max_recv_sge = 13, .max_sge_rd = 13 } },
	{ .name = "bnxt_re",
	  .caps = { .max_qp_wr = 4063, .max_send_sge = 6, .max_recv_sge = 6,
		    .max_sge_rd = 6 } },
	{ .name = "cxgb4",
	  .caps = { .max_send_sge = 4, .max_recv_sge = 4, .max_sge_rd = 1,
		    .max_fast_reg_page_list_len = 128 } },
};

static const struct krdma_caps_profile *krdma_caps_profile(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(krdma_caps_profiles); i++)
		if (!strcmp(krdma_caps_profile_name, krdma_caps_profiles[i].name))
			return &krdma_caps_profiles[i];
	return NULL;
}

/* @v lowered to @limit, where the profile sets one. */
static void krdma_caps_lower(u32 *v, u32 limit)
{
	if (limit && limit < *v)
		*v = limit;
}

/**
 * krdma_caps_init() - what krdma uses of a new device's attributes
 * @kdev: the device, its ibdev set
 *
 * The device's own, or lower where caps_profile makes it look like a
 * hardware NIC.
 *
 * Return: 0, or -EINVAL for a caps_profile that names no profile.
 */
int krdma_caps_init(struct krdma_device *kdev)
{
	const struct ib_device_attr *a = &kdev->ibdev->attrs;
	const struct krdma_caps_profile *p = krdma_caps_profile();
	struct krdma_caps *c = &kdev->caps;

	if (!p && strcmp(krdma_caps_profile_name, "none")) {
		pr_err("krdma: caps_profile=%s: no such profile\n",
		       krdma_caps_profile_name);
		return -EINVAL;
	}
	c->max_qp_wr = a->max_qp_wr;
	c->max_send_sge = a->max_send_sge;
	c->max_recv_sge = a->max_recv_sge;
	c->max_sge_rd = a->max_sge_rd;
	c->max_qp_rd_atom = a->max_qp_rd_atom;
	c->max_qp_init_rd_atom = a->max_qp_init_rd_atom;
	c->max_fast_reg_page_list_len = a->max_fast_reg_page_list_len;
	c->atomic_cap = a->atomic_cap;
	c->profile = p;
	if (!p)
		return 0;
	krdma_caps_lower(&c->max_qp_wr, p->caps.max_qp_wr);
	krdma_caps_lower(&c->max_send_sge, p->caps.max_send_sge);
	krdma_caps_lower(&c->max_recv_sge, p->caps.max_recv_sge);
	krdma_caps_lower(&c->max_sge_rd, p->caps.max_sge_rd);
	krdma_caps_lower(&c->max_fast_reg_page_list_len,
			 p->caps.max_fast_reg_page_list_len);
	pr_info("krdma: %s: seen with %s's caps (caps_profile)\n",
		dev_name(&kdev->ibdev->dev), p->name);
	return 0;
}

/**
 * krdma_caps_create_qp() - a connection's QP, as the device answers
 * @kdev: the device, whose PD it is in
 * @cm_id: the connection's CM id
 * @attr: what is asked; its cap is set to what was granted
 *
 * rdma_create_qp(), as the profile's NIC would answer it. What it wrote
 * back in @attr->cap is then clamped to what was asked: a device may
 * return more SGEs or inline bytes than asked (mlx5 does), and krdma's SGE
 * arrays hold KRDMA_MAX_SGE, its buffers what it asked to inline. It
 * never returns fewer WRs than asked (it fails instead), so a CQ sized
 * for what was asked holds every completion of what krdma posts.
 *
 * Return: 0 or rdma_create_qp()'s error; -EINVAL for more inline data
 * than the profile's NIC takes.
 */
int krdma_caps_create_qp(struct krdma_device *kdev, struct rdma_cm_id *cm_id,
			 struct ib_qp_init_attr *attr)
{
	const struct krdma_caps_profile *p = kdev->caps.profile;
	struct ib_qp_cap asked = attr->cap;
	int ret;

	if (p && p->inline_max && asked.max_inline_data > p->inline_max)
		return -EINVAL;
	ret = krdma_failable_int(rdma_create_qp(cm_id, kdev->pd, attr));
	if (ret)
		return ret;
	if (p && p->send_sge_back)
		attr->cap.max_send_sge = p->send_sge_back;
	if (p && p->inline_back)
		attr->cap.max_inline_data = p->inline_back;
	attr->cap.max_send_sge = min(attr->cap.max_send_sge, asked.max_send_sge);
	attr->cap.max_recv_sge = min(attr->cap.max_recv_sge, asked.max_recv_sge);
	attr->cap.max_inline_data = min(attr->cap.max_inline_data,
					asked.max_inline_data);
	return 0;
}

/**
 * krdma_caps_create_qp_inline() - a QP, inlining what the device takes
 * @kdev: the device
 * @cm_id: the connection's CM id
 * @attr: what is asked, but its inline data; its cap is set to what was
 *	granted
 *
 * The session's QP, with as much inline data as the device takes: the
 * core has no attribute for it, and a device refuses a QP that asks more
 * (irdma: 101 bytes), so each size is tried down to none.
 *
 * Return: as krdma_caps_create_qp().
 */
int krdma_caps_create_qp_inline(struct krdma_device *kdev,
				struct rdma_cm_id *cm_id,
				struct ib_qp_init_attr *attr)
{
	static const u32 sizes[] = { KRDMA_MAX_INLINE, 128, 64, 0 };
	int i, ret = -EINVAL;

	for (i = 0; i < ARRAY_SIZE(sizes) && ret == -EINVAL; i++) {
		attr->cap.max_inline_data = sizes[i];
		ret = krdma_caps_create_qp(kdev, cm_id, attr);
	}
	return ret;
}
