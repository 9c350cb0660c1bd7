// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_iscsi: target/iscsi/IQN/tpgt_N/np/ADDR:PORT, the TPG's network
 * portals. The name is "IPv4:port" or "[IPv6]:port" (LIO's forms, IPv6
 * link-local with "%scope" too); portal.c shares one portal, and its
 * listeners, between the TPGs with a portal on the same address.
 */
#define pr_fmt(fmt) "ktarget_iscsi: " fmt

#include <linux/configfs.h>
#include <linux/ctype.h>
#include <linux/inet.h>
#include <linux/kernel.h>
#include <linux/kmod.h>
#include <linux/lockdep.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/ipv6.h>

#include "iscsi.h"

static int kt_parse_port(const char *s, __be16 *port)
{
	u16 n;

	if (!isdigit(*s) || kstrtou16(s, 10, &n) || !n)
		return -EINVAL;
	*port = htons(n);
	return 0;
}

/* "IPv6" or "IPv6%scope" of @len bytes at @s (LIO: inet_pton_with_scope) */
static int kt_parse_ipv6(const char *s, size_t len, struct sockaddr_in6 *sin6)
{
	char scope[IFNAMSIZ];
	struct net_device *dev;
	const char *end;
	size_t slen;

	if (!in6_pton(s, len, sin6->sin6_addr.s6_addr, '%', &end))
		return -EINVAL;
	if (end == s + len)
		return 0;
	slen = s + len - end - 1;
	if (*end != '%' || !slen || slen >= sizeof(scope) ||
	    !(ipv6_addr_type(&sin6->sin6_addr) & IPV6_ADDR_LINKLOCAL))
		return -EINVAL;
	memcpy(scope, end + 1, slen);
	scope[slen] = '\0';
	dev = dev_get_by_name(&init_net, scope);
	if (dev) {
		sin6->sin6_scope_id = dev->ifindex;
		dev_put(dev);
		return 0;
	}
	return kstrtou32(scope, 10, &sin6->sin6_scope_id);
}

int kt_iscsi_parse_portal(const char *name, struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	const char *colon = strrchr(name, ':');
	const char *end;

	memset(ss, 0, sizeof(*ss));
	if (!colon || colon == name)
		return -EINVAL;
	if (name[0] == '[') {
		if (colon[-1] != ']' || colon - 1 == name + 1 ||
		    kt_parse_ipv6(name + 1, colon - name - 2, sin6) ||
		    kt_parse_port(colon + 1, &sin6->sin6_port))
			return -EINVAL;
		sin6->sin6_family = AF_INET6;
		return 0;
	}
	if (!in4_pton(name, colon - name, (u8 *)&sin->sin_addr.s_addr, -1,
		      &end) || end != colon ||
	    kt_parse_port(colon + 1, &sin->sin_port))
		return -EINVAL;
	sin->sin_family = AF_INET;
	return 0;
}

static bool kt_same_addr(const struct sockaddr_storage *a,
			 const struct sockaddr_storage *b)
{
	const struct sockaddr_in6 *a6 = (const void *)a, *b6 = (const void *)b;
	const struct sockaddr_in *a4 = (const void *)a, *b4 = (const void *)b;

	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return a4->sin_port == b4->sin_port &&
		       a4->sin_addr.s_addr == b4->sin_addr.s_addr;
	return a6->sin6_port == b6->sin6_port &&
	       a6->sin6_scope_id == b6->sin6_scope_id &&
	       ipv6_addr_equal(&a6->sin6_addr, &b6->sin6_addr);
}

static struct kt_iscsi_tpg_np *to_np(struct config_item *item)
{
	return container_of(to_config_group(item), struct kt_iscsi_tpg_np,
			    group);
}

static ssize_t kt_np_iser_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%d\n", READ_ONCE(to_np(item)->iser));
}

/* iser=1 listens through rdma_cm on the same address, as LIO's does */
static ssize_t kt_np_iser_store(struct config_item *item, const char *page,
				size_t count)
{
	struct kt_iscsi_tpg_np *np = to_np(item);
	char where[KT_ISCSI_WHERE_LEN];
	u32 on;
	int ret;

	ret = kt_iscsi_cfs_u32(item, "iser", page, count, 0, 1, 0, "0 or 1",
			       &on);
	if (ret)
		return ret;
	mutex_lock(&np->iser_lock);
	if (on == np->iser)
		goto out;
	if (on) {
		request_module("ktarget_isert");
		ret = kt_iscsi_portal_rdma_get(np->portal);
		if (ret) {
			pr_warn_ratelimited("%s/iser: cannot listen for iSER on %pISpc: %pe%s\n",
					    kt_iscsi_cfs_path(item, where, sizeof(where)),
					    &np->addr, ERR_PTR(ret),
					    ret == -ENODEV ? " (is ktarget_isert there?)" : "");
			mutex_unlock(&np->iser_lock);
			return ret;
		}
	} else {
		kt_iscsi_portal_rdma_put(np->portal);
	}
	mutex_lock(&kt_iscsi_config_lock);
	np->iser = on;
	mutex_unlock(&kt_iscsi_config_lock);
out:
	mutex_unlock(&np->iser_lock);
	return count;
}

