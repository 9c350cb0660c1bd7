// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_iscsi: a connection's life, whatever its transport. It is made
 * by the transport (kt_iscsi_conn_alloc()), runs its receive and transmit
 * work on the CPU that accepted it (no thread per connection, no lock
 * shared between connections), closes once from any context, and is
 * freed by its last reference.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>

#include "conn.h"

struct workqueue_struct *kt_iscsi_wq;
/*
 * Closing and freeing wait for a connection's work on kt_iscsi_wq, so run
 * elsewhere.
 */
struct workqueue_struct *kt_iscsi_close_wq;

/*
 * Every close, then everything a close queued, has run, and the frees
 * that the last of those queued.
 */
void kt_iscsi_flush(void)
{
	flush_workqueue(kt_iscsi_close_wq);
	flush_workqueue(kt_iscsi_wq);
	flush_workqueue(kt_iscsi_close_wq);
}

int kt_iscsi_next_cpu(int cpu)
{
	int next = cpumask_next_and(cpu, &kt_iscsi_allowed_cpus,
				    cpu_online_mask);

	if (next >= nr_cpu_ids)
		next = cpumask_first_and(&kt_iscsi_allowed_cpus,
					 cpu_online_mask);
	return next < nr_cpu_ids ? next : cpu;
}

void *kt_iscsi_conn_priv(struct kt_iscsi_conn *conn)
{
	return conn + 1;
}
EXPORT_SYMBOL_GPL(kt_iscsi_conn_priv);

unsigned int kt_iscsi_conn_digests(const struct kt_iscsi_conn *conn)
{
	return (conn->nego.header_digest ? KT_ISCSI_DIGEST_HEADER : 0) |
	       (conn->nego.data_digest ? KT_ISCSI_DIGEST_DATA : 0);
}
EXPORT_SYMBOL_GPL(kt_iscsi_conn_digests);

void kt_iscsi_conn_rx_kick(struct kt_iscsi_conn *conn)
{
	if (READ_ONCE(conn->state) < KT_CONN_CLOSING)
		queue_work_on(conn->cpu, kt_iscsi_wq, &conn->rx_work);
}
EXPORT_SYMBOL_GPL(kt_iscsi_conn_rx_kick);

void kt_iscsi_conn_tx_kick(struct kt_iscsi_conn *conn)
{
	if (READ_ONCE(conn->state) < KT_CONN_CLOSING)
		queue_work_on(conn->cpu, kt_iscsi_wq, &conn->tx_work);
}
EXPORT_SYMBOL_GPL(kt_iscsi_conn_tx_kick);

/*
 * On kt_iscsi_wq from the CPU that queues it: a connection runs on the CPU
 * that accepted it (kt_iscsi_conn_cpu()).
 */
void kt_iscsi_accept_kick(struct work_struct *work)
{
	queue_work(kt_iscsi_wq, work);
}

static void kt_iscsi_rx_work(struct work_struct *work)
{
	struct kt_iscsi_conn *conn = container_of(work, struct kt_iscsi_conn,
						  rx_work);
	int ret;

	/*
	 * A kick may queue this after the close work cancelled it and let
	 * go of the command being received: nothing more is read then.
	 */
	if (!conn->xport->receive ||
	    READ_ONCE(conn->state) >= KT_CONN_CLOSING)
		return;
	/* what the PDUs complete may go out from here (kt_iscsi_tx_now()) */
	WRITE_ONCE(conn->rx_task, current);
	ret = conn->xport->receive(conn);
	WRITE_ONCE(conn->rx_task, NULL);
	if (ret)
		kt_iscsi_conn_close(conn);
}

/*
 * The last reference may go in a bio's completion: the transport lets go
 * in a work item (and module exit drains the workqueue).
 */
static void kt_iscsi_conn_free_work(struct work_struct *work)
{
	struct kt_iscsi_conn *conn = container_of(work, struct kt_iscsi_conn,
						  free_work);
	struct module *owner = conn->xport->owner;

	/*
	 * The last reference may be a TMF's, answered after the close: its
	 * response queued the transmit work again, and a freed answer may
	 * have woken the receive work. Neither may outlive the connection.
	 */
	cancel_work_sync(&conn->rx_work);
	flush_work(&conn->tx_work);
	conn->xport->release(conn);
	module_put(owner);
	if (conn->portal)
		kt_iscsi_portal_put(conn->portal);
	kvfree(conn->rx_buf);
	kt_iscsi_text_drop(conn);
	xa_destroy(&conn->cmds);
	kfree(conn);
	kt_obj_dec(&kt_iscsi_objs[KT_ISCSI_OBJ_CONN]);
	module_put(THIS_MODULE);
}

static void kt_iscsi_conn_release(struct kref *kref)
{
	struct kt_iscsi_conn *conn = container_of(kref, struct kt_iscsi_conn,
						  kref);

	/*
	 * Not on kt_iscsi_wq: the free work waits for the connection's
	 * receive and transmit work there, and a work item that waits for
	 * others of its own WQ_MEM_RECLAIM workqueue can deadlock when the
	 * rescuer runs it (lockdep says so).
	 */
	queue_work(kt_iscsi_close_wq, &conn->free_work);
}

void kt_iscsi_conn_get(struct kt_iscsi_conn *conn)
{
	kref_get(&conn->kref);
}
EXPORT_SYMBOL_GPL(kt_iscsi_conn_get);

void kt_iscsi_conn_put(struct kt_iscsi_conn *conn)
{
	kref_put(&conn->kref, kt_iscsi_conn_release);
}
EXPORT_SYMBOL_GPL(kt_iscsi_conn_put);

