// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_iscsi: keepalive. A connection in full feature phase that has
 * been quiet for the ACL's nopin_timeout seconds gets a NOP-In ping asking
 * for an answer (RFC 7143 11.19, a Target Transfer Tag other than
 * 0xffffffff); without the NOP-Out answer in nopin_response_timeout
 * seconds the connection is closed. The receive side only stamps the time
 * of each PDU; one timer per connection does the rest.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>

#include "conn.h"
#include "iscsi.h"

#define KT_ISCSI_TTT_PING	0x80000000	/* high half: pings, not R2Ts */

static void kt_iscsi_nopin_timer(struct timer_list *t)
{
	struct kt_iscsi_conn *conn = from_timer(conn, t, nopin_timer);

	queue_work_on(conn->cpu, kt_iscsi_wq, &conn->nopin_work);
}

static void kt_iscsi_ping(struct kt_iscsi_conn *conn)
{
	struct kt_iscsi_nop_in n = { .itt = 0xffffffff };
	u8 bhs[KT_ISCSI_BHS_LEN];

	conn->nopin_ttt = KT_ISCSI_TTT_PING |
			  ((conn->nopin_ttt + 1) & KT_ISCSI_TTT_R2T_MASK);
	if (conn->nopin_ttt == 0xffffffff)
		conn->nopin_ttt = KT_ISCSI_TTT_PING;
	n.ttt = conn->nopin_ttt;
	if (kt_iscsi_encode_nop_in(bhs, &n))
		return;
	conn->nopin_sent = jiffies;
	/* pairs with the read in kt_iscsi_keepalive_answer() */
	smp_store_release(&conn->nopin_waiting, true);
	/* a ping carries StatSN but does not advance it (RFC 7143 11.19) */
	kt_iscsi_queue_pdu(conn, bhs, NULL, 0, false);
}

static void kt_iscsi_nopin_work(struct work_struct *work)
{
	struct kt_iscsi_conn *conn = container_of(work, struct kt_iscsi_conn,
						  nopin_work);
	unsigned long quiet = conn->nopin_timeout * HZ;
	unsigned long due;

	if (READ_ONCE(conn->state) != KT_CONN_FFP)
		return;
	if (READ_ONCE(conn->nopin_waiting)) {
		due = conn->nopin_sent + conn->nopin_rsp_timeout * HZ;
		if (time_after_eq(jiffies, due)) {
			pr_warn_ratelimited("%s: no answer to a NOP-In in %u s: closing the connection\n",
					    conn->sess ? conn->sess->initiator : "?",
					    conn->nopin_rsp_timeout);
			kt_iscsi_conn_close(conn);
			return;
		}
		mod_timer(&conn->nopin_timer, due);
		return;
	}
	due = READ_ONCE(conn->last_rx) + quiet;
	if (time_before(jiffies, due)) {
		mod_timer(&conn->nopin_timer, due);
		return;
	}
	kt_iscsi_ping(conn);
	mod_timer(&conn->nopin_timer,
		  jiffies + conn->nopin_rsp_timeout * HZ);
}

void kt_iscsi_keepalive_init(struct kt_iscsi_conn *conn)
{
	timer_setup(&conn->nopin_timer, kt_iscsi_nopin_timer, 0);
	INIT_WORK(&conn->nopin_work, kt_iscsi_nopin_work);
}

/* Full feature phase begins: ping after @timeout s of silence (0: never). */
void kt_iscsi_keepalive_start(struct kt_iscsi_conn *conn, u16 timeout,
			      u16 rsp_timeout)
{
	conn->nopin_timeout = timeout;
	conn->nopin_rsp_timeout = rsp_timeout;
	WRITE_ONCE(conn->last_rx, jiffies);
	if (timeout)
		mod_timer(&conn->nopin_timer, jiffies + timeout * HZ);
}

void kt_iscsi_keepalive_stop(struct kt_iscsi_conn *conn)
{
	/* shut down: the work being cancelled cannot arm it again */
	timer_shutdown_sync(&conn->nopin_timer);
	cancel_work_sync(&conn->nopin_work);
}

/* A NOP-Out with ITT 0xffffffff: the answer to our ping, or a stray one. */
void kt_iscsi_keepalive_answer(struct kt_iscsi_conn *conn, u32 ttt)
{
	/* pairs with the store-release in kt_iscsi_ping(): nopin_ttt is set */
	if (smp_load_acquire(&conn->nopin_waiting) && ttt == conn->nopin_ttt)
		WRITE_ONCE(conn->nopin_waiting, false);
}
