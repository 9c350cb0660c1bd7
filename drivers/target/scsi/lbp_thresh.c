// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: the soft threshold of logical block provisioning (SBC-3
 * 4.7.3.7, the Logical Block Provisioning mode page 1Ch/02h).
 *
 * A thin provisioned LU whose backstore can tell how much room is left for
 * unmapped blocks to be mapped into (fileio: the free space of the
 * filesystem under its file) offers one threshold: a soft threshold on the
 * available LBA mapping resources, armed decreasing. An initiator enables
 * it and sets its count with MODE SELECT. When a write leaves fewer
 * threshold sets available than the count, the device establishes THIN
 * PROVISIONING SOFT THRESHOLD REACHED (6/38/07) for every I_T nexus, or
 * with SITUA for the one whose write it was, and the threshold is disarmed
 * until the available resources are back above the count by a set. The
 * write itself succeeds: only running out (7/27/07) fails one.
 *
 * Off, the cost on the write path is one load; on, one atomic, and the
 * filesystem is asked as the threshold nears, or once a second.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/sizes.h>

#include <ktarget/backend.h>
#include <ktarget/fabric.h>
#include <ktarget/proto/spc.h>

#include "cmdsets.h"
#include "core.h"

/* the longest the room left goes unsampled while writes come */
#define KT_LBP_SAMPLE_EVERY	HZ

void kt_lbp_thresh_dev_init(struct kt_dev *dev)
{
	spin_lock_init(&dev->state->lbp.lock);
}

/* After the backstore's enable: whether it can tell its free room. */
void kt_lbp_thresh_enable(struct kt_dev *dev)
{
	u64 avail;

	dev->state->lbp.offered = dev->ops->lbp_available &&
			   !dev->ops->lbp_available(dev, &avail);
}

/*
 * SBC-3 6.6.4: the THRESHOLD EXPONENT, the smallest that numbers every
 * block in 32 bits, and no threshold set smaller than 1 MiB.
 */
static u8 kt_lbp_thresh_exp(struct kt_dev *dev)
{
	u32 bs = dev->attrib.block_size;
	u8 exp = bs < SZ_1M ? ilog2(SZ_1M / bs) : 1;

	while (kt_dev_nr_lblocks(dev) >> exp > U32_MAX)
		exp++;
	return exp;
}

/*
 * Every command's view of the LU asks for this: no lock, each field read
 * once (a MODE SENSE racing a MODE SELECT may see either's fields).
 */
void kt_lbp_thresh_lu_info(struct kt_dev *dev, struct kt_lu_info *lu)
{
	struct kt_lbp_thresh *t = &dev->state->lbp;

	/* a fully provisioned LU has nothing to warn of */
	if (!t->offered || !kt_spc_lbpme(lu))
		return;
	lu->flags |= KT_LU_LBP_THRESH;
	lu->lbp_thresh_exp = kt_lbp_thresh_exp(dev);
	if (READ_ONCE(t->on))
		lu->flags |= KT_LU_LBP_THRESH_ON;
	if (READ_ONCE(t->situa))
		lu->flags |= KT_LU_LBP_SITUA;
	lu->lbp_thresh_count = READ_ONCE(t->count);
}

/* MODE SELECT of the 1Ch/02h page: the threshold as the initiator set it */
void kt_lbp_thresh_select(struct kt_cmd *cmd, const struct kt_mode_select *sel)
{
	struct kt_dev *dev = cmd->dev;
	struct kt_lbp_thresh *t = &dev->state->lbp;
	bool changed;

	spin_lock(&t->lock);
	changed = t->on != sel->lbp_on || t->situa != sel->lbp_situa ||
		  t->count != sel->lbp_count;
	WRITE_ONCE(t->on, sel->lbp_on);
	WRITE_ONCE(t->situa, sel->lbp_situa);
	WRITE_ONCE(t->count, sel->lbp_count);
	/* the current page sent back unchanged does not re-arm it */
	if (changed) {
		t->armed = true;
		/* the next write samples the room left */
		WRITE_ONCE(t->sample_at, 0);
	}
	spin_unlock(&t->lock);
	if (!changed)
		return;
	pr_info_ratelimited("device %u: soft threshold %s at %u sets of 2^%u blocks by MODE SELECT\n",
			    dev->index, sel->lbp_on ? "on" : "off",
			    sel->lbp_count, kt_lbp_thresh_exp(dev));
	/* SPC-4 7.5.1: MODE PARAMETERS CHANGED for the other nexuses */
	kt_ua_raise(dev, KT_ASC_MODE_PARAMS_CHANGED, KT_UA_OTHERS, cmd->sess);
}

