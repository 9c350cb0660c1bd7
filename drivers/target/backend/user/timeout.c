// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_user: the deadlines. A command in the ring ends with LOGICAL
 * UNIT COMMUNICATION FAILURE once attrib/cmd_time_out (seconds, 30 as
 * LIO's; 0: no deadline) has passed, whatever the daemon does later: its
 * entry stays the daemon's (EXPIRED) until answered or the ring is reset,
 * and that late answer only gives its blocks and cmd_id back. A command
 * waiting for room ends TASK SET FULL after qfull_time_out (-1: the
 * cmd_time_out), and is tried again every second meanwhile. One timer
 * per device, armed for the nearest deadline; rounded up to the second,
 * so a command ends between its time-out and one second (plus a tick)
 * later, or a second more when the daemon kicked answers that the kick's
 * work has not taken yet (KT_USER_KICK_GRACE).
 *
 * The core waits for a command it aborted (a TMF, an I_T nexus loss) and
 * for every command of a LUN being unlinked: whatever cmd_time_out says,
 * 0 included, such a command ends at once while it waits for room, and
 * within KT_USER_CUT_TIME_OUT in the ring. So a hung daemon holds an
 * unlink or a LUN RESET for at most that, plus a second (two, if it
 * kicked just before).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/timer.h>
#include <linux/workqueue.h>

#include "user.h"

#define KT_USER_NEVER	0	/* deadline of a command without one */
#define KT_USER_QFULL_RETRY	HZ	/* waiting commands tried again */
#define KT_USER_CUT_TIME_OUT	10	/* s: aborted, or its LUN unlinked */
#define KT_USER_KICK_GRACE	HZ	/* a deadline passed, answers kicked */

unsigned long kt_user_deadline(u32 seconds)
{
	unsigned long d;

	if (!seconds)
		return KT_USER_NEVER;
	d = round_jiffies_up(jiffies + (unsigned long)seconds * HZ);
	return d == KT_USER_NEVER ? 1 : d;
}

/*
 * Under udev->lock: the nearest deadline, or false when none. Waiting
 * commands are also retried every KT_USER_QFULL_RETRY: room may come back
 * with no kick (an allocation that failed, a ring the daemon left idle).
 */
static bool kt_user_next(struct kt_user_dev *udev, unsigned long *next)
{
	struct list_head *lists[] = { &udev->inflight, &udev->qfull };
	struct kt_user_cmd *ucmd;
	bool any = false;
	unsigned int i;

	if (!list_empty(&udev->qfull)) {
		*next = jiffies + KT_USER_QFULL_RETRY;
		any = true;
	}

	for (i = 0; i < ARRAY_SIZE(lists); i++) {
		list_for_each_entry(ucmd, lists[i], node) {
			if (ucmd->deadline == KT_USER_NEVER)
				continue;
			if (!any || time_before(ucmd->deadline, *next))
				*next = ucmd->deadline;
			any = true;
		}
	}
	return any;
}

/*
 * Under udev->lock: a command with @deadline entered the ring. The timer
 * only ever comes sooner here; when it fires, kt_user_timeout() walks the
 * lists and sets it for the next deadline, so the commands answered
 * meanwhile cost nothing, and one command in costs no walk of the others.
 */
void kt_user_timer_add(struct kt_user_dev *udev, unsigned long deadline)
{
	if (deadline != KT_USER_NEVER)
		timer_reduce(&udev->timer, deadline);
}

/* under udev->lock: the timer set for the nearest deadline, walking all */
void kt_user_timer_arm(struct kt_user_dev *udev)
{
	unsigned long next;

	if (kt_user_next(udev, &next))
		timer_reduce(&udev->timer, next);
}

static void kt_user_timeout(struct timer_list *t)
{
	struct kt_user_dev *udev = from_timer(udev, t, timer);
	struct kt_user_cmd *ucmd, *tmp;
	unsigned long flags, now = jiffies;
	unsigned long next;
	bool kicked;
	LIST_HEAD(done);
	LIST_HEAD(fill);

	/*
	 * Answers kicked but not yet taken (the kick's work is queued) may
	 * be these commands': they get up to KT_USER_KICK_GRACE more, so a
	 * command answered in time does not end for the work's delay.
	 */
	kicked = work_pending(&udev->kick_work);
	spin_lock_irqsave(&udev->lock, flags);
	list_for_each_entry_safe(ucmd, tmp, &udev->inflight, node) {
		struct kt_user_cmd *dead;

		if (ucmd->deadline == KT_USER_NEVER ||
		    time_before(now, ucmd->deadline) ||
		    (kicked &&
		     time_before(now, ucmd->deadline + KT_USER_KICK_GRACE)))
			continue;
		/*
		 * The entry stays the daemon's: a copy ends the command, the
		 * original keeps the blocks and the cmd_id for the answer.
		 */
		dead = kzalloc(sizeof(*dead), GFP_NOWAIT | __GFP_NOWARN);
		if (!dead)
			continue;	/* the next tick tries again */
		list_del_init(&ucmd->node);
		dead->cmd = ucmd->cmd;
		dead->reason = KT_SENSE_LU_COMM_FAILURE;
		list_add_tail(&dead->node, &done);
		ucmd->cmd = NULL;
		ucmd->state = KT_UCMD_EXPIRED;
		if (ucmd->cut)
			pr_warn_ratelimited("%s: cmd_id %u, aborted or its LUN unlinked, not answered within %u s: ended\n",
					    kt_user_name(udev), ucmd->id,
					    KT_USER_CUT_TIME_OUT);
		else
			pr_warn_ratelimited("%s: cmd_id %u not answered within cmd_time_out %u s: ended\n",
					    kt_user_name(udev), ucmd->id,
					    udev->cmd_time_out);
	}
	/* room may have come without a kick: the waiting ones first */
	if (udev->up && !test_bit(KT_USER_BROKEN, &udev->flags) &&
	    !test_bit(KT_USER_BLOCKED, &udev->flags))
		kt_user_run_qfull(udev, &done, &fill, false);
	list_for_each_entry_safe(ucmd, tmp, &udev->qfull, node) {
		if (ucmd->deadline == KT_USER_NEVER ||
		    time_before(now, ucmd->deadline))
			continue;
		list_move_tail(&ucmd->node, &done);
		ucmd->reason = KT_SENSE_TASK_SET_FULL;
	}
	if (kt_user_next(udev, &next))
		mod_timer(&udev->timer, time_after(next, now) ? next : now + HZ / 10);
	spin_unlock_irqrestore(&udev->lock, flags);
	kt_user_fill(udev, &fill);
	kt_user_finish(&done);
}

void kt_user_timer_init(struct kt_user_dev *udev)
{
	timer_setup(&udev->timer, kt_user_timeout, 0);
}

/*
 * Under udev->lock: @ucmd was aborted, or its LUN is going (@reason, what
 * it ends with): waiting for room, it ends now; in the ring (or on its way
 * there, PENDING), within KT_USER_CUT_TIME_OUT, or by its own deadline if
 * that is sooner.
 */
static void kt_user_cut(struct kt_user_dev *udev, struct kt_user_cmd *ucmd,
			sense_reason_t reason, struct list_head *done)
{
	unsigned long d;

	if (ucmd->state == KT_UCMD_QUEUED) {
		list_move_tail(&ucmd->node, done);
		ucmd->reason = reason;
		return;
	}
	d = kt_user_deadline(KT_USER_CUT_TIME_OUT);
	if (ucmd->deadline == KT_USER_NEVER || time_before(d, ucmd->deadline)) {
		ucmd->deadline = d;
		ucmd->cut = true;
	}
}

/*
 * The commands of @udev that @match picks (the lists hold only those whose
 * SCSI command has not ended) are cut short.
 */
static void kt_user_cut_all(struct kt_user_dev *udev, sense_reason_t reason,
			    bool (*match)(struct kt_cmd *cmd, const void *arg),
			    const void *arg)
{
	struct list_head *lists[] = {
		&udev->inflight, &udev->qfull, &udev->pending
	};
	struct kt_user_cmd *ucmd, *tmp;
	unsigned long flags;
	unsigned int i;
	LIST_HEAD(done);

	spin_lock_irqsave(&udev->lock, flags);
	for (i = 0; i < ARRAY_SIZE(lists); i++)
		list_for_each_entry_safe(ucmd, tmp, lists[i], node)
			if (match(ucmd->cmd, arg))
				kt_user_cut(udev, ucmd, reason, &done);
	kt_user_timer_arm(udev);
	spin_unlock_irqrestore(&udev->lock, flags);
	kt_user_finish(&done);
}

static bool kt_user_is_cmd(struct kt_cmd *cmd, const void *arg)
{
	return cmd == arg;
}

static bool kt_user_is_lun(struct kt_cmd *cmd, const void *arg)
{
	return cmd->lun == arg;
}

/* The backend's abort: the core aborted @cmd, which it waits for. */
void kt_user_abort(struct kt_cmd *cmd)
{
	kt_user_cut_all(to_udev(cmd->dev), KT_SENSE_LU_COMM_FAILURE,
			kt_user_is_cmd, cmd);
}

/* The backend's lun_unlinking: the core waits for @lun's commands. */
void kt_user_lun_unlinking(struct kt_dev *dev, const struct kt_lun *lun)
{
	kt_user_cut_all(to_udev(dev), KT_SENSE_LUN_NOT_SUPPORTED,
			kt_user_is_lun, lun);
}
