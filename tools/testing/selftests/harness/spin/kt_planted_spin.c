// SPDX-License-Identifier: GPL-2.0
/*
 * A harness self-test, never part of ktarget: some seconds after it loads,
 * this module stops every CPU of the guest for good. stop_machine() runs
 * kt_planted_spin() on each CPU with interrupts off, and it never returns:
 * the hang that tools/testing/vm/run.sh must report by the test file's
 * name, with each vCPU's RIP mapped to kt_planted_spin.
 *
 * The delay lets the guest's heartbeat record where the module's text is.
 */
#include <linux/module.h>
#include <linux/stop_machine.h>
#include <linux/workqueue.h>

static unsigned int delay_ms = 8000;
module_param(delay_ms, uint, 0444);
MODULE_PARM_DESC(delay_ms, "how long after loading every CPU stops");

static int kt_planted_spin(void *unused)
{
	for (;;)
		cpu_relax();
	return 0;
}

static void kt_planted_stop(struct work_struct *work)
{
	pr_warn("kt_planted_spin: every CPU spins with interrupts off now\n");
	stop_machine(kt_planted_spin, NULL, cpu_online_mask);
}

static DECLARE_DELAYED_WORK(kt_planted_work, kt_planted_stop);

static int __init kt_planted_spin_init(void)
{
	schedule_delayed_work(&kt_planted_work, msecs_to_jiffies(delay_ms));
	return 0;
}

static void __exit kt_planted_spin_exit(void)
{
	cancel_delayed_work_sync(&kt_planted_work);
}

module_init(kt_planted_spin_init);
module_exit(kt_planted_spin_exit);
MODULE_DESCRIPTION("ktarget harness self-test: stop every CPU");
MODULE_LICENSE("GPL");
