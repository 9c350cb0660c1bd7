// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: T10-PI emulation's walk over a command's data. A backstore
 * with PI on (attrib/pi_prot_type 1 or 3: fileio, rd) keeps 8 bytes per
 * logical block beside the data and calls these from its rw(): the PI a
 * write makes of each block before the data goes down, the checks a read
 * makes of each block once the data is up (SBC-4 4.22; the tuple and its
 * CRC are proto/pi.c's).
 *
 * A fabric that carries PI beside the data (DIX: the loopback's SCSI
 * host) hands it in with kt_cmd_set_fabric_prot(), and only then may
 * READ and WRITE set RDPROTECT / WRPROTECT (kt_sbc_check_protect()). Such
 * a write's tuples are checked as WRPROTECT says before any of it goes
 * down (kt_pi_check_carried()), and kept as they came; such a read's are
 * checked as RDPROTECT says and copied out to the fabric's buffer. Without
 * PI from the fabric (iSCSI/TCP; RDPROTECT / WRPROTECT 000b), a write
 * makes the PI (application tag 0, reference tag the LBA for type 1) and
 * a read checks the guard, and the reference tag of type 1, of every block
 * it returns, whatever attrib/pi_prot_verify says: LIO checks on the way
 * out of a fabric without PI too (target_read_prot_action()).
 *
 * A fabric may show a LU that keeps no PI as one of type 1 or 3 (its
 * fabric_prot_type, kt_session.prot_type): the PI then lives only between
 * the initiator and the core, which checks a write's tuples as WRPROTECT
 * says and drops them (LIO's DOUT_STRIP), and makes a read's once the data
 * is up (DIN_INSERT, kt_pi_insert()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/rwsem.h>
#include <linux/scatterlist.h>

#include <ktarget/backend.h>
#include <ktarget/fabric.h>
#include <ktarget/proto/pi.h>

#include "core.h"

u8 kt_cmd_pi_type(const struct kt_cmd *cmd)
{
	const struct kt_dev *dev = cmd->dev;
	u8 type = kt_pi_type(dev);

	if (type || !cmd->sess || dev->attrib.emulate_cdrom)
		return type;
	return READ_ONCE(cmd->sess->prot_type);
}

bool kt_cmd_pi_fabric_only(const struct kt_cmd *cmd)
{
	return !kt_pi_type(cmd->dev) && kt_cmd_pi_type(cmd);
}

/*
 * Walk @nr blocks of cmd->sgl from byte @off; each block's CRC goes to
 * @fn with its index. Stops at the first @fn that fails, and returns it.
 */
static sense_reason_t kt_pi_walk(struct kt_cmd *cmd, u32 off, u32 nr,
				 sense_reason_t (*fn)(struct kt_cmd *cmd,
						      u32 i, u16 crc,
						      void *arg),
				 void *arg)
{
	u32 bs = cmd->dev->attrib.block_size, i = 0, in_blk = 0;
	sense_reason_t reason = KT_SENSE_NONE;
	struct sg_mapping_iter m;
	u16 crc = 0;

	sg_miter_start(&m, cmd->sgl, cmd->sg_nents,
		       SG_MITER_ATOMIC | SG_MITER_FROM_SG);
	if (off && !sg_miter_skip(&m, off))
		goto short_sgl;
	while (i < nr && sg_miter_next(&m)) {
		size_t o = 0;

		while (o < m.length && i < nr) {
			size_t n = min_t(size_t, m.length - o, bs - in_blk);

			crc = kt_pi_crc(crc, m.addr + o, n);
			o += n;
			in_blk += n;
			if (in_blk < bs)
				continue;
			reason = fn(cmd, i, crc, arg);
			if (reason)
				goto out;
			i++;
			in_blk = 0;
			crc = 0;
		}
	}
short_sgl:
	/* the backstore asked for more than the buffer holds */
	if (WARN_ON_ONCE(i < nr))
		reason = KT_SENSE_LU_COMM_FAILURE;
out:
	sg_miter_stop(&m);
	return reason;
}

struct kt_pi_walk_arg {
	u64		lba;
	u8		type;
	unsigned int	checks;
	u8		*pi;
};

/* The byte of cmd->prot_sgl where the tuple of the block at data byte @off lies */
static u32 kt_pi_prot_off(struct kt_cmd *cmd, u32 off)
{
	return off / cmd->dev->attrib.block_size * KT_PI_TUPLE_LEN;
}

static sense_reason_t kt_pi_gen_block(struct kt_cmd *cmd, u32 i, u16 crc,
				      void *arg)
{
	struct kt_pi_walk_arg *a = arg;

	kt_pi_tuple_make(a->pi + i * KT_PI_TUPLE_LEN, a->type, crc, a->lba + i);
	return KT_SENSE_NONE;
}

void kt_pi_generate(struct kt_cmd *cmd, u32 off, u64 lba, u32 nr, u8 *pi)
{
	struct kt_pi_walk_arg a = {
		.lba = lba, .type = kt_pi_type(cmd->dev), .pi = pi,
	};

	/* the initiator's tuples, checked by kt_pi_check_carried() */
	if (cmd->protect && cmd->prot_sgl) {
		if (sg_pcopy_to_buffer(cmd->prot_sgl, cmd->prot_nents, pi,
				       (size_t)nr * KT_PI_TUPLE_LEN,
				       kt_pi_prot_off(cmd, off)) ==
		    (size_t)nr * KT_PI_TUPLE_LEN)
			return;
		WARN_ON_ONCE(1);
	}
	if (kt_pi_walk(cmd, off, nr, kt_pi_gen_block, &a))
		/* PI no block matches: every read of these fails its guard */
		memset(pi, 0, (size_t)nr * KT_PI_TUPLE_LEN);
}
EXPORT_SYMBOL_GPL(kt_pi_generate);

static sense_reason_t kt_pi_check_block(struct kt_cmd *cmd, u32 i, u16 crc,
					void *arg)
{
	struct kt_pi_walk_arg *a = arg;
	sense_reason_t reason;

	reason = kt_pi_tuple_check(a->pi + i * KT_PI_TUPLE_LEN, a->type, crc,
				   a->lba + i, a->checks, 0, 0);
	if (reason) {
		cmd->sense_info = a->lba + i;
		cmd->sense_info_valid = true;
		pr_warn_ratelimited("device %u: LBA %llu: its protection information's %s does not match\n",
				    cmd->dev->index, a->lba + i,
				    reason == KT_SENSE_PI_GUARD ? "guard" :
				    reason == KT_SENSE_PI_REF_TAG ? "reference tag" :
				    "application tag");
	}
	return reason;
}

sense_reason_t kt_pi_verify(struct kt_cmd *cmd, u32 off, u64 lba, u32 nr,
			    const u8 *pi)
{
	u8 type = kt_pi_type(cmd->dev);
	struct kt_pi_walk_arg a = {
		.lba = lba, .type = type, .pi = (u8 *)pi,
		.checks = kt_pi_protect_checks(type, cmd->protect),
	};
	sense_reason_t reason = KT_SENSE_NONE;
	size_t len = (size_t)nr * KT_PI_TUPLE_LEN;

	if (a.checks)
		reason = kt_pi_walk(cmd, off, nr, kt_pi_check_block, &a);
	/* RDPROTECT: the tuples go to the initiator with the data */
	if (!reason && cmd->protect && cmd->prot_sgl &&
	    sg_pcopy_from_buffer(cmd->prot_sgl, cmd->prot_nents, pi, len,
				 kt_pi_prot_off(cmd, off)) != len)
		reason = KT_SENSE_LU_COMM_FAILURE;
	return reason;
}
EXPORT_SYMBOL_GPL(kt_pi_verify);

/* tuples of the fabric's list checked at a time, from the stack */
#define KT_PI_CHECK_BATCH	32

sense_reason_t kt_pi_check_carried(struct kt_cmd *cmd, u32 len)
{
	u32 bs = cmd->dev->attrib.block_size, nr = len / bs, done, n;
	u8 type = kt_cmd_pi_type(cmd), buf[KT_PI_CHECK_BATCH * KT_PI_TUPLE_LEN];
	struct kt_pi_walk_arg a = {
		.type = type, .pi = buf,
		.checks = kt_pi_protect_checks(type, cmd->protect),
	};
	sense_reason_t reason = KT_SENSE_NONE;

	if (!a.checks || !cmd->prot_sgl)
		return KT_SENSE_NONE;
	for (done = 0; done < nr && !reason; done += n) {
		n = min_t(u32, nr - done, KT_PI_CHECK_BATCH);
		if (sg_pcopy_to_buffer(cmd->prot_sgl, cmd->prot_nents, buf,
				       n * KT_PI_TUPLE_LEN,
				       done * KT_PI_TUPLE_LEN) !=
		    n * KT_PI_TUPLE_LEN)
			return KT_SENSE_LU_COMM_FAILURE;
		a.lba = cmd->lba + done;
		reason = kt_pi_walk(cmd, done * bs, n, kt_pi_check_block, &a);
	}
	return reason;
}
EXPORT_SYMBOL_GPL(kt_pi_check_carried);

sense_reason_t kt_pi_insert(struct kt_cmd *cmd, u32 len)
{
	u32 bs = cmd->dev->attrib.block_size, nr = len / bs, done, n;
	u8 buf[KT_PI_CHECK_BATCH * KT_PI_TUPLE_LEN];
	struct kt_pi_walk_arg a = { .type = kt_cmd_pi_type(cmd), .pi = buf };
	sense_reason_t reason;

	for (done = 0; done < nr; done += n) {
		n = min_t(u32, nr - done, KT_PI_CHECK_BATCH);
		a.lba = cmd->lba + done;
		reason = kt_pi_walk(cmd, done * bs, n, kt_pi_gen_block, &a);
		if (reason)
			return reason;
		if (sg_pcopy_from_buffer(cmd->prot_sgl, cmd->prot_nents, buf,
					 n * KT_PI_TUPLE_LEN,
					 done * KT_PI_TUPLE_LEN) !=
		    n * KT_PI_TUPLE_LEN)
			return KT_SENSE_LU_COMM_FAILURE;
	}
	return KT_SENSE_NONE;
}

void kt_pi_dev_init(struct kt_dev *dev)
{
	unsigned int i;

	for (i = 0; i < KT_PI_STRIPES; i++)
		init_rwsem(&dev->state->pi_stripes[i]);
}

/* The stripes that the regions of [@pos, @pos + @len) map onto */
static unsigned long kt_pi_stripes_of(u64 pos, u64 len)
{
	u64 first = pos >> KT_PI_REGION_SHIFT;
	u64 last = (pos + max_t(u64, len, 1) - 1) >> KT_PI_REGION_SHIFT;
	unsigned long set = 0;

	if (last - first >= KT_PI_STRIPES - 1)
		return GENMASK(KT_PI_STRIPES - 1, 0);
	for (; first <= last; first++)
		set |= BIT(first % KT_PI_STRIPES);
	return set;
}

/*
 * Taken in the order of their index, each stripe its own lockdep
 * subclass: two ranges that share stripes wait for each other, never the
 * other way round.
 */
void kt_pi_range_lock(struct kt_dev *dev, u64 pos, u64 len, bool write)
{
	unsigned long set = kt_pi_stripes_of(pos, len);
	unsigned int i;

	for_each_set_bit(i, &set, KT_PI_STRIPES) {
		if (write)
			down_write_nested(&dev->state->pi_stripes[i], i);
		else
			down_read_nested(&dev->state->pi_stripes[i], i);
	}
}
EXPORT_SYMBOL_GPL(kt_pi_range_lock);

void kt_pi_range_unlock(struct kt_dev *dev, u64 pos, u64 len, bool write)
{
	unsigned long set = kt_pi_stripes_of(pos, len);
	unsigned int i;

	for_each_set_bit(i, &set, KT_PI_STRIPES) {
		if (write)
			up_write(&dev->state->pi_stripes[i]);
		else
			up_read(&dev->state->pi_stripes[i]);
	}
}
EXPORT_SYMBOL_GPL(kt_pi_range_unlock);
