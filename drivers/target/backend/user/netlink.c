// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_user: the generic netlink family TCM-USER (version 2, multicast
 * group "config"), with LIO's commands and attributes. Devices are
 * announced (ADDED_DEVICE, REMOVED_DEVICE, RECONFIG_DEVICE); once a daemon
 * has said it answers (SET_FEATURES, TCMU_ATTR_SUPP_KERN_CMD_REPLY) and the
 * device allows it (nl_reply_supported), the kernel waits for the _DONE
 * answer, at most KT_USER_NL_WAIT seconds where LIO waits for ever, and
 * only while a listener received the event. One such wait per device at a
 * time. The module parameters block_netlink and reset_netlink (main.c)
 * refuse new events and end the waits, as LIO's do.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/mutex.h>
#include <net/genetlink.h>

#include "user.h"

#define KT_USER_NL_WAIT		30	/* seconds */

enum { KT_USER_MCGRP_CONFIG };

static const struct genl_multicast_group kt_user_mcgrps[] = {
	[KT_USER_MCGRP_CONFIG] = { .name = "config", },
};

static const struct nla_policy kt_user_nl_policy[TCMU_ATTR_MAX + 1] = {
	[TCMU_ATTR_DEVICE]	= { .type = NLA_STRING },
	[TCMU_ATTR_MINOR]	= { .type = NLA_U32 },
	[TCMU_ATTR_CMD_STATUS]	= { .type = NLA_S32 },
	[TCMU_ATTR_DEVICE_ID]	= { .type = NLA_U32 },
	[TCMU_ATTR_SUPP_KERN_CMD_REPLY] = { .type = NLA_U8 },
};

/* an event a device waits to be answered */
struct kt_user_nl_wait {
	struct list_head	node;
	u32			dev_index;
	int			cmd;
	int			status;
	struct completion	done;
};

static DEFINE_MUTEX(kt_user_nl_lock);		/* all below */
static LIST_HEAD(kt_user_nl_waits);
static bool kt_user_nl_replies;			/* SET_FEATURES said so */
bool kt_user_nl_blocked;			/* block_netlink */

bool kt_user_nl_reply_supported(void)
{
	return READ_ONCE(kt_user_nl_replies);
}

/* reset_netlink: every wait ends, -EINTR */
void kt_user_nl_reset(void)
{
	struct kt_user_nl_wait *w;

	mutex_lock(&kt_user_nl_lock);
	list_for_each_entry(w, &kt_user_nl_waits, node) {
		w->status = -EINTR;
		complete(&w->done);
	}
	mutex_unlock(&kt_user_nl_lock);
}

static int kt_user_nl_done(struct genl_info *info, int cmd)
{
	struct kt_user_nl_wait *w;
	u32 index;
	int ret = -ENODEV;

	if (!info->attrs[TCMU_ATTR_CMD_STATUS] ||
	    !info->attrs[TCMU_ATTR_DEVICE_ID]) {
		pr_warn_ratelimited("netlink: a _DONE without status or device id\n");
		return -EINVAL;
	}
	index = nla_get_u32(info->attrs[TCMU_ATTR_DEVICE_ID]);
	mutex_lock(&kt_user_nl_lock);
	list_for_each_entry(w, &kt_user_nl_waits, node) {
		if (w->dev_index != index)
			continue;
		if (w->cmd != cmd) {
			pr_warn_ratelimited("netlink: device %u answered command %d, it waits for %d\n",
					    index, cmd, w->cmd);
			ret = -EINVAL;
			break;
		}
		w->status = nla_get_s32(info->attrs[TCMU_ATTR_CMD_STATUS]);
		list_del_init(&w->node);
		complete(&w->done);
		ret = 0;
		break;
	}
	mutex_unlock(&kt_user_nl_lock);
	if (ret == -ENODEV)
		pr_warn_ratelimited("netlink: an answer for device %u, which waits for none\n",
				    index);
	return ret;
}

static int kt_user_nl_add_done(struct sk_buff *skb, struct genl_info *info)
{
	return kt_user_nl_done(info, TCMU_CMD_ADDED_DEVICE);
}

static int kt_user_nl_rm_done(struct sk_buff *skb, struct genl_info *info)
{
	return kt_user_nl_done(info, TCMU_CMD_REMOVED_DEVICE);
}

static int kt_user_nl_reconfig_done(struct sk_buff *skb, struct genl_info *info)
{
	return kt_user_nl_done(info, TCMU_CMD_RECONFIG_DEVICE);
}

static int kt_user_nl_set_features(struct sk_buff *skb, struct genl_info *info)
{
	if (info->attrs[TCMU_ATTR_SUPP_KERN_CMD_REPLY])
		WRITE_ONCE(kt_user_nl_replies,
			   !!nla_get_u8(info->attrs[TCMU_ATTR_SUPP_KERN_CMD_REPLY]));
	return 0;
}

