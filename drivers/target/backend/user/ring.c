// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_user: commands into the ring and answers out of it.
 *
 * A command goes into the ring from the fabric's context (exec_cdb), with
 * its data blocks and a ring cmd_id, or, without room, waits on the qfull
 * list for up to qfull_time_out. The daemon's kick (a write to the UIO
 * device) queues the kick's work, which consumes the entries its cmd_tail
 * has passed: each answer names a cmd_id, which must be a command in the
 * ring; anything else is ignored, or, for an entry that is no entry,
 * stops the ring (BROKEN) until action/reset_ring. Commands end outside
 * udev->lock (a completion may bring the next command in), collected on
 * a done list.
 *
 * udev->lock covers the ring's and the data area's accounting, never a
 * copy of data. Into the ring, in three steps: under the lock, blocks,
 * cmd_id and ring space are taken and the entry written (PENDING, on
 * @pending in ring order); without it, a write's data is copied into the
 * blocks (kt_user_fill(), whoever took them: exec_cdb, a kick, the timer,
 * the reclaim work); under it again the entries at the front of @pending
 * whose data is in place are shown, cmd_head moved past them with a
 * release (kt_user_show()). So the daemon never sees an entry before its
 * data, nor one out of ring order, and it may pass (cmd_tail) only what
 * it was shown (ring.shown). Out of it likewise: an answer is taken under
 * the lock, the command keeping its blocks; a read's data is copied out
 * without it; the blocks are freed under it again (kt_user_complete()).
 * Meanwhile nothing else ends the command or frees its blocks: the timer
 * ends only commands shown (inflight), an abort only shortens a PENDING
 * one's deadline, a reset_ring leaves one being filled to its filler
 * (orphan), and an answer is taken once, off every list.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/target_core_user.h>
#include <linux/workqueue.h>

#include "user.h"

/* the kicks' work (kt_user_kick()) */
static struct workqueue_struct *kt_user_wq;

/*
 * The mailbox's description of the ring: written at enable, and again at
 * action/reset_ring and when a daemon opens the device, since the mailbox
 * is the daemon's to scribble over and the next daemon reads the ring's
 * place and size from it. The kernel itself never reads these fields.
 */
void kt_user_mb_describe(struct kt_user_dev *udev)
{
	struct tcmu_mailbox *mb = udev->mb;

	mb->version = TCMU_MAILBOX_VERSION;
	mb->flags = TCMU_MAILBOX_FLAG_CAP_OOOC | TCMU_MAILBOX_FLAG_CAP_READ_LEN;
	mb->cmdr_off = KT_USER_CMDR_OFF;
	mb->cmdr_size = udev->ring.size;
}

void kt_user_cmd_free(struct kt_user_cmd *ucmd)
{
	WARN_ON_ONCE(ucmd->nr_blocks);
	kfree(ucmd->blocks);
	kfree(ucmd);
}

/* an entry's size for @iovs iovecs and its CDB */
static u32 kt_user_entry_size(unsigned int iovs, u32 cdb_len)
{
	size_t base = max(offsetof(struct tcmu_cmd_entry, req.iov[iovs]),
			  sizeof(struct tcmu_cmd_entry));

	return round_up(base, KT_USER_ALIGN) + round_up(cdb_len, KT_USER_ALIGN);
}

/*
 * Under udev->lock: the entries at the front of @pending whose data is in
 * place shown to the daemon, in ring order, and the daemon kicked.
 */
static void kt_user_show(struct kt_user_dev *udev)
{
	struct tcmu_mailbox *mb = udev->mb;
	struct kt_user_cmd *ucmd, *tmp;
	bool shown = false;

	list_for_each_entry_safe(ucmd, tmp, &udev->pending, node) {
		if (!ucmd->filled)
			break;
		ucmd->state = KT_UCMD_RING;
		list_move_tail(&ucmd->node, &udev->inflight);
		udev->ring.shown = ucmd->ring_end;
		kt_user_timer_add(udev, ucmd->deadline);
		shown = true;
	}
	if (!shown)
		return;
	/*
	 * The entries and their data before the head that shows them: the
	 * data of a command filled on another CPU came before its filler's
	 * unlock, which this lock's holder acquired.
	 */
	smp_store_release(&mb->cmd_head, udev->ring.shown);
	if (udev->uio_up)
		uio_event_notify(&udev->uio);
}

