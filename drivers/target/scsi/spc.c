// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: the commands the core answers itself (SPC-4, and the SBC-3
 * ones with no data path): INQUIRY, REPORT LUNS, READ CAPACITY, MODE
 * SENSE/SELECT, REQUEST SENSE, REPORT SUPPORTED OPERATION CODES / TMFs,
 * TEST UNIT READY, START STOP UNIT, PREVENT ALLOW MEDIUM REMOVAL, READ
 * DEFECT DATA, GET LBA STATUS. The response data comes from the pure
 * builders of proto/spc.c, proto/mode.c and proto/sbc.c; this file moves
 * it into the command's buffer. dispatch.c's table names, for each command,
 * the function here that runs it or builds its answer.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include <ktarget/backend.h>
#include <ktarget/fabric.h>
#include <ktarget/proto/cdb.h>
#include <ktarget/proto/spc.h>

#include "alua/alua.h"
#include "cmdsets.h"
#include "copy/xcopy.h"
#include "core.h"
#include "pr/pr.h"

#define KT_SPC_BUF_MAX	(64 * 1024)	/* largest emulated response, unless larger asked */
#define KT_CAW_MAX_BLOCKS	64	/* COMPARE AND WRITE blocks per command */

/* What the builders need to know of the LU the command addresses. */
/* VPD page 8Fh: EXTENDED COPY and token copy, in the LU's blocks */
static unsigned int kt_spc_vpd_tpc(u8 *buf, unsigned int buf_len,
				   const struct kt_lu_info *lu)
{
	struct kt_xcopy_rod_vpd rod = {
		.block_size = lu->block_size,
		.timeout = lu->rod_timeout,
	};

	return kt_xcopy_build_vpd_tpc(buf, buf_len, 0x00,
				      lu->flags & KT_LU_ROD ? &rod : NULL);
}

