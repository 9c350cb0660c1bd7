// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: /sys/kernel/debug/ktarget/commands, every command in
 * flight and where it waits. The harness prints it when a test overruns
 * its bound and the fuzzer when a health check fails: a command that no
 * longer moves shows its age, its flags and its LU's task set here.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/seq_file.h>

#include <ktarget/fabric.h>

#include "core.h"

static void kt_cmds_show_session(struct kt_session *sess, void *arg)
{
	struct seq_file *m = arg;
	struct kt_cmd *cmd;
	unsigned long flags;

	spin_lock_irqsave(&sess->cmd_lock, flags);
	seq_printf(m, "session %s\n", sess->initiator);
	list_for_each_entry(cmd, &sess->cmds, sess_node) {
		seq_printf(m, "  tag %#llx lun %llu op %#04x attr %d age %u ms flags %#lx refs %u data %u/%u%s\n",
			   cmd->tag, cmd->unpacked_lun, cmd->cdb[0],
			   cmd->task_attr,
			   jiffies_to_msecs(jiffies - cmd->start),
			   READ_ONCE(cmd->flags), kref_read(&cmd->kref),
			   cmd->data_received, cmd->data_length,
			   cmd->abort_tmr ? " aborted by a TMF" : "");
		if (cmd->dev)
			kt_task_set_show(m, cmd);
	}
	spin_unlock_irqrestore(&sess->cmd_lock, flags);
}

static int kt_cmds_show(struct seq_file *m, void *unused)
{
	kt_session_walk(kt_cmds_show_session, m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kt_cmds);

void kt_cmd_debugfs_init(struct dentry *root)
{
	debugfs_create_file("commands", 0400, root, NULL, &kt_cmds_fops);
}
