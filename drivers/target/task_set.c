// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: task attributes (SAM-5 8.6) in the LU's one task set.
 *
 * A command enters the task set once the fabric has received it whole
 * (kt_cmd_run()), in the order the fabric delivers commands (CmdSN order
 * for iSCSI), and leaves it when it completes or its abort ends: a command
 * still arriving holds nobody back. Its Data-Out transfer is not held
 * back; only its execution is:
 *
 *   SIMPLE         runs unless an ORDERED command came before it and has
 *                  not completed
 *   ORDERED        runs once every command that came before it has
 *                  completed; holds back every SIMPLE and ORDERED after it
 *   HEAD OF QUEUE  runs at once
 *   ACA            no ACA condition is ever established (NACA is 0):
 *                  taken as SIMPLE
 *
 * Initiators rarely send anything but SIMPLE, so that path takes no lock:
 * a command holds a reference on the percpu @ref. The first ORDERED
 * command kills the reference and from then on every command of the LU
 * enters under @lock, counted in nr_running or held in arrival order. The
 * ORDERED one runs when @ref has drained and nothing counted is running.
 * When nothing is held any more, a work item revives @ref.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>

#include <ktarget/fabric.h>

#include "core.h"

enum {
	KT_TS_NONE,		/* outside the task set */
	KT_TS_FAST,		/* holds a reference on ts->ref */
	KT_TS_RUNNING,		/* counted in ts->nr_running */
	KT_TS_HELD,		/* on ts->held */
	KT_TS_LEFT,		/* ended: it never enters again */
};

static struct workqueue_struct *kt_task_set_wq;

static struct kt_task_set *kt_ts(struct kt_cmd *cmd)
{
	return &cmd->dev->state->task_set;
}

/* The last command let in lock-free has left. */
static void kt_ts_drained(struct percpu_ref *ref)
{
	struct kt_task_set *ts = container_of(ref, struct kt_task_set, ref);
	unsigned long flags;

	spin_lock_irqsave(&ts->lock, flags);
	ts->drained = true;
	spin_unlock_irqrestore(&ts->lock, flags);
	queue_work(kt_task_set_wq, &ts->work);
}

/*
 * Move what may run now from the head of ts->held to @run: SIMPLE
 * commands up to the next ORDERED one, or that ORDERED one once all
 * before it are done. Under ts->lock.
 */
static void kt_ts_pick(struct kt_task_set *ts, struct list_head *run)
{
	struct kt_cmd *cmd, *tmp;

	list_for_each_entry_safe(cmd, tmp, &ts->held, ts_node) {
		if (ts->ordered_running)
			return;
		if (cmd->task_attr == KT_TASK_ORDERED) {
			if (!ts->drained || ts->nr_running)
				return;
			ts->ordered_running = true;
		}
		list_del_init(&cmd->ts_node);
		WRITE_ONCE(cmd->ts_state, KT_TS_RUNNING);
		ts->nr_running++;
		/* one still waiting for its data runs when the data is in */
		if (cmd->ts_ready)
			list_add_tail(&cmd->ts_node, run);
	}
}

static void kt_ts_work(struct work_struct *work)
{
	struct kt_task_set *ts = container_of(work, struct kt_task_set, work);
	struct kt_cmd *cmd, *tmp;
	LIST_HEAD(run);
	bool revive;

	spin_lock_irq(&ts->lock);
	kt_ts_pick(ts, &run);
	revive = ts->slow && ts->drained && !ts->ordered_running &&
		 list_empty(&ts->held);
	if (revive)
		ts->drained = false;
	spin_unlock_irq(&ts->lock);

	list_for_each_entry_safe(cmd, tmp, &run, ts_node) {
		list_del_init(&cmd->ts_node);
		kt_cmd_execute(cmd);
	}
	if (!revive)
		return;

	/*
	 * Commands counted in nr_running may still run: an ORDERED one
	 * waits for them as for the reference. Until slow is cleared,
	 * newcomers still go by the lock; an ORDERED one among them kills
	 * the reference again.
	 */
	percpu_ref_resurrect(&ts->ref);
	spin_lock_irq(&ts->lock);
	if (list_empty(&ts->held))
		ts->slow = false;
	else
		percpu_ref_kill(&ts->ref);
	spin_unlock_irq(&ts->lock);
}