/*
 * Under udev->lock: @ucmd's entry into the ring, PENDING; a write's onto
 * @fill, for kt_user_fill(), the others shown by the next kt_user_show().
 * 0, or -ENOSPC without room (it may wait), or another -errno with
 * ucmd->reason set (it ends).
 *
 * Room in the ring and a cmd_id come first, data blocks last: a command
 * that waits for the ring (a daemon that answers nothing) takes no page
 * and gives none back, so it never has the reclaim work run for it. The
 * room is that of the entry with an iovec per block, the most it can
 * need (adjacent blocks merge); unless that is more than half the ring,
 * when only the entry with its actual iovecs, known once the blocks are
 * taken, says whether it fits at all.
 */
static int kt_user_ring_put(struct kt_user_dev *udev, struct kt_user_cmd *ucmd,
			    struct list_head *fill)
{
	struct kt_cmd *cmd = ucmd->cmd;
	struct kt_user_ring *r = &udev->ring;
	struct tcmu_cmd_entry *ent;
	u32 cdb_len = cmd->cdb_len;	/* the core's, kt_passthrough_setup() */
	unsigned int iovs;
	u32 size, pad, id, cdb_off;
	int ret;

	iovs = DIV_ROUND_UP(ucmd->data_len, udev->blk_size);
	size = kt_user_entry_size(iovs, cdb_len);
	if (size <= r->size / 2 && !kt_user_ring_fits(r, size, &pad))
		return -ENOSPC;
	ret = xa_alloc_cyclic(&udev->cmds, &id, ucmd, XA_LIMIT(1, U16_MAX),
			      &udev->next_id, GFP_NOWAIT | __GFP_NOWARN);
	if (ret < 0)
		return -ENOSPC;
	ucmd->id = id;
	ret = kt_user_data_alloc(udev, ucmd);
	if (ret)
		goto out_id;
	iovs = kt_user_data_iovs(udev, ucmd, NULL);
	size = kt_user_entry_size(iovs, cdb_len);
	if (size > r->size / 2) {
		pr_warn_ratelimited("%s: a command of %u bytes needs %u bytes of a ring of %u\n",
				    kt_user_name(udev), ucmd->data_len, size,
				    r->size);
		ucmd->reason = KT_SENSE_INVALID_CDB_FIELD;
		ret = -EINVAL;
		goto out_free;
	}
	if (!kt_user_ring_fits(r, size, &pad)) {
		ret = -ENOSPC;
		goto out_free;
	}

	if (pad) {
		struct tcmu_cmd_entry_hdr *hdr = udev->cmdr + r->head;

		hdr->len_op = 0;
		tcmu_hdr_set_op(&hdr->len_op, TCMU_OP_PAD);
		tcmu_hdr_set_len(&hdr->len_op, pad);
		hdr->cmd_id = 0;
		hdr->kflags = 0;
		hdr->uflags = 0;
		r->head = 0;
	}
	ent = udev->cmdr + r->head;
	memset(ent, 0, size);
	tcmu_hdr_set_op(&ent->hdr.len_op, TCMU_OP_CMD);
	tcmu_hdr_set_len(&ent->hdr.len_op, size);
	ent->hdr.cmd_id = id;
	ent->req.iov_cnt = kt_user_data_iovs(udev, ucmd, ent->req.iov);
	/* the daemon may write the entry at once: never read back from it */
	cdb_off = KT_USER_CMDR_OFF + r->head + size -
		  round_up(cdb_len, KT_USER_ALIGN);
	ent->req.cdb_off = cdb_off;
	memcpy(udev->mb + cdb_off, cmd->cdb, cdb_len);

