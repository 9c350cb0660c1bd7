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
#include <linux/slab.h>

#include <ktarget/backend.h>
#include <ktarget/proto/pi.h>

#include "core.h"

/* A position in a scatterlist, its current piece mapped */
struct kt_sg_pos {
	struct sg_mapping_iter	m;
	size_t			off;
};

static void kt_sg_pos_start(struct kt_sg_pos *p, struct scatterlist *sgl,
			    unsigned int nents, unsigned int dir)
{
	sg_miter_start(&p->m, sgl, nents, SG_MITER_ATOMIC | dir);
	p->off = 0;
}

/* @len bytes from @from to @to, both moving on; false where either ends */
static bool kt_sg_pos_copy(struct kt_sg_pos *to, struct kt_sg_pos *from,
			   size_t len)
{
	while (len) {
		size_t n;

		if (to->off == to->m.length) {
			if (!sg_miter_next(&to->m))
				return false;
			to->off = 0;
		}
		if (from->off == from->m.length) {
			if (!sg_miter_next(&from->m))
				return false;
			from->off = 0;
		}
		n = min3(len, to->m.length - to->off,
			 from->m.length - from->off);
		memcpy(to->m.addr + to->off, from->m.addr + from->off, n);
		to->off += n;
		from->off += n;
		len -= n;
	}
	return true;
}

/*
 * @nr blocks between the fabric's interleaved list and the core's data and
 * PI lists: into them (@split) or back.
 */
static bool kt_pi_wire_copy(struct kt_cmd *cmd, u32 nr, bool split)
{
	u32 bs = cmd->dev->attrib.block_size, i;
	struct kt_sg_pos wire, data, prot;
	bool ok = true;

	kt_sg_pos_start(&wire, cmd->pi_wire_sgl, cmd->pi_wire_nents,
			split ? SG_MITER_FROM_SG : SG_MITER_TO_SG);
	kt_sg_pos_start(&data, cmd->sgl, cmd->sg_nents,
			split ? SG_MITER_TO_SG : SG_MITER_FROM_SG);
	kt_sg_pos_start(&prot, cmd->prot_sgl, cmd->prot_nents,
			split ? SG_MITER_TO_SG : SG_MITER_FROM_SG);
	for (i = 0; i < nr && ok; i++) {
		if (split)
			ok = kt_sg_pos_copy(&data, &wire, bs) &&
			     kt_sg_pos_copy(&prot, &wire, KT_PI_TUPLE_LEN);
		else
			ok = kt_sg_pos_copy(&wire, &data, bs) &&
			     kt_sg_pos_copy(&wire, &prot, KT_PI_TUPLE_LEN);
	}
	sg_miter_stop(&prot.m);
	sg_miter_stop(&data.m);
	sg_miter_stop(&wire.m);
	return !WARN_ON_ONCE(!ok);
}

sense_reason_t kt_pi_wire_split(struct kt_cmd *cmd, u32 nr, bool write)
{
	u32 bs = cmd->dev->attrib.block_size;
	struct scatterlist *data, *prot;
	unsigned int dn, pn;

	data = sgl_alloc((u64)nr * bs, GFP_KERNEL, &dn);
	prot = sgl_alloc((u64)nr * KT_PI_TUPLE_LEN, GFP_KERNEL, &pn);
	if (!data || !prot) {
		sgl_free(data);
		sgl_free(prot);
		return KT_SENSE_OUT_OF_RESOURCES;
	}
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
	cmd->sgl = cmd->pi_wire_sgl;
	cmd->sg_nents = cmd->pi_wire_nents;
	cmd->pi_wire_sgl = NULL;
	cmd->pi_wire_nents = 0;
	cmd->prot_sgl = NULL;
	cmd->prot_nents = 0;
	cmd->prot_len = 0;
	return ok ? KT_SENSE_NONE : KT_SENSE_LU_COMM_FAILURE;
}