/* Chelsio offload: LIO's attribute; rtslib writes 0 before rmdir */
static ssize_t kt_np_cxgbit_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "0\n");
}

static ssize_t kt_np_cxgbit_store(struct config_item *item, const char *page,
				  size_t count)
{
	u32 on;
	int ret;

	ret = kt_iscsi_cfs_u32(item, "cxgbit", page, count, 0, 0, 0,
			       "0 (no cxgbit offload in ktarget)", &on);
	return ret ? ret : count;
}

CONFIGFS_ATTR(kt_np_, iser);
CONFIGFS_ATTR(kt_np_, cxgbit);

static struct configfs_attribute *kt_np_attrs[] = {
	&kt_np_attr_iser,
	&kt_np_attr_cxgbit,
	NULL,
};

static void kt_np_release(struct config_item *item)
{
	kfree(to_np(item));
}

static struct configfs_item_operations kt_np_item_ops = {
	.release	= kt_np_release,
};

static const struct config_item_type kt_np_type = {
	.ct_item_ops	= &kt_np_item_ops,
	.ct_attrs	= kt_np_attrs,
	.ct_owner	= THIS_MODULE,
};

static bool kt_tpg_has_np(struct kt_iscsi_tpg *tpg,
			  const struct sockaddr_storage *ss)
{
	struct kt_iscsi_tpg_np *np;

	lockdep_assert_held(&kt_iscsi_config_lock);
	list_for_each_entry(np, &tpg->nps, node)
		if (kt_same_addr(&np->addr, ss))
			return true;
	return false;
}

/* mkdir and rmdir in one np/ are serialized by the VFS */
struct config_group *kt_iscsi_make_np(struct kt_tpg *se_tpg, const char *name)
{
	struct kt_iscsi_tpg *tpg = to_iscsi_tpg(se_tpg);
	struct kt_iscsi_portal *portal;
	struct kt_iscsi_tpg_np *np;
	bool dup;

	np = kzalloc(sizeof(*np), GFP_KERNEL);
	if (!np)
		return ERR_PTR(-ENOMEM);
	if (kt_iscsi_parse_portal(name, &np->addr)) {
		pr_warn_ratelimited("%s/tpgt_%u/np/%*pE: want IPv4:port or [IPv6]:port, port 1..65535\n",
				    se_tpg->wwn->name, se_tpg->tag,
				    (int)strlen(name), name);
		kfree(np);
		return ERR_PTR(-EINVAL);
	}
	mutex_lock(&kt_iscsi_config_lock);
	dup = kt_tpg_has_np(tpg, &np->addr);
	mutex_unlock(&kt_iscsi_config_lock);
	if (dup) {
		pr_warn_ratelimited("%s/tpgt_%u/np/%s: the TPG has a portal on %pISpc already\n",
				    se_tpg->wwn->name, se_tpg->tag, name,
				    &np->addr);
		kfree(np);
		return ERR_PTR(-EEXIST);
	}

	portal = kt_iscsi_portal_get(&np->addr);
	if (IS_ERR(portal)) {
		pr_warn_ratelimited("%s/tpgt_%u/np/%s: cannot listen on %pISpc: %pe\n",
				    se_tpg->wwn->name, se_tpg->tag, name,
				    &np->addr, portal);
		kfree(np);
		return ERR_CAST(portal);
	}
	np->portal = portal;
	np->tpg = tpg;
	mutex_init(&np->iser_lock);
	config_group_init_type_name(&np->group, name, &kt_np_type);

	mutex_lock(&kt_iscsi_config_lock);
	list_add_tail(&np->node, &tpg->nps);
	mutex_unlock(&kt_iscsi_config_lock);
	return &np->group;
}

void kt_iscsi_drop_np(struct kt_tpg *se_tpg, struct config_group *group)
{
	struct kt_iscsi_tpg_np *np = to_np(&group->cg_item);

	mutex_lock(&kt_iscsi_config_lock);
	list_del_init(&np->node);
	mutex_unlock(&kt_iscsi_config_lock);
	if (np->iser)
		kt_iscsi_portal_rdma_put(np->portal);
	kt_iscsi_portal_put(np->portal);
	np->portal = NULL;
	config_item_put(&group->cg_item);
}