	r->head = (r->head + size) % r->size;
	ucmd->ring_end = r->head;
	ucmd->state = KT_UCMD_PENDING;
	ucmd->deadline = kt_user_deadline(udev->cmd_time_out);
	list_add_tail(&ucmd->node, &udev->pending);
	ucmd->filled = !(cmd->dir == KT_DATA_OUT && ucmd->data_len);
	if (!ucmd->filled) {
		list_add_tail(&ucmd->fill, fill);
		udev->filling++;
	}
	return 0;

out_free:
	kt_user_data_free(udev, ucmd);
out_id:
	xa_erase(&udev->cmds, id);
	return ret;
}

/* under udev->lock: @ucmd waits for room, or -ETIMEDOUT if it may not */
static int kt_user_qfull_add(struct kt_user_dev *udev, struct kt_user_cmd *ucmd)
{
	u32 tmo;

	if (!udev->qfull_time_out)
		return -ETIMEDOUT;
	if (udev->qfull_time_out > 0)
		tmo = udev->qfull_time_out;
	else
		tmo = udev->cmd_time_out ?: KT_USER_TIME_OUT_DEF;
	ucmd->state = KT_UCMD_QUEUED;
	ucmd->deadline = kt_user_deadline(tmo);
	list_add_tail(&ucmd->node, &udev->qfull);
	return 0;
}

/*
 * Under udev->lock: the waiting commands into the ring, in order, while
 * there is room (those with data to copy in onto @fill); or all of them
 * onto @done, BUSY, when @fail.
 */
void kt_user_run_qfull(struct kt_user_dev *udev, struct list_head *done,
		       struct list_head *fill, bool fail)
{
	struct kt_user_cmd *ucmd, *tmp;
	int ret;

	list_for_each_entry_safe(ucmd, tmp, &udev->qfull, node) {
		list_del_init(&ucmd->node);
		if (fail) {
			ucmd->reason = KT_SENSE_OUT_OF_RESOURCES;
			list_add_tail(&ucmd->node, done);
			continue;
		}
		ret = kt_user_ring_put(udev, ucmd, fill);
		if (ret == -ENOSPC) {
			list_add(&ucmd->node, &udev->qfull);
			break;
		}
		if (ret)
			list_add_tail(&ucmd->node, done);
	}
	kt_user_show(udev);
}

/*
 * Without udev->lock: the data of the writes on @fill (kt_user_ring_put()
 * put them there) into their blocks, then their entries shown. One that
 * reset_ring or a disable took out of the ring meanwhile (orphan) ends
 * here; a disable waits for the last one (udev->filling).
 */
void kt_user_fill(struct kt_user_dev *udev, struct list_head *fill)
{
	struct kt_user_cmd *ucmd, *tmp;
	unsigned long flags;
	LIST_HEAD(done);

	if (list_empty(fill))
		return;
	list_for_each_entry(ucmd, fill, fill)
		kt_user_data_copy(udev, ucmd, ucmd->cmd, ucmd->data_len, true);
	spin_lock_irqsave(&udev->lock, flags);
	list_for_each_entry_safe(ucmd, tmp, fill, fill) {
		list_del_init(&ucmd->fill);
		udev->filling--;
		if (ucmd->orphan) {
			kt_user_data_free(udev, ucmd);
			list_add_tail(&ucmd->node, &done);
			continue;
		}
		ucmd->filled = true;
	}
	kt_user_show(udev);
	if (!udev->filling)
		wake_up_all(&udev->fill_wq);
	spin_unlock_irqrestore(&udev->lock, flags);
	kt_user_finish(&done);
}

