// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_iscsi: listening sockets. One per address, shared by every TPG
 * that has a network portal there; accepting runs as work on the listening
 * socket's data_ready callback, with no thread per portal.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "conn.h"
#include "tcp/tcp.h"

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

/*
 * A connection's socket is a clone of the listener's and starts with its
 * callbacks and sk_user_data: data that comes before kt_iscsi_tcp_accept()
 * takes it over (or after its close gives them back) lands here too. Only
 * the listener itself has connections to accept.
 */
static void kt_iscsi_listen_ready(struct sock *sk)
{
	struct kt_iscsi_portal *portal;

	if (READ_ONCE(sk->sk_state) != TCP_LISTEN)
		return;
	read_lock_bh(&sk->sk_callback_lock);
	portal = sk->sk_user_data;
	if (portal && !portal->stopping)
		queue_work(kt_iscsi_wq, &portal->accept_work);
	read_unlock_bh(&sk->sk_callback_lock);
}

static void kt_iscsi_accept_work(struct work_struct *work)
{
	struct kt_iscsi_portal *portal =
		container_of(work, struct kt_iscsi_portal, accept_work);
	struct kt_iscsi_conn *conn;
	struct socket *sock;
	int ret;

	while (!READ_ONCE(portal->stopping)) {
		ret = kernel_accept(portal->sock, &sock, O_NONBLOCK);
		if (ret)
			break;
		conn = kt_iscsi_tcp_accept(portal, sock);
		/* -EBUSY: login_limit.c said why */
		if (IS_ERR(conn) && PTR_ERR(conn) != -EBUSY)
			pr_warn_ratelimited("cannot take a connection: %pe\n", conn);
	}
}

static int kt_iscsi_portal_listen(struct kt_iscsi_portal *portal)
{
	struct sockaddr_storage *ss = &portal->addr;
	struct sock *sk;
	int len = ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
					      sizeof(struct sockaddr_in);
	int ret;

	ret = sock_create_kern(&init_net, ss->ss_family, SOCK_STREAM,
			       IPPROTO_TCP, &portal->sock);
	if (ret)
		return ret;
	sk = portal->sock->sk;
	sock_set_reuseaddr(sk);
	tcp_sock_set_nodelay(sk);
	ret = kernel_bind(portal->sock, (struct sockaddr *)ss, len);
	if (ret)
		goto fail;
	ret = kernel_listen(portal->sock, 256);
	if (ret)
		goto fail;

	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = portal;
	portal->saved_data_ready = sk->sk_data_ready;
	sk->sk_data_ready = kt_iscsi_listen_ready;
	write_unlock_bh(&sk->sk_callback_lock);
	return 0;
fail:
	sock_release(portal->sock);
	portal->sock = NULL;
	return ret;
}

struct kt_iscsi_portal *kt_iscsi_portal_get(const struct sockaddr_storage *ss)
{
	struct kt_iscsi_portal *portal;
	int ret;

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
	INIT_WORK(&portal->accept_work, kt_iscsi_accept_work);
	ret = kt_iscsi_portal_listen(portal);
	if (ret) {
		pr_warn_ratelimited("cannot listen on %pISpc: %pe\n", ss, ERR_PTR(ret));
		kfree(portal);
		portal = ERR_PTR(ret);
		goto out;
	}
	list_add_tail(&portal->node, &kt_iscsi_portals);
out:
	mutex_unlock(&kt_iscsi_portals_lock);
	return portal;
}

void kt_iscsi_portal_put(struct kt_iscsi_portal *portal)
{
	struct sock *sk;

	mutex_lock(&kt_iscsi_portals_lock);
	if (!refcount_dec_and_test(&portal->ref)) {
		mutex_unlock(&kt_iscsi_portals_lock);
		return;
	}
	list_del(&portal->node);
	mutex_unlock(&kt_iscsi_portals_lock);

	sk = portal->sock->sk;
	write_lock_bh(&sk->sk_callback_lock);
	WRITE_ONCE(portal->stopping, true);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = portal->saved_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
	cancel_work_sync(&portal->accept_work);
	sock_release(portal->sock);
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
