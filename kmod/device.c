// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * krdma: RDMA devices, tracked with an ib_client as they come and go.
 *
 * Each device gets one protection domain shared by every session on it.
 * The krdma_devices entry holds the first reference; sessions take more and the
 * device is freed when the last one is dropped, after ib_client.remove
 * has closed every session that used it.
 *
 * A network namespace sees the devices rdma_dev_access_netns() gives it,
 * as in "rdma dev": all of them in the shared mode, its own in the
 * exclusive one ("rdma system set netns exclusive").
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <rdma/ib_verbs.h>
#include <uapi/linux/krdma.h>

#include "krdma.h"
#include "mem.h"

/* By ib_device index, so that a dump lists them as "rdma dev" does. */
static DEFINE_XARRAY(krdma_devices);
static DEFINE_MUTEX(krdma_devices_lock);

static struct ib_client krdma_ib_client;
/* The layer above (sessions), set at init: ends the users of a device. */
static krdma_device_remove_fn krdma_device_close_users;

static void krdma_device_release(struct kref *ref)
{
	struct krdma_device *kdev = container_of(ref, struct krdma_device, ref);

	if (kdev->fence_mr)
		ib_dereg_mr(kdev->fence_mr);
	ib_dealloc_pd(kdev->pd);
	kfree(kdev);
}

/**
 * krdma_device_put() - drops a reference to a device
 * @kdev: the device
 *
 * The last one frees its PD (and rxe's fence MR).
 *
 * Context: process; it may sleep.
 */
void krdma_device_put(struct krdma_device *kdev)
{
	kref_put(&kdev->ref, krdma_device_release);
}

/**
 * krdma_device_get() - a reference to the krdma_device of @ibdev, into @user
 * @ibdev: the RDMA device
 * @user: where its user keeps it (a session's kdev)
 *
 * *@user is set under the lock that device removal takes before it looks
 * for the device's users (krdma_remove_one()): a user that got the
 * device is seen by the removal, and one that comes after it gets NULL.
 * Set apart, a session that had its reference but not yet its kdev was
 * missed, and kept a PD of a device that was gone.
 *
 * Return: the device, or NULL while it is going away.
 */
struct krdma_device *krdma_device_get(struct ib_device *ibdev,
				      struct krdma_device **user)
{
	struct krdma_device *kdev;

	mutex_lock(&krdma_devices_lock);
	kdev = ib_get_client_data(ibdev, &krdma_ib_client);
	if (kdev)
		kref_get(&kdev->ref);
	WRITE_ONCE(*user, kdev);
	mutex_unlock(&krdma_devices_lock);
	return kdev;
}

/*
 * The largest piece of a buffer: what one FRWR MR maps, and what one DMA
 * mapping may cover - swiotlb maps at most 256 KiB at a time, and an
 * IOMMU or a bus may limit it too. Virtual-DMA devices (rxe, siw) have no
 * mapping limit; debugfs sim_dma_max_mapping stands in for one in tests.
 */
static u32 krdma_chunk_size(struct krdma_device *kdev)
{
	struct ib_device *ibdev = kdev->ibdev;
	/* One page of slack: a region need not start on a page boundary. */
	u64 size = min_t(u64, KRDMA_CHUNK_MAX,
			 (u64)(max_t(u32, kdev->caps.max_fast_reg_page_list_len,
				     2) - 1) * PAGE_SIZE);
	size_t dma_max = krdma_sim_dma_max_mapping();

	if (!ib_uses_virt_dma(ibdev))
		dma_max = min(dma_max, dma_max_mapping_size(ibdev->dma_device));
	if (dma_max < size) {
		size = max_t(u64, PAGE_SIZE, round_down(dma_max, PAGE_SIZE));
		pr_info("krdma: %s: DMA mappings of at most %zu bytes: buffers mapped in %llu KiB chunks\n",
			dev_name(&ibdev->dev), dma_max, size >> 10);
	}
	return size;
}

