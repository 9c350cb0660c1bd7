// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: which code runs a command. Block commands go to sbc.c,
 * primary commands to spc.c; commands that need no logical unit (REPORT
 * LUNS, INQUIRY and REQUEST SENSE to an absent LUN) are answered for the
 * target itself.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include <ktarget/fabric.h>
#include <ktarget/proto/cdb.h>
#include <ktarget/proto/spc.h>

#include "core.h"

sense_reason_t kt_exec_parse(struct kt_cmd *cmd, const struct kt_cdb *c,
			     u32 *needed, enum kt_data_dir *dir)
{
	struct kt_lu_info lu;
	sense_reason_t reason;

	/*
	 * Every CDB is checked against what ktarget implements first:
	 * supported opcode and service action, reserved bits, CONTROL byte.
	 */
	kt_lu_info_fill(cmd, &lu);
	reason = kt_spc_check_cdb(&lu, cmd->cdb, c->len, &cmd->sense_field);
	if (reason)
		return reason;

	/* spc.c answers what needs no LU, and the LU-less case of the rest */
	reason = kt_spc_parse(cmd, c, needed, dir);
	if (reason != KT_SENSE_INVALID_OPCODE) {
		cmd->data_in_built = *dir == KT_DATA_IN;
		return reason;
	}
	/* SPC-4 4.6.5: a LUN this nexus cannot address */
	if (!cmd->dev)
		return KT_SENSE_LUN_NOT_SUPPORTED;
	return kt_sbc_parse(cmd, c, needed, dir);
}