void kt_lu_info_fill(struct kt_cmd *cmd, struct kt_lu_info *lu)
{
	struct kt_dev *dev = cmd->dev;
	const struct kt_dev_attrib *a;

	memset(lu, 0, sizeof(*lu));
	/* the core's own commands: 0, as for a fabric that names none */
	lu->proto_id = cmd->ops ? cmd->ops->proto_id : 0;
	lu->tmf = KT_TMF_SUP_ABORT_TASK | KT_TMF_SUP_ABORT_TASK_SET |
		  KT_TMF_SUP_CLEAR_TASK_SET | KT_TMF_SUP_LU_RESET;
	if (!dev)
		return;
	a = &dev->attrib;
	lu->nr_blocks = kt_dev_nr_lblocks(dev);
	lu->dev_id = dev->index + 1;
	lu->block_size = a->block_size;
	lu->hw_max_sectors = kt_dev_max_xfer_blocks(cmd->dev);
	lu->optimal_sectors = a->optimal_sectors * a->hw_block_size / a->block_size;
	lu->company_id = dev->wwn.company_id;
	lu->vendor_id = dev->wwn.vendor_id;
	lu->product_id = dev->wwn.product_id;
	lu->revision = dev->wwn.revision;
	lu->unit_serial = dev->wwn.unit_serial;
	lu->pd_text_id_info = dev->wwn.pd_text_id_info;
	lu->rel_port_id = cmd->lun ? cmd->lun->rtpi : 1;
	kt_alua_lu_info(cmd, &lu->tpgs, &lu->tpg_id);
	/* MODE SELECT may turn the write cache on or off (caching page) */
	lu->flags |= KT_LU_WCE_CHANGEABLE;
	if (a->emulate_write_cache)
		lu->flags |= KT_LU_WCE;
	if (a->emulate_fua_write)
		lu->flags |= KT_LU_FUA_WRITE;
	if (a->emulate_dpo)
		lu->flags |= KT_LU_DPO;
	if (a->is_nonrot)
		lu->flags |= KT_LU_NONROT;
	if (a->emulate_tas)
		lu->flags |= KT_LU_TAS;
	if (cmd->write_protected)
		lu->flags |= KT_LU_READ_ONLY;
	/* MODE SELECT may set SWP, the control page's write protection */
	lu->flags |= KT_LU_SWP_CHANGEABLE;
	if (READ_ONCE(dev->state->swp))
		lu->flags |= KT_LU_SWP;
	if (dev->ops->write_zeroes) {
		if (a->emulate_tpu)
			lu->flags |= KT_LU_TPU;
		if (a->emulate_tpws)
			lu->flags |= KT_LU_TPWS;
		if (a->unmap_zeroes_data)
			lu->flags |= KT_LU_LBPRZ;
		lu->max_unmap_lba_count = a->max_unmap_lba_count;
		lu->max_unmap_block_desc_count = a->max_unmap_block_desc_count;
		lu->unmap_granularity = a->unmap_granularity;
		lu->unmap_granularity_alignment = a->unmap_granularity_alignment;
		lu->max_write_same_len = a->max_write_same_len;
		/* BLOCK ERASE where GET LBA STATUS shows what it freed */
		if (dev->ops->lba_status && (a->emulate_tpu || a->emulate_tpws))
			lu->flags |= KT_LU_BLOCK_ERASE;
		kt_lbp_thresh_lu_info(dev, lu);
	}
	if (a->emulate_3pc) {
		lu->flags |= KT_LU_3PC;
		lu->vpd_tpc = kt_spc_vpd_tpc;
		lu->rod_timeout = a->rod_inactivity_timeout;
		/*
		 * A clustered LU is written through other nodes too, whose
		 * writes could not revoke this node's tokens: no token copy
		 */
		if (!READ_ONCE(dev->state->cluster.lu))
			lu->flags |= KT_LU_ROD;
	}
	if (a->emulate_pr)
		lu->flags |= KT_LU_PR;
	lu->pi_type = kt_cmd_pi_type(cmd);
	if (a->emulate_caw) {
		lu->flags |= KT_LU_CAW;
		lu->max_caw_blocks = KT_CAW_MAX_BLOCKS;
	}
	/*
	 * WRITE ATOMIC where the backstore found atomic writes below, in
	 * its own blocks: not with another logical block size on top
	 */
	if (a->atomic_max_len && a->block_size == a->hw_block_size) {
		lu->atomic_max_len = a->atomic_max_len;
		lu->atomic_alignment = a->atomic_alignment;
		lu->atomic_granularity = a->atomic_granularity;
		lu->atomic_max_with_boundary = a->atomic_max_with_boundary;
		lu->atomic_max_boundary = a->atomic_max_boundary;
	}
	/* SPC-4 7.5.7: LIO's 0/1/2 are the field values 00b/10b/11b */
	lu->ua_intlck_ctrl = a->emulate_ua_intlck_ctrl ?
			     a->emulate_ua_intlck_ctrl + 1 : 0;
	/* a CD/DVD LU: its device type and commands (mmc.c) */
	kt_mmc_lu_info(dev, lu);
}

/*
 * What every command whose data-in the core builds shares: build into a
 * bounce buffer, copy into the command's data, complete it.
 */
void kt_spc_run_builder(struct kt_cmd *cmd, kt_builder_t fn, u32 max)
{
	struct kt_lu_info lu;
	u32 len = min_t(u32, cmd->data_length, max ?: KT_SPC_BUF_MAX);
	u32 data_len = 0;
	sense_reason_t reason;
	u8 *buf;

	buf = kvzalloc(max_t(u32, len, 1), GFP_KERNEL);
	if (!buf) {
		kt_cmd_complete(cmd, KT_SENSE_OUT_OF_RESOURCES);
		return;
	}
	kt_lu_info_fill(cmd, &lu);
	reason = fn(cmd, &lu, buf, len, &data_len);
	if (reason)
		kt_cmd_complete(cmd, reason);
	else
		kt_cmd_complete_data(cmd, buf, min(len, data_len));
	kvfree(buf);
}