/*
 * Sample the room left and act on it: reached below the count while
 * armed, re-armed once a set above it (so that free space hovering at the
 * count does not repeat the unit attention). One sample at a time; a
 * write that finds one running leaves it to that one, whose count of the
 * bytes written began before it asked the filesystem. Process context.
 */
static void kt_lbp_sample(struct kt_dev *dev, struct kt_session *sess)
{
	struct kt_lbp_thresh *t = &dev->state->lbp;
	u64 avail = 0, sets, limit, margin = U64_MAX, w0;
	bool reached = false, situa;
	u8 exp = kt_lbp_thresh_exp(dev);
	int ret;

	if (test_and_set_bit_lock(0, &t->sampling))
		return;
	w0 = atomic64_read(&t->written);
	ret = dev->ops->lbp_available(dev, &avail);
	sets = div_u64(avail, dev->attrib.block_size) >> exp;

	spin_lock(&t->lock);
	if (!ret && t->on) {
		if (t->armed && sets < t->count) {
			t->armed = false;
			reached = true;
		} else if (!t->armed && sets > t->count) {
			t->armed = true;
		}
		limit = ((u64)t->count << exp) * dev->attrib.block_size;
		/*
		 * Free space falls by at most what is written, or by more
		 * where a small write fills a filesystem block: ask again
		 * when half the margin above the count may be gone.
		 */
		if (t->armed)
			margin = (avail - limit) / 2;
	}
	WRITE_ONCE(t->sample_at, margin > U64_MAX - w0 ? U64_MAX : w0 + margin);
	WRITE_ONCE(t->next_sample, get_jiffies_64() + KT_LBP_SAMPLE_EVERY);
	situa = t->situa;
	spin_unlock(&t->lock);
	clear_bit_unlock(0, &t->sampling);
	if (!reached)
		return;

	pr_warn_ratelimited("device %u: thin provisioning soft threshold reached: %llu MiB left for new blocks\n",
			    dev->index, avail >> 20);
	if (situa && sess)
		kt_ua_raise(dev, KT_ASC_SOFT_THRESHOLD, KT_UA_ONLY, sess);
	else
		kt_ua_raise(dev, KT_ASC_SOFT_THRESHOLD, KT_UA_ALL, NULL);
}

/* Thin provisioning turned off since: the page is gone, and so is it. */
static bool kt_lbp_watched(struct kt_dev *dev)
{
	return READ_ONCE(dev->state->lbp.on) &&
	       (dev->attrib.emulate_tpu || dev->attrib.emulate_tpws);
}

/*
 * @bytes were written to @dev for @sess (process context). The
 * filesystem is asked only once the writes since the last sample could
 * have used up half the margin above the count, and otherwise every
 * KT_LBP_SAMPLE_EVERY, for what others use of the filesystem and for the
 * room that comes back.
 */
void kt_lbp_consumed(struct kt_dev *dev, struct kt_session *sess, u64 bytes)
{
	struct kt_lbp_thresh *t = &dev->state->lbp;
	u64 total;

	if (!kt_lbp_watched(dev))
		return;
	total = atomic64_add_return(bytes, &t->written);
	if (total < READ_ONCE(t->sample_at) &&
	    time_before64(get_jiffies_64(), READ_ONCE(t->next_sample)))
		return;
	kt_lbp_sample(dev, sess);
}

/* Blocks of @dev were unmapped or zeroed: the room left is asked now. */
void kt_lbp_resample(struct kt_dev *dev, struct kt_session *sess)
{
	if (kt_lbp_watched(dev))
		kt_lbp_sample(dev, sess);
}

/* A backstore's write of @bytes for @cmd has completed. */
void kt_lbp_written(struct kt_cmd *cmd, u32 bytes)
{
	kt_lbp_consumed(cmd->dev, cmd->sess, bytes);
}
EXPORT_SYMBOL_GPL(kt_lbp_written);