static int krdma_add_one(struct ib_device *ibdev)
{
	struct krdma_device *kdev;
	int ret;

	/*
	 * Every region a peer accesses is an FRWR (IB_WR_REG_MR): a device
	 * without the memory management extensions cannot serve a test.
	 */
	if (!(ibdev->attrs.device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS)) {
		pr_warn("krdma: %s not used: no fast registration (IB_DEVICE_MEM_MGT_EXTENSIONS)\n",
			dev_name(&ibdev->dev));
		return -EOPNOTSUPP;
	}
	kdev = krdma_failable(kzalloc(sizeof(*kdev), GFP_KERNEL));
	if (!kdev)
		return -ENOMEM;
	kref_init(&kdev->ref);
	kdev->ibdev = ibdev;
	kdev->iwarp = rdma_protocol_iwarp(ibdev, rdma_start_port(ibdev));
	ret = krdma_caps_init(kdev);
	if (ret) {
		kfree(kdev);
		return ret;
	}
	kdev->chunk_size = krdma_chunk_size(kdev);
	kdev->pd = krdma_failable_ptr(ib_alloc_pd(ibdev, 0));
	if (IS_ERR(kdev->pd)) {
		ret = PTR_ERR(kdev->pd);
		kfree(kdev);
		return ret;
	}
	if (ibdev->ops.driver_id == RDMA_DRIVER_RXE) {
		struct ib_mr *mr;

		mr = krdma_failable_ptr(ib_alloc_mr(kdev->pd,
						    IB_MR_TYPE_MEM_REG, 1));
		if (IS_ERR(mr)) {
			krdma_device_put(kdev);
			return PTR_ERR(mr);
		}
		kdev->fence_mr = mr;
	}

	mutex_lock(&krdma_devices_lock);
	ret = xa_insert(&krdma_devices, ibdev->index, kdev, GFP_KERNEL);
	if (!ret)
		ib_set_client_data(ibdev, &krdma_ib_client, kdev);
	mutex_unlock(&krdma_devices_lock);
	if (ret) {
		krdma_device_put(kdev);
		return ret;
	}
	pr_debug("krdma: device %s added\n", dev_name(&ibdev->dev));
	return 0;
}

static void krdma_remove_one(struct ib_device *ibdev, void *client_data)
{
	struct krdma_device *kdev = client_data;

	/* No new user from here (krdma_device_get()), ... */
	mutex_lock(&krdma_devices_lock);
	xa_erase(&krdma_devices, ibdev->index);
	ib_set_client_data(ibdev, &krdma_ib_client, NULL);
	mutex_unlock(&krdma_devices_lock);

	/* ... and the sessions on it end before it goes; they hold references. */
	krdma_device_close_users(kdev);
	krdma_device_put(kdev);
	pr_debug("krdma: device %s removed\n", dev_name(&ibdev->dev));
}

static struct ib_client krdma_ib_client = {
	.name	= "krdma",
	.add	= krdma_add_one,
	.remove	= krdma_remove_one,
};

static int krdma_port_fill(struct sk_buff *skb, struct ib_device *ibdev,
			   u32 port)
{
	struct ib_port_attr attr;
	struct nlattr *nest;
	int ret;

	ret = ib_query_port(ibdev, port, &attr);
	if (ret)
		return ret;

	nest = nla_nest_start(skb, KRDMA_A_DEV_PORT);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, KRDMA_PORT_A_INDEX, port) ||
	    nla_put_u8(skb, KRDMA_PORT_A_STATE, attr.state) ||
	    nla_put_u32(skb, KRDMA_PORT_A_ACTIVE_MTU,
			ib_mtu_enum_to_int(attr.active_mtu))) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/**
 * krdma_device_fill() - a device, as dev-get shows it
 * @skb: the message
 * @kdev: the device
 *
 * Its attributes as krdma uses them (under caps_profile, the profile's)
 * and each port's state.
 *
 * Context: process; it may sleep (ib_query_port()).
 * Return: 0, -EMSGSIZE, or ib_query_port()'s error.
 */
