// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: task attributes in the LU's task set (task_set.c, SAM-5 8.6),
 * and a command's one way to end (kt_cmd_claim()). Commands here execute
 * into a log of their names; the test completes them by hand.
 */
#include <kunit/test.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include <ktarget/fabric.h>

#include "core.h"
#include "dev_state.h"

#define KT_TS_TEST_CMDS	6

struct kt_ts_fixture;

struct kt_ts_test_cmd {
	struct kt_cmd		cmd;
	struct kt_ts_fixture	*f;
	char			name;
};

struct kt_ts_fixture {
	struct kt_dev		dev;
	struct kt_dev_state	state;
	struct kt_ts_test_cmd	c[KT_TS_TEST_CMDS];
	spinlock_t		lock;		/* ran, nr_ran */
	char			ran[KT_TS_TEST_CMDS + 1];
	int			nr_ran;
};

/* cmd->execute: the order commands run in, "" while none has */
static void kt_ts_test_execute(struct kt_cmd *cmd)
{
	struct kt_ts_test_cmd *c = container_of(cmd, struct kt_ts_test_cmd,
						cmd);
	struct kt_ts_fixture *f = c->f;
	unsigned long flags;

	spin_lock_irqsave(&f->lock, flags);
	if (f->nr_ran < KT_TS_TEST_CMDS)
		f->ran[f->nr_ran++] = c->name;
	spin_unlock_irqrestore(&f->lock, flags);
}

/* What the task set's work and the reference's switch had to do is done */
static void kt_ts_test_settle(struct kt_ts_fixture *f)
{
	int i;

	for (i = 0; i < 3; i++) {
		rcu_barrier();
		flush_work(&f->state.task_set.work);
	}
}

static const char *kt_ts_test_ran(struct kt_ts_fixture *f)
{
	kt_ts_test_settle(f);
	return f->ran;
}

/* A command named @name with @attr enters the task set, data to come */
static struct kt_cmd *kt_ts_test_enter(struct kt_ts_fixture *f, int i,
				       char name, enum kt_task_attr attr)
{
	struct kt_ts_test_cmd *c = &f->c[i];

	c->f = f;
	c->name = name;
	c->cmd.dev = &f->dev;
	c->cmd.task_attr = attr;
	c->cmd.execute = kt_ts_test_execute;
	INIT_LIST_HEAD(&c->cmd.ts_node);
	kt_task_set_enter(&c->cmd);
	return &c->cmd;
}

static int kt_ts_test_init(struct kunit *test)
{
	struct kt_ts_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->dev.state = &f->state;
	spin_lock_init(&f->lock);
	KUNIT_ASSERT_EQ(test, kt_task_set_dev_init(&f->dev), 0);
	/* only now: exit runs when init fails too, and has nothing to undo */
	test->priv = f;
	return 0;
}

static void kt_ts_test_exit(struct kunit *test)
{
	struct kt_ts_fixture *f = test->priv;

	if (!f)
		return;
	kt_ts_test_settle(f);
	kt_task_set_dev_exit(&f->dev);
}

static void kt_ts_simple_commands_run_as_they_come(struct kunit *test)
{
	struct kt_ts_fixture *f = test->priv;
	struct kt_cmd *a = kt_ts_test_enter(f, 0, 'a', KT_TASK_SIMPLE);
	struct kt_cmd *b = kt_ts_test_enter(f, 1, 'b', KT_TASK_SIMPLE);

	/* data phases end in any order; SIMPLE ones run as theirs do */
	kt_cmd_execute(b);
	kt_cmd_execute(a);
	KUNIT_EXPECT_STREQ(test, kt_ts_test_ran(f), "ba");
	KUNIT_EXPECT_FALSE(test, f->state.task_set.slow);
	kt_task_set_leave(a);
	kt_task_set_leave(b);
}

/*
 * SIMPLE s1, ORDERED o2, SIMPLE s3, HEAD OF QUEUE h4, their data all in:
 * s1 and h4 run; o2 once both have completed; s3 once o2 has.
 */
static void kt_ts_ordered_waits_and_holds_back(struct kunit *test)
{
	struct kt_ts_fixture *f = test->priv;
	struct kt_cmd *s1 = kt_ts_test_enter(f, 0, '1', KT_TASK_SIMPLE);
	struct kt_cmd *o2 = kt_ts_test_enter(f, 1, '2', KT_TASK_ORDERED);
	struct kt_cmd *s3 = kt_ts_test_enter(f, 2, '3', KT_TASK_SIMPLE);
	struct kt_cmd *h4 = kt_ts_test_enter(f, 3, '4', KT_TASK_HEAD_OF_QUEUE);

	kt_cmd_execute(s1);
	kt_cmd_execute(o2);
	kt_cmd_execute(s3);
	kt_cmd_execute(h4);
	KUNIT_EXPECT_STREQ(test, kt_ts_test_ran(f), "14");

	kt_task_set_leave(s1);
	KUNIT_EXPECT_STREQ(test, kt_ts_test_ran(f), "14");
	kt_task_set_leave(h4);
	KUNIT_EXPECT_STREQ(test, kt_ts_test_ran(f), "142");
	kt_task_set_leave(o2);
	KUNIT_EXPECT_STREQ(test, kt_ts_test_ran(f), "1423");
	kt_task_set_leave(s3);
	kt_ts_test_settle(f);
	/* nothing held: the lock-free path is back */
	KUNIT_EXPECT_FALSE(test, f->state.task_set.slow);
}