/* End the commands on @done, outside udev->lock, and free them. */
void kt_user_finish(struct list_head *done)
{
	struct kt_user_cmd *ucmd, *tmp;

	list_for_each_entry_safe(ucmd, tmp, done, node) {
		struct kt_cmd *cmd = ucmd->cmd;

		list_del(&ucmd->node);
		if (ucmd->reason) {
			kt_be_done(cmd, ucmd->reason);
			kt_user_cmd_free(ucmd);
			continue;
		}
		/* kt_user_answer() copied the data these lengths say */
		if (ucmd->read_len_valid && ucmd->status == KT_SAM_GOOD)
			kt_cmd_set_data_in_len(cmd, ucmd->read_len);
		else if (ucmd->read_len_valid &&
			 ucmd->status == KT_SAM_CHECK_CONDITION)
			kt_cmd_set_data_in_valid(cmd, ucmd->read_len);
		kt_be_cdb_done(cmd, ucmd->status, ucmd->sense,
			       kt_user_sense_len(ucmd->sense));
		kt_user_cmd_free(ucmd);
	}
}

/* The backend's exec_cdb: from the fabric's context, must not sleep. */
void kt_user_exec_cdb(struct kt_cmd *cmd)
{
	struct kt_user_dev *udev = to_udev(cmd->dev);
	struct kt_user_cmd *ucmd;
	sense_reason_t reason = KT_SENSE_NONE;
	unsigned long flags;
	LIST_HEAD(fill);
	int ret;

	ucmd = kzalloc(sizeof(*ucmd), GFP_ATOMIC);
	if (!ucmd) {
		kt_be_done(cmd, KT_SENSE_OUT_OF_RESOURCES);
		return;
	}
	ucmd->udev = udev;
	ucmd->cmd = cmd;
	ucmd->data_len = cmd->dir == KT_DATA_NONE ? 0 : cmd->data_length;
	INIT_LIST_HEAD(&ucmd->node);
	INIT_LIST_HEAD(&ucmd->fill);

	spin_lock_irqsave(&udev->lock, flags);
	if (test_bit(KT_CMD_ABORTED, &cmd->flags)) {
		/*
		 * Aborted on its way here: the TMF set the bit before its
		 * kt_user_abort() takes this lock, which found it in no list
		 * if it came first
		 */
		reason = KT_SENSE_LU_COMM_FAILURE;
	} else if (!udev->up || test_bit(KT_USER_BROKEN, &udev->flags)) {
		reason = KT_SENSE_LU_COMM_FAILURE;
	} else if (test_bit(KT_USER_BLOCKED, &udev->flags)) {
		reason = KT_SENSE_OUT_OF_RESOURCES;	/* BUSY */
	} else if (ucmd->data_len > (u64)udev->max_blocks * udev->blk_size) {
		pr_warn_ratelimited("%s: a command of %u bytes is larger than the data area (max_data_area_mb %u)\n",
				    kt_user_name(udev), ucmd->data_len,
				    udev->data_area_mb);
		reason = KT_SENSE_INVALID_CDB_FIELD;
	} else if (DIV_ROUND_UP(ucmd->data_len, udev->blk_size) >
		   ((u64)kt_user_global_max_mb() << 20) / udev->blk_size) {
		pr_warn_ratelimited("%s: a command of %u bytes is larger than all data areas may be (global_max_data_area_mb %u)\n",
				    kt_user_name(udev), ucmd->data_len,
				    kt_user_global_max_mb());
		reason = KT_SENSE_INVALID_CDB_FIELD;
	} else {
		ret = list_empty(&udev->qfull) ?
		      kt_user_ring_put(udev, ucmd, &fill) : -ENOSPC;
		if (ret == -ENOSPC) {
			if (kt_user_qfull_add(udev, ucmd))
				reason = KT_SENSE_TASK_SET_FULL;
			else
				kt_user_timer_arm(udev);
		} else if (ret) {
			reason = ucmd->reason;
		} else {
			kt_user_show(udev);
		}
	}
	spin_unlock_irqrestore(&udev->lock, flags);

	if (reason) {
		kt_user_cmd_free(ucmd);
		kt_be_done(cmd, reason);
		return;
	}
	kt_user_fill(udev, &fill);
}

