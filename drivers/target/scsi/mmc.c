// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: a CD/DVD LU (attrib/emulate_cdrom). Such a LU has its own
 * command table (proto/mmc.c's kt_mmc_cmds), which the core picks once per
 * command as it decodes the CDB (kt_dev_cdb_set()); the SPC commands and
 * READ (10)/(12) then run as a disk's do, the MMC ones here, from the pure
 * builders of proto/mmc.c. The disc is read-only: what would write it is
 * refused as a write-protected medium is (DATA PROTECT, 27/00).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include <ktarget/backend.h>
#include <ktarget/proto/cdb.h>
#include <ktarget/proto/mmc.h>
#include <ktarget/proto/spc.h>

#include "cmdsets.h"
#include "core.h"

const struct kt_cdb_set *kt_dev_cdb_set(const struct kt_dev *dev)
{
	return dev && dev->attrib.emulate_cdrom ? &kt_mmc_cmds : &kt_sbc_cmds;
}

void kt_mmc_lu_info(const struct kt_dev *dev, struct kt_lu_info *lu)
{
	if (!dev->attrib.emulate_cdrom)
		return;
	lu->pdt = TYPE_ROM;
	lu->cmds = &kt_mmc_cmds;
	/* no EXTENDED COPY or token copy in MMC: no 3PC, no 8Fh page */
	lu->flags &= ~(KT_LU_3PC | KT_LU_ROD);
	lu->flags |= KT_LU_READ_ONLY;
}

/* Writes, BLANK, FORMAT UNIT, the track and session commands */
sense_reason_t kt_mmc_parse_read_only(struct kt_cmd *cmd,
				      const struct kt_cdb *c, u32 *needed,
				      enum kt_data_dir *dir)
{
	pr_debug("opcode 0x%02x refused: the disc is read-only\n", cmd->cdb[0]);
	return KT_SENSE_WRITE_PROTECTED;
}

sense_reason_t kt_mmc_build_mode_sense(struct kt_cmd *cmd,
				       const struct kt_lu_info *lu, u8 *buf,
				       u32 len, u32 *data_len)
{
	return kt_mmc_mode_sense(lu, cmd->cdb, buf, len, data_len,
				 &cmd->sense_field);
}

sense_reason_t kt_mmc_build_get_config(struct kt_cmd *cmd,
				       const struct kt_lu_info *lu, u8 *buf,
				       u32 len, u32 *data_len)
{
	return kt_mmc_get_configuration(lu, cmd->cdb, buf, len, data_len,
					&cmd->sense_field);
}

sense_reason_t kt_mmc_build_event(struct kt_cmd *cmd,
				  const struct kt_lu_info *lu, u8 *buf,
				  u32 len, u32 *data_len)
{
	return kt_mmc_event_status(lu, cmd->cdb, buf, len, data_len,
				   &cmd->sense_field);
}

sense_reason_t kt_mmc_build_read_toc(struct kt_cmd *cmd,
				     const struct kt_lu_info *lu, u8 *buf,
				     u32 len, u32 *data_len)
{
	return kt_mmc_read_toc(lu, cmd->cdb, buf, len, data_len,
			       &cmd->sense_field);
}

sense_reason_t kt_mmc_build_disc_info(struct kt_cmd *cmd,
				      const struct kt_lu_info *lu, u8 *buf,
				      u32 len, u32 *data_len)
{
	return kt_mmc_disc_info(lu, cmd->cdb, buf, len, data_len,
				&cmd->sense_field);
}

sense_reason_t kt_mmc_build_track_info(struct kt_cmd *cmd,
				       const struct kt_lu_info *lu, u8 *buf,
				       u32 len, u32 *data_len)
{
	return kt_mmc_track_info(lu, cmd->cdb, buf, len, data_len,
				 &cmd->sense_field);
}

sense_reason_t kt_mmc_build_mech_status(struct kt_cmd *cmd,
					const struct kt_lu_info *lu, u8 *buf,
					u32 len, u32 *data_len)
{
	return kt_mmc_mech_status(lu, cmd->cdb, buf, len, data_len,
				  &cmd->sense_field);
}
