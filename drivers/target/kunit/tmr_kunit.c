// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: a task management function that meets a command on its way out
 * (tmr.c). The TMF takes a reference on each command it looks at, under
 * the session's cmd_lock; when the command has completed already, the
 * TMF lets it go again. If every other reference went meanwhile, the
 * TMF's is the last one, and the release it starts takes cmd_lock too:
 * it must not run while the TMF holds it (a CPU spinning on a lock it
 * holds, with interrupts off: the guest froze without a word).
 *
 * The race is made here on purpose: a kthread drops the command's last
 * other reference the moment it sees the TMF's, round after round. Once
 * for ABORT TASK in the issuer's own session, once for TARGET WARM RESET
 * reaching another session's command: that TMF walks the TPG's sessions
 * under its session_lock (a plain spinlock), where release_cmd may run
 * (fabric.h); never under the command's cmd_lock, nor with IRQs off.
 *
 * A third race: a command still running when the TMF marks it aborted may
 * end on another CPU the moment the mark shows (its backstore's end_io),
 * and kt_cmd_end_aborted() then reads which TMF to tell. A watcher reads
 * that the moment it sees KT_CMD_ABORTED, round after round.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/slab.h>

#include <ktarget/fabric.h>

#include "core.h"

#define KT_TMR_TEST_ROUNDS	1000

struct kt_tmr_partner;

struct kt_tmr_fixture {
	struct kt_fabric_ops	ops;
	struct kt_tpg		tpg;
	struct kt_session	sess;		/* the TMF's issuer */
	struct kt_session	other;		/* another initiator's */
	struct kt_cmd		cmd;
	struct kt_tmr		tmr;
	struct completion	released;	/* release_cmd() ran */
	struct completion	answered;	/* queue_tm_rsp() ran */
	struct completion	go;		/* the partner: a round begins */
	const struct kt_tmr_partner *partner;	/* what runs beside the TMF */
	struct task_struct	*tmf_task;	/* who runs the TMF */
	bool			by_tmf;		/* the TMF's put released it */
	bool			irqs_off;	/* ... under an irqsave lock */
	bool			stop;
	atomic_t		spinning;	/* the partner waits for its moment */
	atomic_t		tmf_done;	/* ... or for the TMF to return */
	struct completion	watched;	/* the watcher's round is over */
	atomic_t		seen;		/* rounds it saw the mark in */
	atomic_t		unowned;	/* ... with no TMF named yet */
};

/*
 * The kthread beside the TMF, round after round: from the round's start
 * it calls @spin until that returns true (or the TMF has returned, or a
 * million spins), then @done.
 */
struct kt_tmr_partner {
	const char	*name;
	bool		(*spin)(struct kt_tmr_fixture *f);
	void		(*done)(struct kt_tmr_fixture *f);
};

static struct kt_tmr_fixture *kt_tmr_test_f;

static void kt_tmr_test_release(struct kt_cmd *cmd)
{
	struct kt_tmr_fixture *f = kt_tmr_test_f;

	f->by_tmf = current == f->tmf_task;
	/* both putters run with interrupts on, unless under cmd_lock */
	f->irqs_off = irqs_disabled();
	complete(&f->released);
}

static void kt_tmr_test_tm_rsp(struct kt_tmr *tmr)
{
	complete(&kt_tmr_test_f->answered);
}

static void kt_tmr_test_aborted(struct kt_cmd *cmd)
{
}

static int kt_tmr_test_partner(void *arg)
{
	struct kt_tmr_fixture *f = arg;
	const struct kt_tmr_partner *p = f->partner;
	int spin;

	while (!READ_ONCE(f->stop)) {
		if (wait_for_completion_interruptible(&f->go) ||
		    READ_ONCE(f->stop))
			break;
		atomic_set(&f->spinning, 1);
		for (spin = 0; spin < 1000000; spin++) {
			if (p->spin(f) || atomic_read(&f->tmf_done))
				break;
			cpu_relax();
		}
		p->done(f);
	}
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 10);
	return 0;
}

/* @p runs beside the TMF of the test from its next round on */
static struct task_struct *kt_tmr_test_partner_run(struct kunit *test,
						   const struct kt_tmr_partner *p)
{
	struct kt_tmr_fixture *f = test->priv;
	struct task_struct *task;

	f->partner = p;
	task = kthread_run(kt_tmr_test_partner, f, "%s", p->name);
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	f->tmf_task = current;
	return task;
}