/* A held command whose data is still coming runs once it is in */
static void kt_ts_held_command_runs_when_its_data_is_in(struct kunit *test)
{
	struct kt_ts_fixture *f = test->priv;
	struct kt_cmd *o1 = kt_ts_test_enter(f, 0, 'o', KT_TASK_ORDERED);
	struct kt_cmd *s2 = kt_ts_test_enter(f, 1, 's', KT_TASK_SIMPLE);

	kt_cmd_execute(o1);
	KUNIT_EXPECT_STREQ(test, kt_ts_test_ran(f), "o");
	kt_task_set_leave(o1);
	/* its turn has come, its data has not */
	KUNIT_EXPECT_STREQ(test, kt_ts_test_ran(f), "o");
	kt_cmd_execute(s2);
	KUNIT_EXPECT_STREQ(test, kt_ts_test_ran(f), "os");
	kt_task_set_leave(s2);
}

/*
 * x (SIMPLE) and y (ORDERED) end before they enter: an abort from another
 * connection ended them while the fabric handed them in. They must stay
 * out: an ORDERED o after them runs at once, and nothing is left counted.
 */
static void kt_ts_command_ended_before_entering_stays_out(struct kunit *test)
{
	struct kt_ts_fixture *f = test->priv;
	struct kt_cmd *x = &f->c[0].cmd, *y = &f->c[1].cmd, *o;

	x->dev = &f->dev;
	y->dev = &f->dev;
	x->task_attr = KT_TASK_SIMPLE;
	y->task_attr = KT_TASK_ORDERED;
	INIT_LIST_HEAD(&x->ts_node);
	INIT_LIST_HEAD(&y->ts_node);
	kt_task_set_leave(x);
	kt_task_set_leave(y);
	kt_task_set_enter(x);
	kt_task_set_enter(y);

	o = kt_ts_test_enter(f, 2, 'o', KT_TASK_ORDERED);
	kt_cmd_execute(o);
	KUNIT_EXPECT_STREQ(test, kt_ts_test_ran(f), "o");
	KUNIT_EXPECT_EQ(test, f->state.task_set.nr_running, 1U);
	kt_task_set_leave(o);
	kt_ts_test_settle(f);
	KUNIT_EXPECT_EQ(test, f->state.task_set.nr_running, 0U);
	KUNIT_EXPECT_TRUE(test, list_empty(&f->state.task_set.held));
}

/*
 * SIMPLE w runs; ORDERED o is held, its data still coming; SIMPLE s is
 * held behind o, its data in. An abort takes o out: s must run now, not
 * once w has ended.
 */
static void kt_ts_abort_of_a_held_command_lets_the_next_run(struct kunit *test)
{
	struct kt_ts_fixture *f = test->priv;
	struct kt_cmd *w = kt_ts_test_enter(f, 0, 'w', KT_TASK_SIMPLE);
	struct kt_cmd *o = kt_ts_test_enter(f, 1, 'o', KT_TASK_ORDERED);
	struct kt_cmd *s = kt_ts_test_enter(f, 2, 's', KT_TASK_SIMPLE);

	kt_cmd_execute(w);
	kt_cmd_execute(s);
	KUNIT_EXPECT_STREQ(test, kt_ts_test_ran(f), "w");
	set_bit(KT_CMD_ABORTED, &o->flags);
	kt_task_set_abort(o);
	KUNIT_EXPECT_STREQ(test, kt_ts_test_ran(f), "ws");
	kt_task_set_leave(o);
	kt_task_set_leave(s);
	kt_task_set_leave(w);
}

/* kt_cmd_claim(): completed or aborted, never both */
static void kt_cmd_claim_is_once(struct kunit *test)
{
	struct kt_cmd cmd = {};

	KUNIT_EXPECT_TRUE(test, kt_cmd_claim(&cmd, KT_CMD_COMPLETE));
	KUNIT_EXPECT_FALSE(test, kt_cmd_claim(&cmd, KT_CMD_ABORTED));
	KUNIT_EXPECT_FALSE(test, kt_cmd_claim(&cmd, KT_CMD_COMPLETE));

	cmd.flags = 0;
	KUNIT_EXPECT_TRUE(test, kt_cmd_claim(&cmd, KT_CMD_ABORTED));
	KUNIT_EXPECT_FALSE(test, kt_cmd_claim(&cmd, KT_CMD_COMPLETE));
	KUNIT_EXPECT_TRUE(test, test_bit(KT_CMD_ABORTED, &cmd.flags));
	KUNIT_EXPECT_FALSE(test, test_bit(KT_CMD_COMPLETE, &cmd.flags));
}

static struct kunit_case kt_ts_cases[] = {
	KUNIT_CASE(kt_ts_simple_commands_run_as_they_come),
	KUNIT_CASE(kt_ts_ordered_waits_and_holds_back),
	KUNIT_CASE(kt_ts_held_command_runs_when_its_data_is_in),
	KUNIT_CASE(kt_ts_command_ended_before_entering_stays_out),
	KUNIT_CASE(kt_ts_abort_of_a_held_command_lets_the_next_run),
	{}
};

static struct kunit_suite kt_ts_suite = {
	.name = "ktarget_task_set",
	.init = kt_ts_test_init,
	.exit = kt_ts_test_exit,
	.test_cases = kt_ts_cases,
};

static struct kunit_case kt_cmd_cases[] = {
	KUNIT_CASE(kt_cmd_claim_is_once),
	{}
};

static struct kunit_suite kt_cmd_suite = {
	.name = "ktarget_cmd",
	.test_cases = kt_cmd_cases,
};

kunit_test_suites(&kt_ts_suite, &kt_cmd_suite);