static void kt_iscsi_close_work(struct work_struct *work)
{
	struct kt_iscsi_conn *conn = container_of(work, struct kt_iscsi_conn,
						  close_work);

	conn->xport->shutdown(conn);
	/*
	 * The receive work arms the timers (login, keepalive): once it is
	 * cancelled nothing re-arms them, the transport's shutdown having
	 * stopped its kicks.
	 */
	cancel_work_sync(&conn->rx_work);
	timer_delete_sync(&conn->login_timer);
	kt_iscsi_keepalive_stop(conn);
	kt_iscsi_dataout_stop(conn);
	WRITE_ONCE(conn->state, KT_CONN_DEAD);
	/* a command or a Data-Out cut off half-way */
	kt_iscsi_rx_put_cmd(conn, false);

	/* commands waiting for Data-Out will get none */
	kt_iscsi_conn_abort_cmds(conn);
	flush_work(&conn->tx_work);
	/* what is still queued is dropped by the tx work of a dead connection */
	kt_iscsi_tx_drop_all(conn);

	kt_iscsi_login_free(conn);
	/* an answer in parts no one will ask for again */
	kt_iscsi_text_drop(conn);
	if (conn->sess)
		kt_iscsi_sess_del_conn(conn);
	kt_iscsi_conn_put(conn);
}

/*
 * Close from any context; the work does it once. Only a live state moves
 * to CLOSING: a connection that is DEAD stays so, and the close work,
 * queued by whoever moved it, runs once.
 */
void kt_iscsi_conn_close(struct kt_iscsi_conn *conn)
{
	enum kt_iscsi_conn_state old = READ_ONCE(conn->state);

	do {
		if (old >= KT_CONN_CLOSING)
			return;
	} while (!try_cmpxchg(&conn->state, &old, KT_CONN_CLOSING));
	queue_work(kt_iscsi_close_wq, &conn->close_work);
}
EXPORT_SYMBOL_GPL(kt_iscsi_conn_close);

static void kt_iscsi_login_timeout(struct timer_list *t)
{
	struct kt_iscsi_conn *conn = from_timer(conn, t, login_timer);

	pr_warn_ratelimited("login timed out: closing the connection\n");
	kt_iscsi_conn_close(conn);
}

/*
 * A new connection's CPU: this one, where the portal accepted it, unless
 * cpus_allowed_list leaves it out; then the next allowed CPU online.
 */
static int kt_iscsi_conn_cpu(void)
{
	int cpu = raw_smp_processor_id();

	if (cpumask_test_cpu(cpu, &kt_iscsi_allowed_cpus))
		return cpu;
	return kt_iscsi_next_cpu(cpu);
}

struct kt_iscsi_conn *kt_iscsi_conn_alloc(struct kt_iscsi_portal *portal,
					  const struct kt_iscsi_transport *t,
					  const struct sockaddr_storage *peer)
{
	struct kmem_cache *cmds;
	struct kt_iscsi_conn *conn;
	int ret = -ENODEV;

	if (!try_module_get(THIS_MODULE))
		return ERR_PTR(-ENODEV);
	if (!try_module_get(t->owner))
		goto out_this;
	cmds = kt_iscsi_transport_cmds(t);
	if (WARN_ON_ONCE(!cmds))	/* not registered */
		goto out_owner;
	ret = -ENOMEM;
	conn = kzalloc(sizeof(*conn) + t->conn_size, GFP_KERNEL);
	if (!conn)
		goto out_owner;
	conn->rx_buf = kvmalloc(KT_ISCSI_LOGIN_BUF, GFP_KERNEL);
	if (!conn->rx_buf)
		goto out_conn;
	/*
	 * The portal's last reference may have gone just now: its put stops
	 * the listener after that, and until the TCP listener's unlisten
	 * has cancelled the accept work, the work may still accept. It must
	 * not take the portal back; the portal is not freed before then.
	 */
	ret = -ESHUTDOWN;
	if (!refcount_inc_not_zero(&portal->ref))
		goto out_buf;
	kt_obj_inc(&kt_iscsi_objs[KT_ISCSI_OBJ_CONN]);
	conn->rx_buf_len = KT_ISCSI_LOGIN_BUF;
	kref_init(&conn->kref);
	conn->xport = t;
	conn->cmd_cache = cmds;
	conn->peer = *peer;
	conn->portal = portal;
	conn->state = KT_CONN_LOGIN;
	conn->cpu = kt_iscsi_conn_cpu();
	conn->nego.max_recv_dsl = KT_ISCSI_LOGIN_BUF;
	conn->nego.max_xmit_dsl = KT_ISCSI_LOGIN_BUF;
	INIT_LIST_HEAD(&conn->sess_node);
	INIT_LIST_HEAD(&conn->tx_queue);
	spin_lock_init(&conn->tx_lock);
	mutex_init(&conn->tx_mutex);
	xa_init_flags(&conn->cmds, XA_FLAGS_LOCK_IRQ);
	INIT_WORK(&conn->rx_work, kt_iscsi_rx_work);
	INIT_WORK(&conn->tx_work, kt_iscsi_tx_work);
	INIT_WORK(&conn->close_work, kt_iscsi_close_work);
	INIT_WORK(&conn->free_work, kt_iscsi_conn_free_work);
	timer_setup(&conn->login_timer, kt_iscsi_login_timeout, 0);
	conn->login_start = jiffies;
	kt_iscsi_keepalive_init(conn);
	kt_iscsi_dataout_init(conn);
	return conn;

out_buf:
	kvfree(conn->rx_buf);
out_conn:
	kfree(conn);
out_owner:
	module_put(t->owner);
out_this:
	module_put(THIS_MODULE);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(kt_iscsi_conn_alloc);

int kt_iscsi_conn_start(struct kt_iscsi_conn *conn)
{
	return kt_iscsi_login_start(conn);
}
EXPORT_SYMBOL_GPL(kt_iscsi_conn_start);
