// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: where a command goes on after the fabric hands it in, and
 * after its backstore is done with it - in the caller's context (direct)
 * or through the core's workqueue (queued). LIO's names and values (6.10:
 * attrib/submit_type; 7.1: attrib/complete_type):
 *
 *   attrib    0 the fabric's default   1 direct   2 queued
 *
 * Submission is the step from kt_cmd_run() or kt_cmd_data_out_done() to
 * kt_cmd_execute(): direct, the fabric's receive context (an iSCSI
 * connection's receive work, loopback's and vhost's work items, SRP's
 * receive path) runs the command into the backstore, where submit_bio()
 * may sleep for a block-layer tag and hold that connection's next PDUs
 * back; queued, a work item on kt_cmd_wq does it and the receive work
 * goes on reading. Completion is the step from a backstore's kt_be_done()
 * to the fabric's queue_data_in() / queue_status(): direct, from the bio's
 * end_io (or the backstore's work); queued, from a work item.
 *
 * A fabric states its defaults and whether its context can take a direct
 * call (struct kt_fabric_ops); where it cannot, direct is queued, as LIO
 * does. Every ktarget fabric submits from process context and answers
 * from any, so all default to direct and support it.
 *
 * Where the attributes do not reach: a HEAD OF QUEUE command is submitted
 * directly, since the task set runs it at once and a hop would queue it
 * behind SIMPLE ones; a command the task set held runs from the task
 * set's work item (already off the receive context), without a second
 * hop. The completion hop covers what ends in a backstore: kt_be_done()
 * and the last step of VERIFY, COMPARE AND WRITE and ORWRITE. Emulated
 * answers and refusals before any backstore call, WRITE SAME's end and
 * the copy and SANITIZE engines complete in the context they run in.
 *
 * Both work functions run with memalloc_noio: direct, execute and the
 * answer run inside the fabric's own no-I/O section (loopback's
 * kt_loop_submit()), and a hop must not lose that. A GFP_KERNEL
 * allocation on the way (the data buffer, a PR OUT's registration, COMPARE
 * AND WRITE's second buffer) could otherwise wait in reclaim for writeback
 * to a disk whose commands are queued behind this very worker.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/workqueue.h>

#include <ktarget/fabric.h>

#include "core.h"

/*
 * Per CPU, so a command stays on the CPU it came in on; a work item that
 * sleeps in the block layer lets the next run (concurrency managed). With
 * a rescuer: the writes of memory reclaim may go through here.
 */
static struct workqueue_struct *kt_cmd_wq;

/* direct or queued, for an attribute @attr and the fabric's defaults */
static bool kt_hop_queued(u32 attr, u8 fabric_default, bool no_direct)
{
	if (attr == KT_HOP_DEFAULT)
		attr = kt_fabric_hop_default(fabric_default);
	return attr == KT_HOP_QUEUED || no_direct;
}

static void kt_cmd_submit_work(struct work_struct *work)
{
	unsigned int noio = memalloc_noio_save();

	kt_cmd_execute(container_of(work, struct kt_cmd, hop_work));
	memalloc_noio_restore(noio);
}

void kt_cmd_submit(struct kt_cmd *cmd)
{
	const struct kt_fabric_ops *ops = cmd->ops;

	if (!cmd->dev || cmd->task_attr == KT_TASK_HEAD_OF_QUEUE ||
	    !kt_hop_queued(READ_ONCE(cmd->dev->attrib.submit_type),
			   ops->default_submit_type, ops->no_direct_submit)) {
		kt_cmd_execute(cmd);
		return;
	}
	INIT_WORK(&cmd->hop_work, kt_cmd_submit_work);
	queue_work(kt_cmd_wq, &cmd->hop_work);
}

static void kt_cmd_complete_work(struct work_struct *work)
{
	struct kt_cmd *cmd = container_of(work, struct kt_cmd, hop_work);
	unsigned int noio = memalloc_noio_save();

	kt_cmd_complete(cmd, cmd->hop_reason);
	memalloc_noio_restore(noio);
}

/*
 * kt_be_done() with no next step: complete @cmd with @reason here or from
 * a work item. The core's own commands (no fabric) go on at once.
 */
void kt_cmd_be_complete(struct kt_cmd *cmd, sense_reason_t reason)
{
	const struct kt_fabric_ops *ops = cmd->ops;

	if (!ops || !cmd->dev ||
	    !kt_hop_queued(READ_ONCE(cmd->dev->attrib.complete_type),
			   ops->default_complete_type,
			   ops->no_direct_complete)) {
		kt_cmd_complete(cmd, reason);
		return;
	}
	/*
	 * hop_work may be the item running now (kt_cmd_submit_work() into a
	 * backstore that ends at once, rd): the workqueue is done with an
	 * item once its function runs, so it may be set up and queued anew.
	 */
	cmd->hop_reason = reason;
	INIT_WORK(&cmd->hop_work, kt_cmd_complete_work);
	queue_work(kt_cmd_wq, &cmd->hop_work);
}

int kt_cmd_hop_init(void)
{
	kt_cmd_wq = alloc_workqueue("kt_cmd", WQ_MEM_RECLAIM, 0);
	return kt_cmd_wq ? 0 : -ENOMEM;
}

void kt_cmd_hop_exit(void)
{
	destroy_workqueue(kt_cmd_wq);
}
