/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktarget_core: the writes a ROD token watches (rod_token.c). A write of
 * blocks a token represents revokes it as it begins; a token made while
 * the write is under way is revoked once it lands. The core's command path
 * calls kt_rod_cmd_begin()/kt_rod_cmd_end(); the commands that write in
 * steps of their own (UNMAP, the copy engine) and those that change a
 * whole LU call the block-range helpers.
 */
#ifndef KTARGET_CORE_ROD_WATCH_H
#define KTARGET_CORE_ROD_WATCH_H

#include <linux/atomic.h>

#include <ktarget/cmd.h>
#include <ktarget/proto/cdb.h>

#include "dev_state.h"

/*
 * Blocks [@lba, @lba + @nr) of @dev change (@nr 0: any of them): the ROD
 * tokens that represent any of them are revoked. One load while the LU
 * has no token a write could revoke.
 */
static inline void kt_rod_changed(struct kt_dev *dev, u64 lba, u64 nr)
{
	if (unlikely(atomic_read(&dev->state->rod.live)))
		kt_rod_revoke(dev, lba, nr);
}

/*
 * A write of blocks [@lba, @lba + @nr) of @dev begins: the tokens over
 * them are revoked. Returns the count of tokens made, for
 * kt_rod_write_end() once the write has landed (or failed).
 */
static inline s64 kt_rod_write_begin(struct kt_dev *dev, u64 lba, u64 nr)
{
	s64 made = atomic64_read(&dev->state->rod.made);

	/* a token counted in @made is live for kt_rod_changed() */
	smp_rmb();
	kt_rod_changed(dev, lba, nr);
	return made;
}

/*
 * The write that kt_rod_write_begin() returned @made for has landed: a
 * token made while it was under way cannot tell whether it holds what the
 * write left, and is revoked. A full barrier and one load per write while
 * no token was made.
 */
static inline void kt_rod_write_end(struct kt_dev *dev, u64 lba, u64 nr,
				    s64 made)
{
	/* its data is in place before the count is read again */
	smp_mb();
	if (unlikely(atomic64_read(&dev->state->rod.made) != made))
		kt_rod_revoke_since(dev, lba, nr, made);
}

/*
 * The blocks @cmd is about to change stop being what a ROD token made of
 * them represents (rod_token.c): those of its LBA range, or any of the LU
 * for a command that has none (SANITIZE). Tokens made while it is under
 * way are revoked when it completes. UNMAP, whose ranges are in its
 * parameter list, is not CHANGES: it watches each as it unmaps it.
 */
static inline void kt_rod_cmd_begin(struct kt_cmd *cmd)
{
	const struct kt_cdb_desc *d = cmd->desc;

	if (!cmd->dev || !d || cmd->rod_watch)
		return;
	if (d->flags & KT_CDB_D_BLOCKS_OUT) {
		if (!cmd->nr_blocks)
			return;
		cmd->rod_watch = 1;
	} else if (d->flags & KT_CDB_D_CHANGES) {
		/* a range of 0 blocks changes nothing (WRITE SAME: WSNZ) */
		if (d->layout && !cmd->nr_blocks)
			return;
		cmd->rod_watch = d->layout ? 1 : 2;
	} else {
		return;
	}
	cmd->rod_made = kt_rod_write_begin(cmd->dev, cmd->lba,
					   cmd->rod_watch == 1 ?
					   cmd->nr_blocks : 0);
}

/* @cmd's blocks have landed, or never will: the end of kt_rod_cmd_begin() */
static inline void kt_rod_cmd_end(struct kt_cmd *cmd)
{
	if (!cmd->rod_watch)
		return;
	kt_rod_write_end(cmd->dev, cmd->lba,
			 cmd->rod_watch == 1 ? cmd->nr_blocks : 0,
			 cmd->rod_made);
	cmd->rod_watch = 0;
}

#endif /* KTARGET_CORE_ROD_WATCH_H */