static void kt_tmr_test_partner_stop(struct kt_tmr_fixture *f,
				     struct task_struct *task)
{
	WRITE_ONCE(f->stop, true);
	complete(&f->go);
	kthread_stop(task);
}

/* The other holder: its put lands right after the TMF's get, or before */
static bool kt_tmr_test_drop_spin(struct kt_tmr_fixture *f)
{
	return kref_read(&f->cmd.kref) >= 2;
}

static void kt_tmr_test_drop_done(struct kt_tmr_fixture *f)
{
	kt_cmd_put(&f->cmd);
}

static const struct kt_tmr_partner kt_tmr_test_dropper = {
	.name	= "kt_tmr_dropper",
	.spin	= kt_tmr_test_drop_spin,
	.done	= kt_tmr_test_drop_done,
};

/*
 * A round: f->cmd of @victim (completed, or still running), then
 * @function from f->sess, submitted once the other kthread watches.
 */
static void kt_tmr_test_round(struct kt_tmr_fixture *f,
			      struct kt_session *victim, enum kt_tmf function,
			      int round, bool completed)
{
	unsigned long flags;
	int spin;

	kt_cmd_init(&f->cmd, &f->ops, victim, round, KT_DATA_NONE, 0,
		    KT_TASK_SIMPLE);
	if (completed)
		set_bit(KT_CMD_COMPLETE, &f->cmd.flags);
	spin_lock_irqsave(&victim->cmd_lock, flags);
	list_add_tail(&f->cmd.sess_node, &victim->cmds);
	spin_unlock_irqrestore(&victim->cmd_lock, flags);

	memset(&f->tmr, 0, sizeof(f->tmr));
	f->tmr.sess = &f->sess;
	f->tmr.function = function;
	f->tmr.ref_tag = round;
	reinit_completion(&f->released);
	reinit_completion(&f->answered);
	reinit_completion(&f->watched);
	atomic_set(&f->spinning, 0);
	atomic_set(&f->tmf_done, 0);
	complete(&f->go);
	for (spin = 0; spin < 1000000; spin++) {
		if (atomic_read(&f->spinning))
			break;
		cpu_relax();
	}
	kt_tmr_submit(&f->tmr);
	atomic_set(&f->tmf_done, 1);
}

/* The round's TMF has answered and its command is released, in time. */
static bool kt_tmr_test_round_ended(struct kunit *test,
				    struct kt_tmr_fixture *f, int round)
{
	if (wait_for_completion_timeout(&f->answered, 10 * HZ) &&
	    wait_for_completion_timeout(&f->released, 10 * HZ))
		return true;
	KUNIT_FAIL(test, "round %d: no answer or no release", round);
	/* nothing may run on the fixture once the test is over */
	flush_work(&f->tmr.work);
	wait_for_completion_timeout(&f->released, 60 * HZ);
	return false;
}

/* What a completion on another CPU reads the moment the mark shows */
static bool kt_tmr_test_watch_spin(struct kt_tmr_fixture *f)
{
	if (!test_bit(KT_CMD_ABORTED, &f->cmd.flags))
		return false;
	/* as kt_cmd_complete() orders its read */
	smp_mb__after_atomic();
	if (!READ_ONCE(f->cmd.abort_tmr))
		atomic_inc(&f->unowned);
	atomic_inc(&f->seen);
	return true;
}

static void kt_tmr_test_watch_done(struct kt_tmr_fixture *f)
{
	complete(&f->watched);
}

static const struct kt_tmr_partner kt_tmr_test_watcher = {
	.name	= "kt_tmr_watcher",
	.spin	= kt_tmr_test_watch_spin,
	.done	= kt_tmr_test_watch_done,
};

/*
 * ABORT TASK of a command still running: whoever sees it marked aborted
 * sees the TMF that marked it (before the fix the watcher found none in
 * some rounds; a completion there dereferenced NULL, in interrupt context).
 */
static void kt_tmr_test_abort_names_its_tmf(struct kunit *test)
{
	struct kt_tmr_fixture *f = test->priv;
	struct task_struct *watcher;
	int round;

	if (num_online_cpus() < 2)
		kunit_skip(test, "one CPU: nothing runs beside the TMF");
	watcher = kt_tmr_test_partner_run(test, &kt_tmr_test_watcher);

	for (round = 0; round < KT_TMR_TEST_ROUNDS; round++) {
		/* running: the core's reference only */
		kt_tmr_test_round(f, &f->sess, KT_TMF_ABORT_TASK, round, false);
		wait_for_completion(&f->watched);
		/* the command ends now; its end answers the TMF */
		if (READ_ONCE(f->cmd.abort_tmr))
			kt_cmd_complete(&f->cmd, KT_SENSE_NONE);
		if (!kt_tmr_test_round_ended(test, f, round))
			break;
		KUNIT_EXPECT_EQ(test, f->tmr.response, KT_TMR_COMPLETE);
		KUNIT_EXPECT_TRUE(test, list_empty(&f->sess.cmds));
	}
	kt_tmr_test_partner_stop(f, watcher);
	kunit_info(test, "%d of %d rounds: the mark seen while the TMF ran, %d of them naming no TMF\n",
		   atomic_read(&f->seen), round, atomic_read(&f->unowned));
	/* the case under test happened at all */
	KUNIT_EXPECT_GT(test, atomic_read(&f->seen), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->unowned), 0);
}