sense_reason_t kt_spc_build_inquiry(struct kt_cmd *cmd,
				    const struct kt_lu_info *lu, u8 *buf,
				    u32 len, u32 *data_len)
{
	if (!cmd->dev) {
		/* SPC-4 6.6.2: no LU here: qualifier 011b, type 1Fh */
		if (cmd->cdb[1] & 0x01)
			return KT_SENSE_LUN_NOT_SUPPORTED;
		if (len)
			buf[0] = 0x7f;
		if (len > 4) {
			buf[2] = 0x06;
			buf[3] = 0x02;
			buf[4] = 31;
		}
		*data_len = 36;
		return KT_SENSE_NONE;
	}
	return kt_spc_inquiry(lu, cmd->cdb, buf, len, data_len,
			      &cmd->sense_field);
}

sense_reason_t kt_spc_build_report_luns(struct kt_cmd *cmd,
					const struct kt_lu_info *lu, u8 *buf,
					u32 len, u32 *data_len)
{
	u64 *luns;
	u32 nr;
	sense_reason_t reason;

	luns = kt_session_list_luns(cmd->sess, &nr);
	if (!luns)
		return KT_SENSE_OUT_OF_RESOURCES;
	reason = kt_spc_report_luns(cmd->cdb, luns, nr, true, buf, len,
				    data_len, &cmd->sense_field);
	kvfree(luns);
	return reason;
}

static sense_reason_t kt_spc_build_read_capacity(struct kt_cmd *cmd,
						 const struct kt_lu_info *lu,
						 u8 *buf, u32 len,
						 u32 *data_len)
{
	return kt_sbc_read_capacity(lu, cmd->cdb, buf, len, data_len,
				    &cmd->sense_field);
}

sense_reason_t kt_spc_build_mode_sense(struct kt_cmd *cmd,
				       const struct kt_lu_info *lu, u8 *buf,
				       u32 len, u32 *data_len)
{
	return kt_spc_mode_sense(lu, cmd->cdb, buf, len, data_len,
				 &cmd->sense_field);
}

sense_reason_t kt_spc_build_rsoc(struct kt_cmd *cmd,
				 const struct kt_lu_info *lu, u8 *buf,
				 u32 len, u32 *data_len)
{
	return kt_spc_rsoc(lu, cmd->cdb, buf, len, data_len,
			   &cmd->sense_field);
}

sense_reason_t kt_spc_build_rstmf(struct kt_cmd *cmd,
				  const struct kt_lu_info *lu, u8 *buf,
				  u32 len, u32 *data_len)
{
	return kt_spc_rstmf(lu, cmd->cdb, buf, len, data_len,
			    &cmd->sense_field);
}

sense_reason_t kt_spc_build_report_id_info(struct kt_cmd *cmd,
					   const struct kt_lu_info *lu, u8 *buf,
					   u32 len, u32 *data_len)
{
	return kt_spc_report_id_info(lu, cmd->cdb, buf, len, data_len,
				     &cmd->sense_field);
}

sense_reason_t kt_spc_build_request_sense(struct kt_cmd *cmd,
					  const struct kt_lu_info *lu, u8 *buf,
					  u32 len, u32 *data_len)
{
	u8 sense[KT_SENSE_BUF_LEN];
	u16 ua = cmd->dev ? kt_ua_take(cmd) : 0;
	sense_reason_t busy = KT_SENSE_NONE;
	bool has_progress = false;
	u16 progress;
	u32 n = 0;

	if (!cmd->dev) {
		/* SPC-4 6.39: to an absent LU, the sense says so, status GOOD */
		n = kt_sense_build(KT_SENSE_LUN_NOT_SUPPORTED, 0, NULL, 0,
				   false, sense);
	} else if (ua) {
		/* SPC-4 5.14: a pending unit attention is returned, cleared */
		n = kt_sense_build(KT_SENSE_UNIT_ATTENTION, ua, NULL, 0,
				   false, sense);
	} else {
		busy = kt_sanitize_progress(cmd->dev, &progress,
					    &has_progress);
	}
	if (busy) {
		/* SPC-4 4.5.2.4.4: how far a running sanitize or format is */
		n = kt_sense_build(busy, 0, NULL, 0, false, sense);
		if (has_progress)
			kt_sense_set_progress(sense, progress);
	}
	return kt_spc_request_sense(cmd->cdb, sense, n, buf, len, data_len,
				    &cmd->sense_field);
}