/*
 * The command takes the reference it holds. It may have ended while the
 * fabric was handing it in (an abort from another connection ends a
 * WRITE waiting for its Data-Out): then kt_task_set_leave() has passed
 * already, and it must not enter.
 */
static void kt_ts_enter_fast(struct kt_task_set *ts, struct kt_cmd *cmd)
{
	if (cmpxchg(&cmd->ts_state, KT_TS_NONE, KT_TS_FAST) != KT_TS_NONE)
		percpu_ref_put(&ts->ref);
}

/*
 * The command has passed the core's checks and is received whole: it
 * enters the task set. Only commands to an LU do; the core's own commands
 * never come here.
 */
void kt_task_set_enter(struct kt_cmd *cmd)
{
	struct kt_task_set *ts = kt_ts(cmd);
	unsigned long flags;

	if (cmd->task_attr != KT_TASK_ORDERED &&
	    percpu_ref_tryget_live(&ts->ref)) {
		kt_ts_enter_fast(ts, cmd);
		return;
	}

	spin_lock_irqsave(&ts->lock, flags);
	if (!ts->slow) {
		/* revived since the try: the reference is live again */
		if (cmd->task_attr != KT_TASK_ORDERED &&
		    percpu_ref_tryget_live(&ts->ref)) {
			kt_ts_enter_fast(ts, cmd);
			goto out;
		}
		/*
		 * The first ORDERED command: no confirmation of an earlier
		 * switch can be pending (the reference was revived, or never
		 * killed), so this does not sleep.
		 */
		ts->slow = true;
		percpu_ref_kill(&ts->ref);
	}
	if (cmd->task_attr == KT_TASK_HEAD_OF_QUEUE ||
	    (cmd->task_attr != KT_TASK_ORDERED && !ts->ordered_running &&
	     list_empty(&ts->held))) {
		if (cmpxchg(&cmd->ts_state, KT_TS_NONE, KT_TS_RUNNING) ==
		    KT_TS_NONE)
			ts->nr_running++;
	} else if (cmpxchg(&cmd->ts_state, KT_TS_NONE, KT_TS_HELD) ==
		   KT_TS_NONE) {
		/*
		 * An abort that claimed it just now saw it outside, or will
		 * see it held (either cmpxchg orders its write before its
		 * read): one aborted need not wait for its turn.
		 */
		if (test_bit(KT_CMD_ABORTED, &cmd->flags)) {
			WRITE_ONCE(cmd->ts_state, KT_TS_NONE);
			goto out;
		}
		cmd->ts_ready = false;
		list_add_tail(&cmd->ts_node, &ts->held);
		/* an ORDERED one at the head may run if all is drained */
		queue_work(kt_task_set_wq, &ts->work);
	}
out:
	spin_unlock_irqrestore(&ts->lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(kt_task_set_enter);

/*
 * The command is ready to run (its data is in). False when the task set
 * holds it; it then runs from the task set's work.
 */
bool kt_task_set_may_run(struct kt_cmd *cmd)
{
	struct kt_task_set *ts;
	unsigned long flags;
	bool held;

	if (likely(READ_ONCE(cmd->ts_state) != KT_TS_HELD))
		return true;
	ts = kt_ts(cmd);
	spin_lock_irqsave(&ts->lock, flags);
	held = cmd->ts_state == KT_TS_HELD;
	if (held)
		cmd->ts_ready = true;
	spin_unlock_irqrestore(&ts->lock, flags);
	return !held;
}

/* The command has completed, or its abort has ended: it leaves. */
void kt_task_set_leave(struct kt_cmd *cmd)
{
	struct kt_task_set *ts;
	unsigned long flags;
	unsigned int st = READ_ONCE(cmd->ts_state);

	/* not in it (no LU, or not received whole): it never enters now */
	if (st == KT_TS_NONE) {
		st = cmpxchg(&cmd->ts_state, KT_TS_NONE, KT_TS_LEFT);
		if (st == KT_TS_NONE)
			return;
	}
	switch (st) {
	case KT_TS_LEFT:
		return;
	case KT_TS_FAST:
		WRITE_ONCE(cmd->ts_state, KT_TS_LEFT);
		percpu_ref_put(&cmd->dev->state->task_set.ref);
		return;
	}
	ts = kt_ts(cmd);
	spin_lock_irqsave(&ts->lock, flags);
	/* an abort may have taken it off the held list meanwhile */
	if (cmd->ts_state == KT_TS_HELD) {
		list_del_init(&cmd->ts_node);
	} else if (cmd->ts_state == KT_TS_RUNNING) {
		ts->nr_running--;
		if (cmd->task_attr == KT_TASK_ORDERED)
			ts->ordered_running = false;
	}
	WRITE_ONCE(cmd->ts_state, KT_TS_LEFT);
	spin_unlock_irqrestore(&ts->lock, flags);
	queue_work(kt_task_set_wq, &ts->work);
}
EXPORT_SYMBOL_IF_KUNIT(kt_task_set_leave);

/*
 * A TMF has aborted the command: it need not wait for its turn to end. It
 * leaves the held list and ends at its next stage, at once if its data is
 * in.
 */
void kt_task_set_abort(struct kt_cmd *cmd)
{
	struct kt_task_set *ts;
	unsigned long flags;
	bool held = false, run = false;

	if (READ_ONCE(cmd->ts_state) != KT_TS_HELD)
		return;
	ts = kt_ts(cmd);
	spin_lock_irqsave(&ts->lock, flags);
	if (cmd->ts_state == KT_TS_HELD) {
		list_del_init(&cmd->ts_node);
		WRITE_ONCE(cmd->ts_state, KT_TS_NONE);
		held = true;
		run = cmd->ts_ready;
	}
	spin_unlock_irqrestore(&ts->lock, flags);
	/* what it held back may run now, whether or not its data is in */
	if (held)
		queue_work(kt_task_set_wq, &ts->work);
	if (run)
		kt_cmd_execute(cmd);
}
EXPORT_SYMBOL_IF_KUNIT(kt_task_set_abort);

/* For /sys/kernel/debug/ktarget/commands: a snapshot, read unlocked. */
void kt_task_set_show(struct seq_file *m, struct kt_cmd *cmd)
{
	static const char *const state[] = {
		[KT_TS_NONE] = "outside", [KT_TS_FAST] = "fast",
		[KT_TS_RUNNING] = "running", [KT_TS_HELD] = "held",
		[KT_TS_LEFT] = "left",
	};
	struct kt_task_set *ts = kt_ts(cmd);
	unsigned int st = READ_ONCE(cmd->ts_state);

	seq_printf(m, "    task set: %s%s; LU: slow %d drained %d ordered running %d, %u running, %s\n",
		   st < ARRAY_SIZE(state) ? state[st] : "?",
		   READ_ONCE(cmd->ts_ready) ? " (data in)" : "",
		   READ_ONCE(ts->slow), READ_ONCE(ts->drained),
		   READ_ONCE(ts->ordered_running), READ_ONCE(ts->nr_running),
		   list_empty(&ts->held) ? "none held" : "some held");
}

int kt_task_set_dev_init(struct kt_dev *dev)
{
	struct kt_task_set *ts = &dev->state->task_set;

	spin_lock_init(&ts->lock);
	INIT_LIST_HEAD(&ts->held);
	INIT_WORK(&ts->work, kt_ts_work);
	return percpu_ref_init(&ts->ref, kt_ts_drained, PERCPU_REF_ALLOW_REINIT,
			       GFP_KERNEL);
}
EXPORT_SYMBOL_IF_KUNIT(kt_task_set_dev_init);

/* No command is left: the LU's LUNs are gone. */
void kt_task_set_dev_exit(struct kt_dev *dev)
{
	struct kt_task_set *ts = &dev->state->task_set;

	/*
	 * An ORDERED command's kill of @ref ends in an RCU callback that
	 * may call kt_ts_drained() and queue ts->work: wait for both.
	 */
	rcu_barrier();
	flush_work(&ts->work);
	WARN_ON_ONCE(!list_empty(&ts->held) || ts->nr_running);
	percpu_ref_exit(&ts->ref);
}
EXPORT_SYMBOL_IF_KUNIT(kt_task_set_dev_exit);

int kt_task_set_init(void)
{
	kt_task_set_wq = alloc_workqueue("kt_task_set",
					 WQ_MEM_RECLAIM | WQ_UNBOUND, 0);
	return kt_task_set_wq ? 0 : -ENOMEM;
}

void kt_task_set_exit(void)
{
	destroy_workqueue(kt_task_set_wq);
}
