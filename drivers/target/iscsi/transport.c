// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_iscsi: the transports that carry it (TCP, iSER) and what they
 * may ask of a command. Each registered transport gets a slab cache of
 * commands sized for its per-command area.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>

#include "conn.h"

#define KT_ISCSI_MAX_TRANSPORTS	4

struct kt_iscsi_xport_slot {
	const struct kt_iscsi_transport	*t;
	struct kmem_cache		*cmds;
};

static struct kt_iscsi_xport_slot kt_iscsi_xports[KT_ISCSI_MAX_TRANSPORTS];
static DEFINE_MUTEX(kt_iscsi_xport_lock);

int kt_iscsi_transport_register(const struct kt_iscsi_transport *t)
{
	struct kt_iscsi_xport_slot *free = NULL;
	char name[32];
	int i, ret = 0;

	if (WARN_ON(!t->listen || !t->unlisten || !t->xmit || !t->shutdown ||
		    !t->release || !t->local_addr) ||
	    WARN_ON(t->rdma && (!t->get_data || !t->put_data)))
		return -EINVAL;
	mutex_lock(&kt_iscsi_xport_lock);
	for (i = 0; i < KT_ISCSI_MAX_TRANSPORTS; i++) {
		struct kt_iscsi_xport_slot *s = &kt_iscsi_xports[i];

		if (s->t && (s->t == t || !strcmp(s->t->name, t->name) ||
			     (s->t->rdma && t->rdma))) {
			ret = -EBUSY;
			goto out;
		}
		if (!s->t && !free)
			free = s;
	}
	if (!free) {
		ret = -ENOSPC;
		goto out;
	}
	snprintf(name, sizeof(name), "kt_iscsi_cmd_%s", t->name);
	free->cmds = kmem_cache_create(name, kt_iscsi_cmd_size(t),
				       __alignof__(struct kt_iscsi_cmd), 0,
				       NULL);
	if (!free->cmds) {
		ret = -ENOMEM;
		goto out;
	}
	free->t = t;
out:
	mutex_unlock(&kt_iscsi_xport_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(kt_iscsi_transport_register);

void kt_iscsi_transport_unregister(const struct kt_iscsi_transport *t)
{
	struct kmem_cache *cmds = NULL;
	int i;

	mutex_lock(&kt_iscsi_xport_lock);
	for (i = 0; i < KT_ISCSI_MAX_TRANSPORTS; i++) {
		if (kt_iscsi_xports[i].t == t) {
			cmds = kt_iscsi_xports[i].cmds;
			kt_iscsi_xports[i] = (struct kt_iscsi_xport_slot){};
		}
	}
	mutex_unlock(&kt_iscsi_xport_lock);
	/* every command held its connection, every connection the module */
	kmem_cache_destroy(cmds);
}
EXPORT_SYMBOL_GPL(kt_iscsi_transport_unregister);

/* The command cache of registered transport @t, or NULL. */
struct kmem_cache *kt_iscsi_transport_cmds(const struct kt_iscsi_transport *t)
{
	struct kmem_cache *cmds = NULL;
	int i;

	mutex_lock(&kt_iscsi_xport_lock);
	for (i = 0; i < KT_ISCSI_MAX_TRANSPORTS; i++)
		if (kt_iscsi_xports[i].t == t)
			cmds = kt_iscsi_xports[i].cmds;
	mutex_unlock(&kt_iscsi_xport_lock);
	return cmds;
}

/* The RDMA transport, its module pinned; NULL when none is registered. */
const struct kt_iscsi_transport *kt_iscsi_transport_rdma_get(void)
{
	const struct kt_iscsi_transport *t = NULL;
	int i;

	mutex_lock(&kt_iscsi_xport_lock);
	for (i = 0; i < KT_ISCSI_MAX_TRANSPORTS; i++) {
		const struct kt_iscsi_transport *s = kt_iscsi_xports[i].t;

		if (s && s->rdma && try_module_get(s->owner))
			t = s;
	}
	mutex_unlock(&kt_iscsi_xport_lock);
	return t;
}

const struct sockaddr_storage *
kt_iscsi_portal_addr(const struct kt_iscsi_portal *portal)
{
	return &portal->addr;
}
EXPORT_SYMBOL_GPL(kt_iscsi_portal_addr);

/* ---- a command, as a transport sees it ---- */

void *kt_iscsi_cmd_priv(struct kt_iscsi_cmd *cmd)
{
	return cmd + 1;
}
EXPORT_SYMBOL_GPL(kt_iscsi_cmd_priv);

struct kt_iscsi_cmd *kt_iscsi_priv_cmd(void *priv)
{
	return (struct kt_iscsi_cmd *)priv - 1;
}
EXPORT_SYMBOL_GPL(kt_iscsi_priv_cmd);

struct kt_iscsi_conn *kt_iscsi_cmd_conn(struct kt_iscsi_cmd *cmd)
{
	return cmd->conn;
}
EXPORT_SYMBOL_GPL(kt_iscsi_cmd_conn);

struct kt_cmd *kt_iscsi_cmd_se(struct kt_iscsi_cmd *cmd)
{
	return &cmd->se;
}
EXPORT_SYMBOL_GPL(kt_iscsi_cmd_se);

u32 kt_iscsi_cmd_itt(const struct kt_iscsi_cmd *cmd)
{
	return cmd->itt;
}
EXPORT_SYMBOL_GPL(kt_iscsi_cmd_itt);

void kt_iscsi_cmd_data_fetched(struct kt_iscsi_cmd *cmd, bool ok)
{
	struct kt_iscsi_conn *conn = cmd->conn;

	if (!ok) {
		kt_cmd_fail(&cmd->se, KT_SENSE_ABORTED_COMMAND);
		return;
	}
	cmd->se.data_received = cmd->se.data_length;
	/* its response may be sent from here (kt_iscsi_tx_now()) */
	WRITE_ONCE(conn->rx_task, current);
	kt_cmd_data_out_done(&cmd->se);
	WRITE_ONCE(conn->rx_task, NULL);
}
EXPORT_SYMBOL_GPL(kt_iscsi_cmd_data_fetched);
