// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_iscsi: the TCP transport's listener, one per portal (portal.c
 * listens through the transport's listen hook for as long as the portal
 * lives). Accepting runs as work queued by the listening socket's
 * data_ready callback, with no thread per portal.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <net/sock.h>

#include "tcp.h"

struct kt_tcp_listener {
	struct kt_iscsi_portal	*portal;	/* outlives the listener */
	struct socket		*sock;
	struct work_struct	accept_work;
	void			(*saved_data_ready)(struct sock *sk);
	bool			stopping;
};

/*
 * A connection's socket is a clone of the listener's and starts with its
 * callbacks and sk_user_data: data that comes before kt_iscsi_tcp_accept()
 * takes it over (or after its close gives them back) lands here too. Only
 * the listener itself has connections to accept.
 */
static void kt_tcp_listen_ready(struct sock *sk)
{
	struct kt_tcp_listener *l;

	if (READ_ONCE(sk->sk_state) != TCP_LISTEN)
		return;
	read_lock_bh(&sk->sk_callback_lock);
	l = sk->sk_user_data;
	if (l && !l->stopping)
		kt_iscsi_accept_kick(&l->accept_work);
	read_unlock_bh(&sk->sk_callback_lock);
}

static void kt_tcp_accept_work(struct work_struct *work)
{
	struct kt_tcp_listener *l =
		container_of(work, struct kt_tcp_listener, accept_work);
	struct kt_iscsi_conn *conn;
	struct socket *sock;
	int ret;

	while (!READ_ONCE(l->stopping)) {
		ret = kernel_accept(l->sock, &sock, O_NONBLOCK);
		if (ret)
			break;
		conn = kt_iscsi_tcp_accept(l->portal, sock);
		/*
		 * -EBUSY: login_limit.c said why; -ESHUTDOWN: the portal
		 * is going, and unlisten stops this work next
		 */
		if (IS_ERR(conn) && PTR_ERR(conn) != -EBUSY &&
		    PTR_ERR(conn) != -ESHUTDOWN)
			pr_warn_ratelimited("cannot take a connection: %pe\n", conn);
	}
}

static int kt_tcp_listen_sock(struct kt_tcp_listener *l)
{
	/* a copy: kernel_bind() takes no const address */
	struct sockaddr_storage ss = *kt_iscsi_portal_addr(l->portal);
	struct sock *sk;
	int len = ss.ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
					     sizeof(struct sockaddr_in);
	int ret;

	ret = sock_create_kern(&init_net, ss.ss_family, SOCK_STREAM,
			       IPPROTO_TCP, &l->sock);
	if (ret)
		return ret;
	sk = l->sock->sk;
	sock_set_reuseaddr(sk);
	tcp_sock_set_nodelay(sk);
	ret = kernel_bind(l->sock, (struct sockaddr *)&ss, len);
	if (ret)
		goto fail;
	ret = kernel_listen(l->sock, 256);
	if (ret)
		goto fail;

	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = l;
	l->saved_data_ready = sk->sk_data_ready;
	sk->sk_data_ready = kt_tcp_listen_ready;
	write_unlock_bh(&sk->sk_callback_lock);
	return 0;
fail:
	sock_release(l->sock);
	l->sock = NULL;
	return ret;
}

void *kt_tcp_listen(struct kt_iscsi_portal *portal)
{
	struct kt_tcp_listener *l;
	int ret;

	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return ERR_PTR(-ENOMEM);
	l->portal = portal;
	INIT_WORK(&l->accept_work, kt_tcp_accept_work);
	ret = kt_tcp_listen_sock(l);
	if (ret) {
		pr_warn_ratelimited("cannot listen on %pISpc: %pe\n",
				    kt_iscsi_portal_addr(portal), ERR_PTR(ret));
		kfree(l);
		return ERR_PTR(ret);
	}
	return l;
}

/*
 * Once the callback is given back under sk_callback_lock, with stopping
 * set, nothing queues the accept work again; once it is cancelled, no
 * connection is accepted on the portal.
 */
void kt_tcp_unlisten(void *listener)
{
	struct kt_tcp_listener *l = listener;
	struct sock *sk = l->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	WRITE_ONCE(l->stopping, true);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = l->saved_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
	cancel_work_sync(&l->accept_work);
	sock_release(l->sock);
	kfree(l);
}