sense_reason_t kt_spc_build_read_defect(struct kt_cmd *cmd,
					const struct kt_lu_info *lu, u8 *buf,
					u32 len, u32 *data_len)
{
	return kt_sbc_read_defect_data(cmd->cdb, buf, len, data_len,
				       &cmd->sense_field);
}

/* GET LBA STATUS: the backstore's extents, in logical blocks */
static int kt_spc_lba_status(void *priv, u64 lba, u64 max, u64 *nr,
			     u8 *status)
{
	struct kt_dev *dev = priv;
	u32 bs = dev->attrib.block_size;
	bool mapped;
	u64 bytes;
	int ret;

	ret = dev->ops->lba_status(dev, lba * bs, max * bs, &bytes, &mapped);
	if (ret)
		return ret;
	/* a block that is partly data is mapped */
	*nr = mapped ? DIV_ROUND_UP(bytes, bs) : bytes / bs;
	if (!*nr) {
		*nr = 1;
		mapped = true;
	}
	*nr = min(*nr, max);
	*status = mapped ? KT_SBC_LBA_MAPPED : KT_SBC_LBA_DEALLOCATED;
	return 0;
}

sense_reason_t kt_spc_build_get_lba_status(struct kt_cmd *cmd,
					   const struct kt_lu_info *lu, u8 *buf,
					   u32 len, u32 *data_len)
{
	return kt_sbc_get_lba_status(lu, cmd->cdb,
				     cmd->dev->ops->lba_status ?
				     kt_spc_lba_status : NULL, cmd->dev,
				     buf, len, data_len, &cmd->sense_field);
}

/* READ CAPACITY: storage resized under the LU is looked at first */
void kt_spc_execute_read_capacity(struct kt_cmd *cmd)
{
	kt_dev_capacity_check(cmd, false);
	kt_spc_run_builder(cmd, kt_spc_build_read_capacity, 0);
}

void kt_spc_execute_good(struct kt_cmd *cmd)
{
	kt_cmd_complete(cmd, KT_SENSE_NONE);
}

/* MODE SELECT: the parameter list has arrived in cmd->sgl. */
void kt_spc_execute_mode_select(struct kt_cmd *cmd)
{
	struct kt_mode_select sel = { 0 };
	struct kt_lu_info lu;
	sense_reason_t reason;
	u32 len = min_t(u32, cmd->data_length, KT_SPC_BUF_MAX);
	u8 *buf;

	buf = kzalloc(max_t(u32, len, 1), GFP_KERNEL);
	if (!buf) {
		kt_cmd_complete(cmd, KT_SENSE_OUT_OF_RESOURCES);
		return;
	}
	sg_copy_to_buffer(cmd->sgl, cmd->sg_nents, buf, len);
	kt_lu_info_fill(cmd, &lu);
	reason = kt_spc_mode_select(&lu, cmd->cdb, buf, len, &sel,
				    &cmd->sense_field);
	kfree(buf);
	if (reason) {
		kt_cmd_complete(cmd, reason);
		return;
	}
	if ((sel.set & KT_MODE_SET_WCE) &&
	    READ_ONCE(cmd->dev->attrib.emulate_write_cache) != sel.wce) {
		WRITE_ONCE(cmd->dev->attrib.emulate_write_cache, sel.wce);
		/* SPC-4 7.5.1: MODE PARAMETERS CHANGED for the other nexuses */
		kt_ua_raise(cmd->dev, KT_ASC_MODE_PARAMS_CHANGED, KT_UA_OTHERS, cmd->sess);
	}
	if (sel.set & KT_MODE_SET_LBP)
		kt_lbp_thresh_select(cmd, &sel);
	if ((sel.set & KT_MODE_SET_SWP) && READ_ONCE(cmd->dev->state->swp) != sel.swp) {
		WRITE_ONCE(cmd->dev->state->swp, sel.swp);
		pr_info("device %u: software write protect %s by MODE SELECT\n",
			cmd->dev->index, sel.swp ? "on" : "off");
		kt_ua_raise(cmd->dev, KT_ASC_MODE_PARAMS_CHANGED, KT_UA_OTHERS, cmd->sess);
	}
	kt_cmd_complete(cmd, KT_SENSE_NONE);
}
