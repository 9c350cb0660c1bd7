// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: the block command set (SBC-3) on the data path: range
 * checks, then a backstore call. The backstore sees bytes, never a CDB.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include <ktarget/backend.h>
#include <ktarget/fabric.h>
#include <ktarget/proto/cdb.h>

#include "core.h"

static sense_reason_t kt_sbc_execute_rw(struct kt_cmd *cmd)
{
	struct kt_dev *dev = cmd->dev;
	bool write = cmd->cdb_flags & KT_CDB_F_DATA_OUT;
	bool fua = (cmd->cdb_flags & KT_CDB_F_FUA) && dev->attrib.emulate_fua_write;

	/* an overflowing initiator gets only what it expects (cmd.c) */
	dev->ops->rw(cmd, write, cmd->lba * dev->attrib.block_size,
		     cmd->data_length, fua);
	return KT_SENSE_NONE;
}

static sense_reason_t kt_sbc_execute_sync(struct kt_cmd *cmd)
{
	if (cmd->dev->ops->flush) {
		cmd->dev->ops->flush(cmd);
		return KT_SENSE_NONE;
	}
	kt_cmd_complete(cmd, KT_SENSE_NONE);
	return KT_SENSE_NONE;
}

/* Capacity in logical blocks: the backstore counts in hw blocks. */
u64 kt_dev_nr_lblocks(struct kt_dev *dev)
{
	return div_u64(dev->nr_blocks * dev->attrib.hw_block_size,
		       dev->attrib.block_size);
}

/*
 * READ / WRITE (6/10/12/16) and SYNCHRONIZE CACHE. Sets the transfer
 * length and direction the CDB implies; range errors are found here,
 * before any data moves.
 */
sense_reason_t kt_sbc_parse(struct kt_cmd *cmd, const struct kt_cdb *c,
			    u32 *needed, enum kt_data_dir *dir)
{
	struct kt_dev *dev = cmd->dev;
	u64 cap = kt_dev_nr_lblocks(dev);

	switch (c->opcode) {
	case 0x08: case 0x28: case 0xa8: case 0x88:	/* READ */
	case 0x0a: case 0x2a: case 0xaa: case 0x8a:	/* WRITE */
		if (!kt_cdb_range_ok(c->lba, c->nr_blocks, cap)) {
			cmd->sense_info = c->lba;
			return KT_SENSE_LBA_OUT_OF_RANGE;
		}
		if ((c->flags & KT_CDB_F_DATA_OUT) && cmd->write_protected)
			return KT_SENSE_WRITE_PROTECTED;
		/* SBC-3 5.15: at most 2^32 - 1 bytes in one command */
		if ((u64)c->nr_blocks * dev->attrib.block_size > U32_MAX) {
			cmd->sense_field = KT_FIELD_CDB(c->len == 6 ? 4 : 7);
			return KT_SENSE_INVALID_CDB_FIELD;
		}
		*needed = c->nr_blocks * dev->attrib.block_size;
		*dir = (c->flags & KT_CDB_F_DATA_OUT) ? KT_DATA_OUT : KT_DATA_IN;
		cmd->execute = kt_sbc_execute_rw;
		return KT_SENSE_NONE;
	case 0x35: case 0x91:				/* SYNCHRONIZE CACHE */
		/* SBC-3 5.22: NUMBER OF BLOCKS 0 means to the end */
		if (!kt_cdb_range_ok(c->lba, c->nr_blocks, cap)) {
			cmd->sense_info = c->lba;
			return KT_SENSE_LBA_OUT_OF_RANGE;
		}
		cmd->execute = kt_sbc_execute_sync;
		return KT_SENSE_NONE;
	}
	cmd->sense_field = KT_FIELD_CDB(0);
	return KT_SENSE_INVALID_OPCODE;
}
