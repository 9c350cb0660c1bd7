// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_srpt: the rdma_cm side. One listener, on the IPv6 wildcard
 * address, dual stack (IPv4 too, as LIO's ib_srpt; IPv4 alone in a kernel
 * without IPv6), and the port rdma_cm_port (the module parameter, or
 * target/srpt/discovery_auth/rdma_cm_port as LIO has it; 0: none), takes
 * every device's connect requests, including devices added later; each
 * request is a login (conn.c). Once accepted, a connection's events are
 * its channel's. Discovery through IB CM and MADs (the device management
 * agent, srp_daemon's ibsrpdm) is not done: initiators name the target
 * with add_target's dest=.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/module.h>

#include "srpt.h"

#define KT_SRPT_BACKLOG		128

static DEFINE_MUTEX(kt_srpt_listen_lock);	/* the listener and its port */
static struct rdma_cm_id *kt_srpt_listen_id;
static u16 kt_srpt_listen_on;

static int kt_srpt_listen_handler(struct rdma_cm_id *cm_id,
				  struct rdma_cm_event *ev)
{
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return kt_srpt_login(cm_id, ev);
	return 0;
}

/*
 * Listen on @port instead of where the listener listened (0: nowhere).
 * Destroying the old cm_id waits for a login running in its handler.
 */
/* A listening cm_id on @addr, or an ERR_PTR */
static struct rdma_cm_id *kt_srpt_listen_on_addr(struct sockaddr *addr)
{
	struct rdma_cm_id *id;
	int ret;

	id = rdma_create_id(&init_net, kt_srpt_listen_handler, NULL,
			    RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id))
		return id;
	/* [::] takes IPv4 connect requests too */
	ret = addr->sa_family == AF_INET6 ? rdma_set_afonly(id, 0) : 0;
	if (!ret)
		ret = rdma_bind_addr(id, addr);
	if (!ret)
		ret = rdma_listen(id, KT_SRPT_BACKLOG);
	if (ret) {
		rdma_destroy_id(id);
		return ERR_PTR(ret);
	}
	return id;
}

int kt_srpt_listen(u16 port)
{
	struct sockaddr_in6 sin6 = {
		.sin6_family = AF_INET6,
		.sin6_addr = IN6ADDR_ANY_INIT,
		.sin6_port = htons(port),
	};
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_ANY),
		.sin_port = htons(port),
	};
	struct rdma_cm_id *id;
	int ret = 0;

	mutex_lock(&kt_srpt_listen_lock);
	if (kt_srpt_listen_id) {
		rdma_destroy_id(kt_srpt_listen_id);
		kt_srpt_listen_id = NULL;
		pr_info("no longer listening on port %u\n", kt_srpt_listen_on);
		kt_srpt_listen_on = 0;
	}
	if (!port)
		goto out;
	id = kt_srpt_listen_on_addr((struct sockaddr *)&sin6);
	if (PTR_ERR_OR_ZERO(id) == -EAFNOSUPPORT)
		id = kt_srpt_listen_on_addr((struct sockaddr *)&sin);
	if (IS_ERR(id)) {
		ret = PTR_ERR(id);
		pr_warn("cannot listen on port %u: %pe\n", port, ERR_PTR(ret));
		goto out;
	}
	kt_srpt_listen_id = id;
	kt_srpt_listen_on = port;
	pr_info("listening for SRP logins on port %u (rdma_cm)\n", port);
out:
	mutex_unlock(&kt_srpt_listen_lock);
	return ret;
}

void kt_srpt_unlisten(void)
{
	kt_srpt_listen(0);
}

u16 kt_srpt_listen_port(void)
{
	u16 port;

	mutex_lock(&kt_srpt_listen_lock);
	port = kt_srpt_listen_on;
	mutex_unlock(&kt_srpt_listen_lock);
	return port;
}

/* An event on a channel's cm_id (kt_srpt_login() gave it this handler) */
int kt_srpt_ch_cm_handler(struct rdma_cm_id *cm_id, struct rdma_cm_event *ev)
{
	struct kt_srpt_ch *ch = cm_id->context;

	switch (ev->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		kt_srpt_ch_established(ch);
		return 0;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		return kt_srpt_ch_device_removed(ch);
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
	case RDMA_CM_EVENT_ADDR_CHANGE:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_REJECTED:
		pr_debug("%s: %s: closing the channel\n", ch->sess.initiator,
			 rdma_event_msg(ev->event));
		kt_srpt_ch_close(ch);
		return 0;
	default:
		return 0;
	}
}
