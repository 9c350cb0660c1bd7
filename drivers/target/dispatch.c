// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: which code takes a command on. The command table
 * (proto/cdb.c) names it for every command: block commands go to sbc.c,
 * reservations to pr.c and reserve.c, SANITIZE to sanitize.c, what the
 * core answers itself to spc.c. Commands that need no logical unit (REPORT
 * LUNS, INQUIRY and REQUEST SENSE to an absent LUN) are answered for the
 * target itself.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include <ktarget/fabric.h>
#include <ktarget/proto/cdb.h>
#include <ktarget/proto/spc.h>

#include "core.h"
#include "pr/pr.h"
#include "scsi/cmdsets.h"

typedef sense_reason_t (*kt_parse_fn)(struct kt_cmd *cmd,
				     const struct kt_cdb *c, u32 *needed,
				     enum kt_data_dir *dir);

/* Who takes each kind of command on (kt_cdb_desc.run, proto/cdb.c) */
static const kt_parse_fn kt_parse_of[KT_RUN_NR] = {
	[KT_RUN_GOOD]		= kt_spc_parse,
	[KT_RUN_REQUEST_SENSE]	= kt_spc_parse,
	[KT_RUN_INQUIRY]	= kt_spc_parse,
	[KT_RUN_REPORT_LUNS]	= kt_spc_parse,
	[KT_RUN_MODE_SENSE]	= kt_spc_parse,
	[KT_RUN_MODE_SELECT]	= kt_spc_parse,
	[KT_RUN_READ_CAPACITY]	= kt_spc_parse,
	[KT_RUN_READ_DEFECT]	= kt_spc_parse,
	[KT_RUN_GET_LBA_STATUS]	= kt_spc_parse,
	[KT_RUN_RSOC]		= kt_spc_parse,
	[KT_RUN_RSTMF]		= kt_spc_parse,
	[KT_RUN_RTPG]		= kt_spc_parse,
	[KT_RUN_STPG]		= kt_spc_parse,
	[KT_RUN_XCOPY]		= kt_spc_parse,
	[KT_RUN_RECEIVE_COPY]	= kt_spc_parse,
	[KT_RUN_POPULATE_TOKEN]	= kt_spc_parse,
	[KT_RUN_WRITE_USING_TOKEN] = kt_spc_parse,
	[KT_RUN_RESERVE]	= kt_reserve_parse,
	[KT_RUN_PR]		= kt_pr_parse,
	[KT_RUN_RW]		= kt_sbc_parse_rw,
	[KT_RUN_VERIFY]		= kt_sbc_parse_verify,
	[KT_RUN_CAW]		= kt_sbc_parse_caw,
	[KT_RUN_ORWRITE]	= kt_sbc_parse_orwrite,
	[KT_RUN_PRE_FETCH]	= kt_sbc_parse_pre_fetch,
	[KT_RUN_SYNC_CACHE]	= kt_sbc_parse_sync,
	[KT_RUN_WRITE_SAME]	= kt_sbc_parse_write_same,
	[KT_RUN_UNMAP]		= kt_sbc_parse_unmap,
	[KT_RUN_SANITIZE]	= kt_sanitize_parse,
};

sense_reason_t kt_exec_parse(struct kt_cmd *cmd, const struct kt_cdb *c,
			     u32 *needed, enum kt_data_dir *dir)
{
	const struct kt_cdb_desc *d = c->desc;
	struct kt_lu_info lu;
	sense_reason_t reason;

	/*
	 * Every CDB is checked against what ktarget implements first:
	 * supported opcode and service action, reserved bits, CONTROL byte.
	 * A command that passes has its descriptor.
	 */
	kt_lu_info_fill(cmd, &lu);
	reason = kt_spc_check_desc(&lu, d, cmd->cdb, c->len, &cmd->sense_field);
	if (reason)
		return reason;

	/* SPC-4 4.6.5: a LUN this nexus cannot address */
	if (!cmd->dev && !(d->flags & KT_CDB_D_NO_LU))
		return KT_SENSE_LUN_NOT_SUPPORTED;
	if (d->flags & KT_CDB_D_MEDIUM) {
		reason = kt_sanitize_medium_check(cmd);
		if (reason)
			return reason;
	}
	if (WARN_ON_ONCE(!kt_parse_of[d->run])) {
		cmd->sense_field = KT_FIELD_CDB(0);
		return KT_SENSE_INVALID_OPCODE;
	}
	reason = kt_parse_of[d->run](cmd, c, needed, dir);
	/* the core builds what a command returns, unless it is blocks */
	cmd->data_in_built = *dir == KT_DATA_IN &&
			     !(d->flags & KT_CDB_D_BLOCKS_IN);
	return reason;
}
