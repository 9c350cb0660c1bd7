/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktarget_core: token copy (ODX). The ROD tokens POPULATE TOKEN makes
 * (rod_token.c) and the commands that make, use and report them
 * (rod_cmd.c); WRITE USING TOKEN moves its data with the EXTENDED COPY
 * engine (xcopy.c).
 */
#ifndef KTARGET_CORE_ROD_H
#define KTARGET_CORE_ROD_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/spinlock.h>

#include <ktarget/proto/rod.h>
#include <ktarget/proto/sense.h>

struct kt_cmd;
struct kt_dev;
struct kt_lun;
struct kt_rod_token;

/*
 * The tokens made from one LU's blocks (in struct kt_dev_state). @lock
 * covers the list and its tokens' state; a write of the LU takes it alone
 * (rod_token.c says which paths take kt_rod_lock first).
 */
struct kt_rod_dev {
	spinlock_t		lock;		/* @tokens and their state */
	struct list_head	tokens;
	unsigned int		nr;
	/* tokens a write may still revoke: writes look only when non-zero */
	atomic_t		live;
	/*
	 * Tokens made so far. A write reads it as it begins and again once
	 * it has landed: a token made in between may or may not hold what
	 * it wrote, and is revoked (kt_rod_write_end()).
	 */
	atomic64_t		made;
};

/* rod_token.c */
int kt_rod_init(void);
void kt_rod_exit(void);
void kt_rod_dev_init(struct kt_dev *dev);
/* The LU goes: its tokens with it. */
void kt_rod_dev_release(struct kt_dev *dev);
/* The LUN goes: the tokens made through it cannot be used any more. */
void kt_rod_lun_gone(struct kt_lun *lun);

/*
 * A token for the ranges of @pt, of the LU of @cmd, referenced. NULL with
 * the sense in @err when the LU has as many as it may keep.
 */
struct kt_rod_token *kt_rod_token_make(struct kt_cmd *cmd,
				       const struct kt_rod_pt *pt,
				       struct kt_xcopy_err *err);
/*
 * The token whose 512 bytes are @tok, referenced and usable now; NULL
 * with the sense in @err: unknown, corrupt (altered), expired, revoked,
 * deleted. *@lun is its source LUN, referenced.
 */
struct kt_rod_token *kt_rod_token_find(const u8 *tok, struct kt_lun **lun,
				       struct kt_xcopy_err *err);
void kt_rod_token_put(struct kt_rod_token *t);
const u8 *kt_rod_token_bytes(const struct kt_rod_token *t);
const struct kt_rod_ranges *kt_rod_token_ranges(const struct kt_rod_token *t);
u32 kt_rod_token_block_size(const struct kt_rod_token *t);
/* Its source blocks changed since it was made */
bool kt_rod_token_revoked(const struct kt_rod_token *t);
/*
 * The WRITE USING TOKEN that found @t ended: its timeout starts again if
 * it @moved data; @del: DEL_TKN. Drops what kt_rod_token_find() took of
 * @t (not its LUN): every find has one.
 */
void kt_rod_token_done(struct kt_rod_token *t, bool del, bool moved);

/* kt_rod_changed() (rod_watch.h), when @dev has tokens */
void kt_rod_revoke(struct kt_dev *dev, u64 lba, u64 nr);
/*
 * kt_rod_write_end() (rod_watch.h): a write of those blocks landed after
 * tokens were made: revoke those made since @made was read.
 */
void kt_rod_revoke_since(struct kt_dev *dev, u64 lba, u64 nr, s64 made);

/* rod_cmd.c */
void kt_rod_pt_execute(struct kt_cmd *cmd);
void kt_rod_wut_execute(struct kt_cmd *cmd);

#endif /* KTARGET_CORE_ROD_H */
