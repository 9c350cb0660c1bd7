// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_iscsi: the Data-Out timeout. A WRITE whose data the initiator
 * does not send holds its buffer and its place in the task set: an
 * ORDERED one stops every other initiator's commands to the LU behind it.
 * A command waiting for Data-Out that has heard nothing for the ACL's
 * dataout_timeout seconds (the TPG's default_dataout_timeout in demo
 * mode) ends its connection: at ErrorRecoveryLevel 0 the target cannot
 * ask again (RFC 7143 7.1.4.1 keeps R2T recovery for ERL 1), and LIO does
 * the same. The command is aborted with the connection.
 *
 * The receive side stamps each such command when it starts waiting and at
 * every Data-Out (and its R2Ts when they go out); one timer per connection
 * runs while any is waiting and looks at them once a second.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>

#include "conn.h"
#include "iscsi.h"

static void kt_iscsi_dataout_timer_fn(struct timer_list *t)
{
	struct kt_iscsi_conn *conn = from_timer(conn, t, dataout_timer);

	queue_work_on(conn->cpu, kt_iscsi_wq, &conn->dataout_work);
}

static void kt_iscsi_dataout_work(struct work_struct *work)
{
	struct kt_iscsi_conn *conn = container_of(work, struct kt_iscsi_conn,
						  dataout_work);
	unsigned long limit = conn->dataout_timeout * HZ;
	struct kt_iscsi_cmd *cmd;
	bool waiting = false;
	unsigned long idx;
	bool late = false;
	u32 itt = 0;

	if (READ_ONCE(conn->state) >= KT_CONN_CLOSING)
		return;
	/* erasing takes this lock: a listed command is not freed meanwhile */
	xa_lock_irq(&conn->cmds);
	xa_for_each(&conn->cmds, idx, cmd) {
		waiting = true;
		if (time_after_eq(jiffies, READ_ONCE(cmd->data_at) + limit)) {
			itt = cmd->itt;
			late = true;
			break;
		}
	}
	xa_unlock_irq(&conn->cmds);
	if (late) {
		pr_warn_ratelimited("%s: no Data-Out for ITT %#x in %u s: closing the connection\n",
				    conn->sess ? conn->sess->initiator : "?",
				    itt, conn->dataout_timeout);
		kt_iscsi_conn_close(conn);
		return;
	}
	if (waiting)
		mod_timer(&conn->dataout_timer, jiffies + HZ);
}

void kt_iscsi_dataout_init(struct kt_iscsi_conn *conn)
{
	timer_setup(&conn->dataout_timer, kt_iscsi_dataout_timer_fn, 0);
	INIT_WORK(&conn->dataout_work, kt_iscsi_dataout_work);
}

/* A command of @conn waits for Data-Out: look at it in a second. */
void kt_iscsi_dataout_watch(struct kt_iscsi_conn *conn)
{
	if (conn->dataout_timeout && !timer_pending(&conn->dataout_timer) &&
	    READ_ONCE(conn->state) < KT_CONN_CLOSING)
		mod_timer(&conn->dataout_timer, jiffies + HZ);
}

/*
 * The close work: after the receive work, which arms the timer, is gone.
 * Shut down, the timer cannot be armed again by the work being cancelled.
 */
void kt_iscsi_dataout_stop(struct kt_iscsi_conn *conn)
{
	timer_shutdown_sync(&conn->dataout_timer);
	cancel_work_sync(&conn->dataout_work);
}