/*
 * Under udev->lock: the answer in @ent (copied out of the ring) for the
 * command it names, onto @done; a read's data still in its blocks
 * (copy_len), for kt_user_complete(). A command that expired only gives
 * its blocks back.
 */
static void kt_user_answer(struct kt_user_dev *udev,
			   const struct tcmu_cmd_entry *ent,
			   struct list_head *done)
{
	struct kt_user_cmd *ucmd = xa_load(&udev->cmds, ent->hdr.cmd_id);
	struct kt_cmd *cmd;
	u32 len;

	if (!ucmd || ucmd->state == KT_UCMD_QUEUED ||
	    ucmd->state == KT_UCMD_PENDING) {
		udev->bad_entries++;
		pr_warn_ratelimited("%s: the daemon answered cmd_id %u, which is no command in the ring: ignored\n",
				    kt_user_name(udev), ent->hdr.cmd_id);
		return;
	}
	xa_erase(&udev->cmds, ucmd->id);
	if (ucmd->state == KT_UCMD_EXPIRED) {
		kt_user_data_free(udev, ucmd);
		kt_user_cmd_free(ucmd);
		return;
	}
	list_del_init(&ucmd->node);
	cmd = ucmd->cmd;
	if (ent->hdr.uflags & TCMU_UFLAG_UNKNOWN_OP) {
		ucmd->reason = KT_SENSE_INVALID_OPCODE;
	} else if (!kt_user_status_ok(ent->rsp.scsi_status)) {
		pr_warn_ratelimited("%s: the daemon answered cmd_id %u with status %#x, which is none\n",
				    kt_user_name(udev), ucmd->id,
				    ent->rsp.scsi_status);
		ucmd->reason = KT_SENSE_LU_COMM_FAILURE;
	} else if (ent->rsp.scsi_status == KT_SAM_CHECK_CONDITION &&
		   !kt_user_sense_len(ent->rsp.sense_buffer)) {
		pr_warn_ratelimited("%s: the daemon answered cmd_id %u CHECK CONDITION with no fixed or descriptor sense (%#x)\n",
				    kt_user_name(udev), ucmd->id,
				    ent->rsp.sense_buffer[0]);
		ucmd->reason = KT_SENSE_LU_COMM_FAILURE;
	} else {
		ucmd->status = ent->rsp.scsi_status;
		memcpy(ucmd->sense, ent->rsp.sense_buffer, KT_USER_SENSE_LEN);
		if (cmd->dir == KT_DATA_IN && ucmd->data_len) {
			len = kt_user_read_len(ucmd->data_len, ent->hdr.uflags,
					       ent->rsp.read_len,
					       &ucmd->read_len_valid);
			ucmd->read_len = len;
			/*
			 * Data goes with GOOD, and with a CHECK CONDITION
			 * only as far as READ_LEN says it is valid (LIO's
			 * rule): the rest of the area is not the
			 * initiator's, whose buffer it may be (loopback).
			 */
			if (ucmd->status == KT_SAM_GOOD ||
			    (ucmd->status == KT_SAM_CHECK_CONDITION &&
			     ucmd->read_len_valid))
				ucmd->copy_len = len;
		}
	}
	if (!ucmd->copy_len)
		kt_user_data_free(udev, ucmd);
	list_add_tail(&ucmd->node, done);
}

