// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: which code takes a command on. The command table
 * (proto/cdb.c) gives every command a kind (.run), and kt_runs[] below
 * names, for each kind, the function of its family: block commands go to
 * sbc.c, reservations to pr.c and reserve.c, SANITIZE to sanitize.c,
 * FORMAT UNIT to format.c,
 * a CD/DVD LU's MMC commands to mmc.c,
 * target port groups to alua.c, copy offload to copy/, and the rest of
 * what the core answers itself to spc.c. This is the one file that names
 * them all. Commands that need no logical unit (REPORT LUNS, INQUIRY and
 * REQUEST SENSE to an absent LUN) are answered for the target itself.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/sizes.h>

#include <ktarget/backend.h>
#include <ktarget/fabric.h>
#include <ktarget/proto/cdb.h>
#include <ktarget/proto/spc.h>

#include "alua/alua.h"
#include "copy/rod.h"
#include "copy/xcopy.h"
#include "core.h"
#include "pr/pr.h"
#include "scsi/cmdsets.h"

typedef sense_reason_t (*kt_parse_fn)(struct kt_cmd *cmd,
				     const struct kt_cdb *c, u32 *needed,
				     enum kt_data_dir *dir);

/*
 * What takes one kind of command on. A family that decodes the CDB
 * further has a parser (@parse), which sets the data phase and
 * cmd->execute. A command the core answers without one is set up by
 * kt_run_setup() and run by @exec, or, when it only returns data the core
 * builds, by kt_spc_run_builder() with @build, up to @max_data bytes of it
 * (64 KiB if 0). Such a command may bound its parameter list: one longer
 * than @max_param is answered @too_long.
 */
struct kt_run {
	kt_parse_fn	parse;
	void		(*exec)(struct kt_cmd *cmd);
	kt_builder_t	build;
	u32		max_data;	/* the longest data-in built, or 0 */
	u32		max_param;	/* the longest parameter list taken, or 0 */
	sense_reason_t	too_long;	/* the answer to a longer one */
};

/* Who takes each kind of command on (kt_cdb_desc.run, proto/cdb.c) */
static const struct kt_run kt_runs[KT_RUN_NR] = {
	[KT_RUN_GOOD]		= { .exec = kt_spc_execute_good },
	[KT_RUN_REQUEST_SENSE]	= { .build = kt_spc_build_request_sense },
	[KT_RUN_INQUIRY]	= { .build = kt_spc_build_inquiry },
	[KT_RUN_REPORT_LUNS]	= { .build = kt_spc_build_report_luns,
				    .max_data = KT_REPORT_LUNS_MAX_LEN },
	[KT_RUN_MODE_SENSE]	= { .build = kt_spc_build_mode_sense },
	[KT_RUN_MODE_SELECT]	= { .exec = kt_spc_execute_mode_select },
	[KT_RUN_READ_CAPACITY]	= { .exec = kt_spc_execute_read_capacity },
	[KT_RUN_READ_DEFECT]	= { .build = kt_spc_build_read_defect },
	[KT_RUN_GET_LBA_STATUS]	= { .build = kt_spc_build_get_lba_status },
	[KT_RUN_RSOC]		= { .build = kt_spc_build_rsoc },
	[KT_RUN_RSTMF]		= { .build = kt_spc_build_rstmf },
	[KT_RUN_REPORT_ID_INFO]	= { .build = kt_spc_build_report_id_info },
	[KT_RUN_RTPG]		= { .build = kt_alua_report },
	[KT_RUN_STPG]		= { .exec = kt_alua_stpg_execute,
				    .max_param = KT_STPG_MAX_LEN,
				    .too_long = KT_SENSE_INVALID_CDB_FIELD },
	/*
	 * the longest list RECEIVE COPY RESULTS says we take; longer is a
	 * PARAMETER LIST LENGTH ERROR, as kt_xcopy_parse() says
	 */
	[KT_RUN_XCOPY]		= { .exec = kt_xcopy_execute,
				    .max_param = KT_XCOPY_MAX_PARAM_LEN,
				    .too_long = KT_SENSE_PARAM_LIST_LENGTH },
	[KT_RUN_RECEIVE_COPY]	= { .exec = kt_xcopy_rcr_execute },
	/* longer lists than a page: refused before they come */
	[KT_RUN_POPULATE_TOKEN]	= { .exec = kt_rod_pt_execute,
				    .max_param = PAGE_SIZE,
				    .too_long = KT_SENSE_PARAM_LIST_LENGTH },
	[KT_RUN_WRITE_USING_TOKEN] = { .exec = kt_rod_wut_execute,
				       .max_param = PAGE_SIZE,
				       .too_long = KT_SENSE_PARAM_LIST_LENGTH },
	[KT_RUN_RESERVE]	= { .parse = kt_reserve_parse },
	[KT_RUN_PR]		= { .parse = kt_pr_parse },
	[KT_RUN_RW]		= { .parse = kt_sbc_parse_rw },
	[KT_RUN_WRITE_ATOMIC]	= { .parse = kt_sbc_parse_write_atomic },
	[KT_RUN_VERIFY]		= { .parse = kt_sbc_parse_verify },
	[KT_RUN_CAW]		= { .parse = kt_sbc_parse_caw },
	[KT_RUN_ORWRITE]	= { .parse = kt_sbc_parse_orwrite },
	[KT_RUN_PRE_FETCH]	= { .parse = kt_sbc_parse_pre_fetch },
	[KT_RUN_SYNC_CACHE]	= { .parse = kt_sbc_parse_sync },
	[KT_RUN_WRITE_SAME]	= { .parse = kt_sbc_parse_write_same },
	[KT_RUN_UNMAP]		= { .parse = kt_sbc_parse_unmap },
	[KT_RUN_SANITIZE]	= { .parse = kt_sanitize_parse },
	[KT_RUN_FORMAT]		= { .parse = kt_format_parse },
	/* a CD/DVD LU's own (mmc.c) */
	[KT_RUN_MMC_READ_ONLY]	= { .parse = kt_mmc_parse_read_only },
	[KT_RUN_MMC_MODE_SENSE]	= { .build = kt_mmc_build_mode_sense },
	[KT_RUN_MMC_GET_CONFIG]	= { .build = kt_mmc_build_get_config },
	[KT_RUN_MMC_EVENT]	= { .build = kt_mmc_build_event },
	[KT_RUN_MMC_READ_TOC]	= { .build = kt_mmc_build_read_toc },
	[KT_RUN_MMC_DISC_INFO]	= { .build = kt_mmc_build_disc_info },
	[KT_RUN_MMC_TRACK_INFO]	= { .build = kt_mmc_build_track_info },
	[KT_RUN_MMC_MECH_STATUS] = { .build = kt_mmc_build_mech_status },
};