int krdma_device_fill(struct sk_buff *skb, struct krdma_device *kdev)
{
	/* What krdma uses: under caps_profile, the profile's. */
	const struct krdma_caps *attrs = &kdev->caps;
	struct ib_device *ibdev = kdev->ibdev;
	u32 port;
	int ret;

	if (nla_put_u32(skb, KRDMA_A_DEV_INDEX, ibdev->index) ||
	    nla_put_string(skb, KRDMA_A_DEV_NAME, dev_name(&ibdev->dev)) ||
	    nla_put_u64_64bit(skb, KRDMA_A_DEV_NODE_GUID,
			      be64_to_cpu(ibdev->node_guid), KRDMA_A_PAD) ||
	    nla_put_u32(skb, KRDMA_A_DEV_MAX_QP_RD_ATOM, attrs->max_qp_rd_atom) ||
	    nla_put_u32(skb, KRDMA_A_DEV_MAX_QP_INIT_RD_ATOM,
			attrs->max_qp_init_rd_atom) ||
	    nla_put_u32(skb, KRDMA_A_DEV_MAX_FAST_REG_PAGES,
			attrs->max_fast_reg_page_list_len) ||
	    nla_put_u32(skb, KRDMA_A_DEV_MAX_SGE, attrs->max_send_sge) ||
	    nla_put_u8(skb, KRDMA_A_DEV_ATOMIC_CAP, attrs->atomic_cap))
		return -EMSGSIZE;

	rdma_for_each_port(ibdev, port) {
		ret = krdma_port_fill(skb, ibdev, port);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * krdma_device_fill_lookup() - one device, by name, into a message
 * @msg: the message
 * @net: the requester's namespace
 * @name: the device's name attribute
 *
 * Puts the device named @name into @msg, if @net may see it.
 *
 * Context: process; takes krdma_devices_lock.
 * Return: 0, -ENODEV, or krdma_device_fill()'s error.
 */
int krdma_device_fill_lookup(struct sk_buff *msg, struct net *net,
			     const struct nlattr *name)
{
	struct krdma_device *kdev;
	unsigned long index;
	int ret = -ENODEV;

	mutex_lock(&krdma_devices_lock);
	xa_for_each(&krdma_devices, index, kdev) {
		if (rdma_dev_access_netns(kdev->ibdev, net) &&
		    !nla_strcmp(name, dev_name(&kdev->ibdev->dev))) {
			ret = krdma_device_fill(msg, kdev);
			break;
		}
	}
	mutex_unlock(&krdma_devices_lock);
	return ret;
}

static bool krdma_device_visible(void *obj, struct net *net)
{
	struct krdma_device *kdev = obj;

	return rdma_dev_access_netns(kdev->ibdev, net);
}

static int krdma_device_table_fill(struct sk_buff *skb, void *obj)
{
	struct krdma_device *kdev = obj;

	return krdma_device_fill(skb, kdev);
}

const struct krdma_nl_table krdma_device_table = {
	.xa		= &krdma_devices,
	.lock		= &krdma_devices_lock,
	.visible	= krdma_device_visible,
	.fill		= krdma_device_table_fill,
};

/**
 * krdma_device_init() - tracks RDMA devices from now on
 * @close_users: ends the users of a device that goes
 *
 * Every device present is added at once.
 *
 * Return: 0 or ib_register_client()'s error.
 */
int krdma_device_init(krdma_device_remove_fn close_users)
{
	krdma_device_close_users = close_users;
	return ib_register_client(&krdma_ib_client);
}

/**
 * krdma_device_exit() - stops tracking RDMA devices
 *
 * Each one is removed as if it went: its users end first.
 */
void krdma_device_exit(void)
{
	ib_unregister_client(&krdma_ib_client);
}
