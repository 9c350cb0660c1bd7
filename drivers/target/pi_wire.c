// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: T10-PI interleaved with the data. A fabric that has no
 * buffer for PI beside the data (iSCSI: kt_fabric_ops.pi_interleaved)
 * moves what RDPROTECT / WRPROTECT transfer as SBC-4 lays it out in the
 * Data-In and Data-Out buffers: each logical block followed by its 8-byte
 * tuple. The core takes the two apart before the command runs, into a data
 * list and a PI list of its own that the rest of the core and the
 * backstores handle as they handle a DIX fabric's, and puts a read's back
 * together once they are filled. The fabric's buffer stays the command's
 * (cmd->pi_wire_sgl meanwhile).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/scatterlist.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include <ktarget/backend.h>
#include <ktarget/proto/pi.h>

#include "core.h"

/*
 * A position in one of the core's own lists (sgl_alloc(GFP_KERNEL): pages
 * with a kernel address, no mapping needed)
 */
struct kt_sg_at {
	struct scatterlist	*sg;
	size_t			off;
};

/*
 * @len bytes between the fabric's list (@wire, mapped a piece at a time)
 * and @at, both moving on: out of @wire when @split, into it otherwise;
 * false where either ends
 */
static bool kt_pi_wire_move(struct sg_mapping_iter *wire, size_t *woff,
			    struct kt_sg_at *at, size_t len, bool split)
{
	while (len) {
		size_t n;
		u8 *p;

		if (*woff == wire->length) {
			if (!sg_miter_next(wire))
				return false;
			*woff = 0;
		}
		if (at->sg && at->off == at->sg->length) {
			at->sg = sg_next(at->sg);
			at->off = 0;
		}
		if (!at->sg)
			return false;
		n = min3(len, wire->length - *woff, at->sg->length - at->off);
		p = sg_virt(at->sg) + at->off;
		if (split)
			memcpy(p, wire->addr + *woff, n);
		else
			memcpy(wire->addr + *woff, p, n);
		*woff += n;
		at->off += n;
		len -= n;
	}
	return true;
}

/*
 * @nr blocks between the fabric's interleaved list and the core's data and
 * PI lists: into them (@split) or back. Process context.
 */
static bool kt_pi_wire_copy(struct kt_cmd *cmd, u32 nr, bool split)
{
	u32 bs = cmd->dev->attrib.block_size, i;
	struct kt_sg_at data = { .sg = cmd->sgl };
	struct kt_sg_at prot = { .sg = cmd->prot_sgl };
	struct sg_mapping_iter wire;
	size_t woff = 0;
	bool ok = true;

	sg_miter_start(&wire, cmd->pi_wire_sgl, cmd->pi_wire_nents,
		       split ? SG_MITER_FROM_SG : SG_MITER_TO_SG);
	for (i = 0; i < nr && ok; i++) {
		ok = kt_pi_wire_move(&wire, &woff, &data, bs, split) &&
		     kt_pi_wire_move(&wire, &woff, &prot, KT_PI_TUPLE_LEN,
				     split);
		if (!(i % 64))
			cond_resched();
	}
	sg_miter_stop(&wire);
	return !WARN_ON_ONCE(!ok);
}

sense_reason_t kt_pi_wire_split(struct kt_cmd *cmd, u32 nr, bool write)
{
	u32 bs = cmd->dev->attrib.block_size;
	struct scatterlist *data, *prot;
	unsigned int dn, pn;

	if (WARN_ON_ONCE(!nr))
		return KT_SENSE_LU_COMM_FAILURE;
	data = sgl_alloc((u64)nr * bs, GFP_KERNEL, &dn);
	/* zeroed: tuples no step fills never go out as old memory */
	prot = sgl_alloc((u64)nr * KT_PI_TUPLE_LEN, GFP_KERNEL | __GFP_ZERO,
			 &pn);
	if (!data || !prot) {
		sgl_free(data);
		sgl_free(prot);
		return KT_SENSE_OUT_OF_RESOURCES;
	}
	/* a second buffer of the command's: under the data ceiling too */
	if (!kt_data_limit_try_charge(cmd->sess, dn + pn)) {
		sgl_free(data);
		sgl_free(prot);
		return KT_SENSE_TASK_SET_FULL;
	}
	cmd->pi_wire_pages = dn + pn;
	cmd->pi_wire_sgl = cmd->sgl;
	cmd->pi_wire_nents = cmd->sg_nents;
	cmd->sgl = data;
	cmd->sg_nents = dn;
	cmd->prot_sgl = prot;
	cmd->prot_nents = pn;
	cmd->prot_len = nr * KT_PI_TUPLE_LEN;
	if (write && !kt_pi_wire_copy(cmd, nr, true)) {
		kt_pi_wire_join(cmd, false);
		return KT_SENSE_LU_COMM_FAILURE;
	}
	return KT_SENSE_NONE;
}

sense_reason_t kt_pi_wire_join(struct kt_cmd *cmd, bool read)
{
	bool ok = true;

	if (!cmd->pi_wire_sgl)
		return KT_SENSE_NONE;
	if (read)
		ok = kt_pi_wire_copy(cmd, cmd->prot_len / KT_PI_TUPLE_LEN,
				     false);
	sgl_free(cmd->sgl);
	sgl_free(cmd->prot_sgl);
	kt_data_limit_uncharge(cmd->sess, cmd->pi_wire_pages);
	cmd->pi_wire_pages = 0;
	cmd->sgl = cmd->pi_wire_sgl;
	cmd->sg_nents = cmd->pi_wire_nents;
	cmd->pi_wire_sgl = NULL;
	cmd->pi_wire_nents = 0;
	cmd->prot_sgl = NULL;
	cmd->prot_nents = 0;
	cmd->prot_len = 0;
	return ok ? KT_SENSE_NONE : KT_SENSE_LU_COMM_FAILURE;
}