/* Under udev->lock: consume what the daemon's cmd_tail passed. */
static void kt_user_consume(struct kt_user_dev *udev, struct list_head *done)
{
	struct kt_user_ring *r = &udev->ring;
	struct tcmu_mailbox *mb = udev->mb;
	struct tcmu_cmd_entry ent;
	s64 dist;
	u32 len;

	if (test_bit(KT_USER_BROKEN, &udev->flags))
		return;
	dist = kt_user_tail_dist(r, READ_ONCE(mb->cmd_tail));
	if (dist < 0) {
		udev->bad_entries++;
		pr_warn_ratelimited("%s: the daemon's cmd_tail is no entry's end: ignored\n",
				    kt_user_name(udev));
		return;
	}
	/* the answers before the tail that shows them */
	smp_rmb();
	while (dist > 0) {
		void *p = udev->cmdr + r->last;
		u32 len_op = READ_ONCE(*(u32 *)p);

		switch (kt_user_entry_check(r, dist, len_op, &len)) {
		case KT_UENT_CMD:
			/* read once: the daemon may change it meanwhile */
			memcpy(&ent, p, sizeof(ent));
			kt_user_answer(udev, &ent, done);
			break;
		case KT_UENT_SKIP:
			break;
		default:
			set_bit(KT_USER_BROKEN, &udev->flags);
			udev->bad_entries++;
			pr_warn_ratelimited("%s: the ring holds no entry at %u (len_op %#x): stopped until reset_ring\n",
					    kt_user_name(udev), r->last, len_op);
			return;
		}
		r->last = (r->last + len) % r->size;
		dist -= len;
	}
}

/*
 * The answers on @done, taken out of the ring: a read's data out of its
 * blocks without udev->lock, then under it their blocks free and the
 * waiting commands in; then they end.
 */
static void kt_user_complete(struct kt_user_dev *udev, struct list_head *done)
{
	struct kt_user_cmd *ucmd;
	unsigned long flags;
	LIST_HEAD(fill);

	list_for_each_entry(ucmd, done, node)
		if (ucmd->copy_len)
			kt_user_data_copy(udev, ucmd, ucmd->cmd,
					  ucmd->copy_len, false);
	spin_lock_irqsave(&udev->lock, flags);
	list_for_each_entry(ucmd, done, node)
		kt_user_data_free(udev, ucmd);
	/* the timer is set for those still waiting, shown ones set it */
	if (udev->up && !test_bit(KT_USER_BROKEN, &udev->flags) &&
	    !test_bit(KT_USER_BLOCKED, &udev->flags))
		kt_user_run_qfull(udev, done, &fill, false);
	spin_unlock_irqrestore(&udev->lock, flags);
	kt_user_fill(udev, &fill);
	kt_user_finish(done);
}

/* The daemon's answers, then who waited for room: the kick's work. */
static void kt_user_handle_completions(struct kt_user_dev *udev)
{
	unsigned long flags;
	LIST_HEAD(done);

	spin_lock_irqsave(&udev->lock, flags);
	if (udev->up)
		kt_user_consume(udev, &done);
	spin_unlock_irqrestore(&udev->lock, flags);
	kt_user_complete(udev, &done);
}

static void kt_user_kick_fn(struct work_struct *work)
{
	kt_user_handle_completions(container_of(work, struct kt_user_dev,
						kick_work));
}

void kt_user_kick_init(struct kt_user_dev *udev)
{
	INIT_WORK(&udev->kick_work, kt_user_kick_fn);
}

/*
 * The daemon's kick (a write to the UIO device): its answers are taken,
 * copied and ended from a work item, not in its write(). The daemon's
 * thread goes back to its next command at once, and its other threads
 * poll the device meanwhile (UIO holds a mutex over both) - in LIO's
 * TCMU, as in a daemon with one I/O thread (tcmu-runner's file and qcow
 * handlers), the kernel's part of each command would otherwise be that
 * thread's too. Kicks while the work is pending make one run: answers
 * are consumed in batches.
 */
void kt_user_kick(struct kt_user_dev *udev)
{
	queue_work(kt_user_wq, &udev->kick_work);
}

int kt_user_ring_mod_init(void)
{
	/*
	 * Per CPU: the work runs on the CPU that kicked, taking the answers
	 * of every kick made before it started; unbound, woken on another
	 * CPU at each kick, it made 4k commands at QD32 slower
	 * (Documentation/benchmarks.md). Reclaim may wait on it.
	 */
	kt_user_wq = alloc_workqueue("kt_user", WQ_MEM_RECLAIM, 0);
	return kt_user_wq ? 0 : -ENOMEM;
}