/* cmd->execute of a command whose data-in the core builds */
static void kt_run_build(struct kt_cmd *cmd)
{
	const struct kt_run *r = &kt_runs[cmd->desc->run];

	kt_spc_run_builder(cmd, r->build, r->max_data);
}

/*
 * A command the core answers without a parser: its data phase is its
 * ALLOCATION LENGTH (data-in) or PARAMETER LIST LENGTH (data-out), from
 * the command table.
 */
static sense_reason_t kt_run_setup(struct kt_cmd *cmd,
				   const struct kt_cdb_desc *d,
				   const struct kt_run *r, u32 *needed,
				   enum kt_data_dir *dir)
{
	*needed = kt_spc_desc_alloc_len(d, cmd->cdb);
	if (d->flags & KT_CDB_D_PARAM)
		*dir = KT_DATA_OUT;
	else if (*needed)
		*dir = KT_DATA_IN;
	/* refused before a buffer of that size is allocated for it */
	if (r->max_param && *needed > r->max_param) {
		cmd->sense_field = KT_FIELD_CDB(d->alen_off);
		return r->too_long;
	}
	cmd->execute = r->build ? kt_run_build : r->exec;
	return KT_SENSE_NONE;
}

sense_reason_t kt_exec_parse(struct kt_cmd *cmd, const struct kt_cdb *c,
			     u32 *needed, enum kt_data_dir *dir)
{
	const struct kt_cdb_desc *d = c->desc;
	const struct kt_run *r;
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
	/* before the checks a FORMAT UNIT may change the outcome of */
	if (cmd->dev)
		kt_cmd_setup_fmt_gen(cmd);
	if (d->flags & KT_CDB_D_MEDIUM) {
		reason = kt_sanitize_medium_check(cmd);
		if (reason)
			return reason;
	}
	if (d->flags & KT_CDB_D_PROTECT) {
		reason = kt_sbc_check_protect(cmd, c);
		if (reason)
			return reason;
	}
	r = &kt_runs[d->run];
	if (WARN_ON_ONCE(!r->parse && !r->exec && !r->build)) {
		cmd->sense_field = KT_FIELD_CDB(0);
		return KT_SENSE_INVALID_OPCODE;
	}
	if (r->parse)
		reason = r->parse(cmd, c, needed, dir);
	else
		reason = kt_run_setup(cmd, d, r, needed, dir);
	/* the core builds what a command returns, unless it is blocks */
	cmd->data_in_built = *dir == KT_DATA_IN &&
			     !(d->flags & KT_CDB_D_BLOCKS_IN);
	return reason;
}

