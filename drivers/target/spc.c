// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: the primary commands (SPC-4) a logical unit, or the target
 * for an absent LUN, answers.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include <ktarget/fabric.h>
#include <ktarget/proto/cdb.h>

#include "core.h"

static sense_reason_t kt_spc_execute_good(struct kt_cmd *cmd)
{
	kt_cmd_complete(cmd, KT_SENSE_NONE);
	return KT_SENSE_NONE;
}

sense_reason_t kt_spc_parse(struct kt_cmd *cmd, const struct kt_cdb *c,
			    u32 *needed, enum kt_data_dir *dir)
{
	switch (c->opcode) {
	case 0x00:	/* TEST UNIT READY */
		if (!cmd->dev)
			return KT_SENSE_LUN_NOT_SUPPORTED;
		cmd->execute = kt_spc_execute_good;
		return KT_SENSE_NONE;
	}
	cmd->sense_field = KT_FIELD_CDB(0);
	return KT_SENSE_INVALID_OPCODE;
}