void kt_user_ring_mod_exit(void)
{
	destroy_workqueue(kt_user_wq);
}

/* The reclaim work gave pages back: the waiting commands, if any, in. */
void kt_user_run_waiting(struct kt_user_dev *udev)
{
	unsigned long flags;
	LIST_HEAD(done);
	LIST_HEAD(fill);

	spin_lock_irqsave(&udev->lock, flags);
	if (udev->up && !test_bit(KT_USER_BROKEN, &udev->flags) &&
	    !test_bit(KT_USER_BLOCKED, &udev->flags)) {
		kt_user_run_qfull(udev, &done, &fill, false);
		kt_user_timer_arm(udev);
	}
	spin_unlock_irqrestore(&udev->lock, flags);
	kt_user_fill(udev, &fill);
	kt_user_finish(&done);
}

/*
 * action/reset_ring: every command in the ring ends (BUSY, which the
 * initiator retries, or with @hard LOGICAL UNIT COMMUNICATION FAILURE),
 * its blocks and cmd_id come back, and the ring starts empty; one whose
 * data is being copied in ends as its filler is done (orphan). The pages
 * of the blocks free then go back.
 */
void kt_user_reset_ring(struct kt_user_dev *udev, bool hard)
{
	struct tcmu_mailbox *mb = udev->mb;
	struct kt_user_cmd *ucmd;
	unsigned long flags, i;
	LIST_HEAD(done);
	LIST_HEAD(fill);

	/* the answers the daemon kicked before asking for the reset count */
	flush_work(&udev->kick_work);
	spin_lock_irqsave(&udev->lock, flags);
	if (!udev->up)
		goto out;
	xa_for_each(&udev->cmds, i, ucmd) {
		xa_erase(&udev->cmds, i);
		if (ucmd->state == KT_UCMD_PENDING && !ucmd->filled) {
			list_del_init(&ucmd->node);
			ucmd->orphan = true;
			ucmd->reason = hard ? KT_SENSE_LU_COMM_FAILURE :
					      KT_SENSE_OUT_OF_RESOURCES;
			continue;
		}
		kt_user_data_free(udev, ucmd);
		if (ucmd->state == KT_UCMD_EXPIRED) {
			kt_user_cmd_free(ucmd);
			continue;
		}
		list_del_init(&ucmd->node);
		ucmd->reason = hard ? KT_SENSE_LU_COMM_FAILURE :
				      KT_SENSE_OUT_OF_RESOURCES;
		list_add_tail(&ucmd->node, &done);
	}
	udev->ring.head = 0;
	udev->ring.last = 0;
	udev->ring.shown = 0;
	kt_user_mb_describe(udev);
	WRITE_ONCE(mb->cmd_head, 0);
	WRITE_ONCE(mb->cmd_tail, 0);
	clear_bit(KT_USER_BROKEN, &udev->flags);
	kt_user_run_qfull(udev, &done, &fill, false);
	kt_user_timer_arm(udev);
out:
	spin_unlock_irqrestore(&udev->lock, flags);
	kt_user_fill(udev, &fill);
	kt_user_finish(&done);
	/* its blocks are reserved meanwhile: who waited for them, in */
	if (kt_user_data_reclaim(udev))
		kt_user_run_waiting(udev);
}

/*
 * action/block_dev: while blocked, new commands are answered BUSY; at the
 * block, answers already written are taken and the waiting ones end BUSY.
 */
void kt_user_block(struct kt_user_dev *udev, bool block)
{
	unsigned long flags;
	LIST_HEAD(done);

	spin_lock_irqsave(&udev->lock, flags);
	if (!block) {
		clear_bit(KT_USER_BLOCKED, &udev->flags);
	} else if (!test_and_set_bit(KT_USER_BLOCKED, &udev->flags) &&
		   udev->up) {
		kt_user_consume(udev, &done);
		kt_user_run_qfull(udev, &done, NULL, true);
	}
	spin_unlock_irqrestore(&udev->lock, flags);
	kt_user_complete(udev, &done);
}