/*
 * A passthrough LU (backend.h, exec_cdb): the commands about the LU as a
 * whole, which its device server cannot answer alone, stay the core's, as
 * LIO's passthrough_parse_cdb() keeps them: REPORT LUNS, the reservations
 * and the ALUA target port groups. The rest is the backstore's.
 */
bool kt_passthrough_takes(const u8 *cdb, unsigned int len)
{
	switch (cdb[0]) {
	case REPORT_LUNS:
	case PERSISTENT_RESERVE_IN:
	case PERSISTENT_RESERVE_OUT:
	case RESERVE:
	case RELEASE:
	case RESERVE_10:
	case RELEASE_10:
		return false;
	case MAINTENANCE_IN:
		return len < 2 || (cdb[1] & 0x1f) != MI_REPORT_TARGET_PGS;
	case MAINTENANCE_OUT:
		return len < 2 || (cdb[1] & 0x1f) != MO_SET_TARGET_PGS;
	default:
		return true;
	}
}

/*
 * The gates (unit attention, ALUA, reservations) read a command's
 * descriptor: one ktarget does not implement meets them as a command that
 * changes the medium would.
 */
static const struct kt_cdb_desc kt_passthrough_desc = {
	.run	= KT_RUN_NONE,
	.pr	= KT_PRC_WRITE,
};

/*
 * On a write-protected nexus (the ACL's or the TPG's write protection, the
 * LU's SWP), what may change the medium never reaches the device server:
 * every command that carries data to it, that carries or changes blocks,
 * and every command ktarget does not know.
 */
static bool kt_passthrough_changes(const struct kt_cmd *cmd)
{
	return cmd->dir == KT_DATA_OUT || cmd->desc == &kt_passthrough_desc ||
	       (cmd->desc->flags & (KT_CDB_D_BLOCKS_OUT | KT_CDB_D_CHANGES));
}

/*
 * The most a passthrough command may move, allocated before the device
 * server sees it: hw_max_sectors blocks (the MAXIMUM TRANSFER LENGTH the
 * initiator is told), but at least 64 KiB, which the allocation lengths
 * of the commands about the LU (INQUIRY, MODE SENSE, LOG SENSE) reach.
 */
#define KT_PASSTHROUGH_MIN_MAX	SZ_64K

/*
 * Set up a command for the backstore's exec_cdb(): the whole CDB must be
 * there; it moves what the initiator said, in the direction it said, up
 * to the bound above (INVALID FIELD IN CDB beyond).
 */
sense_reason_t kt_passthrough_setup(struct kt_cmd *cmd, unsigned int cdb_len)
{
	unsigned int n = kt_cdb_group_len(cmd->cdb[0]);
	u64 max;

	if (cmd->cdb[0] == 0x7f)
		n = cdb_len >= 8 ? 8 + cmd->cdb[7] : KT_CDB_INLINE + 1;
	if (!n)
		n = cdb_len;
	if (n > cdb_len) {
		cmd->sense_field = KT_FIELD_CDB(0);
		return KT_SENSE_INVALID_CDB_FIELD;
	}
	cmd->cdb_len = n;
	cmd->desc = kt_cdb_desc_find(cmd->cdb, cdb_len) ?: &kt_passthrough_desc;
	if (cmd->write_protected && kt_passthrough_changes(cmd))
		return KT_SENSE_WRITE_PROTECTED;
	/*
	 * PI beside the data (the loopback's DIX) has no place in what a
	 * passthrough backstore hands on: its device server would get
	 * RDPROTECT / WRPROTECT without the tuples
	 */
	if (cmd->prot_sgl || cmd->prot_by_fabric) {
		pr_warn_ratelimited("device %u: opcode %#x comes with protection information, which a passthrough backstore cannot carry: refused\n",
				    cmd->dev->index, cmd->cdb[0]);
		cmd->sense_field = KT_FIELD_CDB_BIT(1, 7);
		return KT_SENSE_INVALID_CDB_FIELD;
	}
	cmd->data_in_built = false;
	cmd->execute = cmd->dev->ops->exec_cdb;
	if (cmd->dir == KT_DATA_NONE)
		cmd->expected_len = 0;
	max = max_t(u64, (u64)cmd->dev->attrib.hw_max_sectors *
			 cmd->dev->attrib.hw_block_size, KT_PASSTHROUGH_MIN_MAX);
	if (cmd->expected_len > max) {
		pr_warn_ratelimited("device %u: opcode %#x moves %u bytes, more than hw_max_sectors allows (%llu): refused\n",
				    cmd->dev->index, cmd->cdb[0],
				    cmd->expected_len, max);
		return KT_SENSE_INVALID_CDB_FIELD;
	}
	cmd->data_length = cmd->expected_len;
	return KT_SENSE_NONE;
}
