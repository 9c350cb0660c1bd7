// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_iscsi: the portals. One per address, shared by every TPG that
 * has a network portal there and held by the connections it accepted;
 * each listens through the transports' listen hooks: TCP's for as long
 * as it lives, the RDMA transport's while one of its network portals has
 * iser=1. Sockets and rdma_cm are the transports' own.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <net/ipv6.h>

#include "conn.h"

static LIST_HEAD(kt_iscsi_portals);
static DEFINE_MUTEX(kt_iscsi_portals_lock);

static bool kt_sockaddr_equal(const struct sockaddr_storage *a,
			      const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET) {
		const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;

		return x->sin_port == y->sin_port &&
		       x->sin_addr.s_addr == y->sin_addr.s_addr;
	}
	if (a->ss_family == AF_INET6) {
		const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;

		return x->sin6_port == y->sin6_port &&
		       ipv6_addr_equal(&x->sin6_addr, &y->sin6_addr);
	}
	return false;
}

struct kt_iscsi_portal *kt_iscsi_portal_get(const struct sockaddr_storage *ss)
{
	struct kt_iscsi_portal *portal;
	void *tcp;

	mutex_lock(&kt_iscsi_portals_lock);
	list_for_each_entry(portal, &kt_iscsi_portals, node) {
		if (kt_sockaddr_equal(&portal->addr, ss)) {
			refcount_inc(&portal->ref);
			goto out;
		}
	}
	portal = kzalloc(sizeof(*portal), GFP_KERNEL);
	if (!portal) {
		portal = ERR_PTR(-ENOMEM);
		goto out;
	}
	portal->addr = *ss;
	refcount_set(&portal->ref, 1);
	/* the hook says why it cannot */
	tcp = kt_iscsi_tcp.listen(portal);
	if (IS_ERR(tcp)) {
		kfree(portal);
		portal = ERR_CAST(tcp);
		goto out;
	}
	portal->tcp = tcp;
	list_add_tail(&portal->node, &kt_iscsi_portals);
out:
	mutex_unlock(&kt_iscsi_portals_lock);
	return portal;
}

void kt_iscsi_portal_put(struct kt_iscsi_portal *portal)
{
	mutex_lock(&kt_iscsi_portals_lock);
	if (!refcount_dec_and_test(&portal->ref)) {
		mutex_unlock(&kt_iscsi_portals_lock);
		return;
	}
	list_del(&portal->node);
	mutex_unlock(&kt_iscsi_portals_lock);

	/* no accept is running or queued once it returns */
	kt_iscsi_tcp.unlisten(portal->tcp);
	kfree(portal);
}

/* ---- RDMA listeners (iSER) ---- */

int kt_iscsi_portal_rdma_get(struct kt_iscsi_portal *portal)
{
	const struct kt_iscsi_transport *t;
	void *listener;
	int ret = 0;

	mutex_lock(&kt_iscsi_portals_lock);
	if (portal->rdma_users) {
		portal->rdma_users++;
		goto out;
	}
	t = kt_iscsi_transport_rdma_get();
	if (!t) {
		ret = -ENODEV;
		goto out;
	}
	listener = t->listen(portal);
	if (IS_ERR(listener)) {
		module_put(t->owner);
		ret = PTR_ERR(listener);
		goto out;
	}
	portal->rdma = listener;
	portal->rdma_xport = t;
	portal->rdma_users = 1;
out:
	mutex_unlock(&kt_iscsi_portals_lock);
	return ret;
}

void kt_iscsi_portal_rdma_put(struct kt_iscsi_portal *portal)
{
	const struct kt_iscsi_transport *t = NULL;
	void *listener = NULL;

	mutex_lock(&kt_iscsi_portals_lock);
	if (!WARN_ON_ONCE(!portal->rdma_users) && !--portal->rdma_users) {
		listener = portal->rdma;
		t = portal->rdma_xport;
		portal->rdma = NULL;
		portal->rdma_xport = NULL;
	}
	mutex_unlock(&kt_iscsi_portals_lock);
	if (!listener)
		return;
	/* the listener pinned the transport's module */
	t->unlisten(listener);
	module_put(t->owner);
}