static const struct genl_small_ops kt_user_nl_ops[] = {
	{
		.cmd	= TCMU_CMD_SET_FEATURES,
		.validate = GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
		.flags	= GENL_ADMIN_PERM,
		.doit	= kt_user_nl_set_features,
	},
	{
		.cmd	= TCMU_CMD_ADDED_DEVICE_DONE,
		.validate = GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
		.flags	= GENL_ADMIN_PERM,
		.doit	= kt_user_nl_add_done,
	},
	{
		.cmd	= TCMU_CMD_REMOVED_DEVICE_DONE,
		.validate = GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
		.flags	= GENL_ADMIN_PERM,
		.doit	= kt_user_nl_rm_done,
	},
	{
		.cmd	= TCMU_CMD_RECONFIG_DEVICE_DONE,
		.validate = GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
		.flags	= GENL_ADMIN_PERM,
		.doit	= kt_user_nl_reconfig_done,
	},
};

static struct genl_family kt_user_genl = {
	.module		= THIS_MODULE,
	.name		= "TCM-USER",
	.version	= 2,
	.maxattr	= TCMU_ATTR_MAX,
	.policy		= kt_user_nl_policy,
	.mcgrps		= kt_user_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(kt_user_mcgrps),
	.netnsok	= true,
	.small_ops	= kt_user_nl_ops,
	.n_small_ops	= ARRAY_SIZE(kt_user_nl_ops),
	.resv_start_op	= TCMU_CMD_SET_FEATURES + 1,
};

/*
 * Send @cmd about @udev, with @size for a resize, and wait for its answer
 * when the daemon gives them. Returns the daemon's status, or -errno.
 */
static int kt_user_nl_send(struct kt_user_dev *udev, int cmd, u64 size)
{
	struct kt_user_nl_wait w = { .cmd = cmd, .dev_index = udev->dev.index };
	bool wait = kt_user_nl_reply_supported() && udev->nl_reply_supported > 0;
	struct sk_buff *skb;
	void *hdr;
	int ret;

	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!skb)
		return -ENOMEM;
	hdr = genlmsg_put(skb, 0, 0, &kt_user_genl, 0, cmd);
	if (!hdr ||
	    nla_put_string(skb, TCMU_ATTR_DEVICE, udev->uio.name) ||
	    nla_put_u32(skb, TCMU_ATTR_MINOR, udev->uio.uio_dev->minor) ||
	    nla_put_u32(skb, TCMU_ATTR_DEVICE_ID, udev->dev.index) ||
	    (cmd == TCMU_CMD_RECONFIG_DEVICE &&
	     nla_put_u64_64bit(skb, TCMU_ATTR_DEV_SIZE, size, TCMU_ATTR_PAD))) {
		nlmsg_free(skb);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);

	init_completion(&w.done);
	INIT_LIST_HEAD(&w.node);
	mutex_lock(&kt_user_nl_lock);
	if (kt_user_nl_blocked) {
		mutex_unlock(&kt_user_nl_lock);
		nlmsg_free(skb);
		pr_warn_ratelimited("%s: netlink is blocked (block_netlink): command %d not sent\n",
				    kt_user_name(udev), cmd);
		return -EAGAIN;
	}
	if (wait)
		list_add_tail(&w.node, &kt_user_nl_waits);
	mutex_unlock(&kt_user_nl_lock);

	ret = genlmsg_multicast_allns(&kt_user_genl, skb, 0,
				      KT_USER_MCGRP_CONFIG);
	/* nobody listens: a daemon started later finds the UIO device */
	if (ret == -ESRCH && cmd != TCMU_CMD_RECONFIG_DEVICE)
		ret = 0;
	if (!ret && wait &&
	    !wait_for_completion_timeout(&w.done, KT_USER_NL_WAIT * HZ)) {
		pr_warn_ratelimited("%s: the daemon did not answer netlink command %d within %d s\n",
				    kt_user_name(udev), cmd, KT_USER_NL_WAIT);
		ret = cmd == TCMU_CMD_RECONFIG_DEVICE ? -ETIMEDOUT : 0;
	} else if (!ret && wait) {
		ret = w.status;
	}
	mutex_lock(&kt_user_nl_lock);
	list_del_init(&w.node);
	mutex_unlock(&kt_user_nl_lock);
	return ret;
}

int kt_user_nl_added(struct kt_user_dev *udev)
{
	return kt_user_nl_send(udev, TCMU_CMD_ADDED_DEVICE, 0);
}

int kt_user_nl_removed(struct kt_user_dev *udev)
{
	return kt_user_nl_send(udev, TCMU_CMD_REMOVED_DEVICE, 0);
}

int kt_user_nl_reconfig_size(struct kt_user_dev *udev, u64 size)
{
	return kt_user_nl_send(udev, TCMU_CMD_RECONFIG_DEVICE, size);
}

int kt_user_nl_init(void)
{
	int ret = genl_register_family(&kt_user_genl);

	if (ret == -EEXIST)
		pr_err("the generic netlink family TCM-USER is taken: LIO's target_core_user is loaded; unload it to use ktarget_user\n");
	return ret;
}

void kt_user_nl_exit(void)
{
	genl_unregister_family(&kt_user_genl);
}