/* @function from f->sess, racing the last put of a command of @victim */
static void kt_tmr_test_race(struct kunit *test, enum kt_tmf function,
			     struct kt_session *victim, enum kt_tmf_rsp want)
{
	struct kt_tmr_fixture *f = test->priv;
	struct task_struct *dropper;
	int round, by_tmf = 0;

	/* the race needs a second CPU for the dropper */
	if (num_online_cpus() < 2)
		kunit_skip(test, "one CPU: nothing runs beside the TMF");
	dropper = kt_tmr_test_partner_run(test, &kt_tmr_test_dropper);

	for (round = 0; round < KT_TMR_TEST_ROUNDS; round++) {
		/* a command that has completed: only its response holds it */
		kt_tmr_test_round(f, victim, function, round, true);
		if (!kt_tmr_test_round_ended(test, f, round))
			break;
		KUNIT_EXPECT_EQ(test, f->tmr.response, want);
		KUNIT_EXPECT_FALSE_MSG(test, f->irqs_off,
				       "round %d: released with IRQs off (under cmd_lock)", round);
		KUNIT_EXPECT_TRUE(test, list_empty(&victim->cmds));
		by_tmf += f->by_tmf;
	}
	kt_tmr_test_partner_stop(f, dropper);
	kunit_info(test, "%d of %d rounds: the TMF held the last reference\n",
		   by_tmf, round);
	/* the case under test happened at all */
	KUNIT_EXPECT_GT(test, by_tmf, 0);
}

static void kt_tmr_test_last_put(struct kunit *test)
{
	struct kt_tmr_fixture *f = test->priv;

	kt_tmr_test_race(test, KT_TMF_ABORT_TASK, &f->sess,
			 KT_TMR_TASK_DOES_NOT_EXIST);
}

static void kt_tmr_test_last_put_other_session(struct kunit *test)
{
	struct kt_tmr_fixture *f = test->priv;

	kt_tmr_test_race(test, KT_TMF_TARGET_WARM_RESET, &f->other,
			 KT_TMR_COMPLETE);
}

static int kt_tmr_test_init(struct kunit *test)
{
	struct kt_tmr_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct kt_session *s;

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->ops.name = "kunit";
	f->ops.release_cmd = kt_tmr_test_release;
	f->ops.queue_tm_rsp = kt_tmr_test_tm_rsp;
	f->ops.aborted = kt_tmr_test_aborted;
	f->tpg.ops = &f->ops;
	mutex_init(&f->tpg.lock);
	xa_init(&f->tpg.luns);		/* no LUN: a reset raises no UA */
	INIT_LIST_HEAD(&f->tpg.sessions);
	spin_lock_init(&f->tpg.session_lock);
	for (s = &f->sess; s; s = s == &f->sess ? &f->other : NULL) {
		s->tpg = &f->tpg;
		spin_lock_init(&s->cmd_lock);
		spin_lock_init(&s->sgl_lock);
		INIT_LIST_HEAD(&s->cmds);
		list_add_tail(&s->node, &f->tpg.sessions);
	}
	init_completion(&f->released);
	init_completion(&f->answered);
	init_completion(&f->go);
	init_completion(&f->watched);
	kt_tmr_test_f = f;
	test->priv = f;
	return 0;
}

static struct kunit_case kt_tmr_test_cases[] = {
	KUNIT_CASE(kt_tmr_test_last_put),
	KUNIT_CASE(kt_tmr_test_last_put_other_session),
	KUNIT_CASE(kt_tmr_test_abort_names_its_tmf),
	{}
};

static struct kunit_suite kt_tmr_test_suite = {
	.name = "ktarget_tmr",
	.init = kt_tmr_test_init,
	.test_cases = kt_tmr_test_cases,
};

kunit_test_suite(kt_tmr_test_suite);
