// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: kt_xcopy_parse() over arbitrary bytes, then the segment
 * arithmetic, chunk iterator and response builders over what it accepted.
 *
 * Inputs whose first byte is odd are not parsed as they are: they drive a
 * generator that writes a well-formed list (consistent lengths, E4h CSCD
 * descriptors, 02h segments) and then corrupts one byte of it, so that the
 * descriptor checks are reached without a seed corpus.
 *
 * Invariants, checked with abort(): an accepted list never claims more
 * bytes than it was given, its counts respect the limits, every descriptor
 * decodes back to the bytes it came from, every segment names a CSCD that
 * exists; an error always carries a sense the core can send, with a field
 * pointer inside the buffer; spans fit both devices and their chunks tile
 * them exactly; builders never write past the allocation length.
 */
#include <linux/types.h>
#include <stdlib.h>
#include <string.h>
#include <linux/unaligned.h>

#include <ktarget/proto/xcopy.h>

static struct kt_xcopy_list list;
static u8 gen[KT_XCOPY_MAX_PARAM_LEN + 64];

/* A byte of the input, cycling; 0 for an empty input */
static u8 pick(const u8 *data, size_t size, size_t i)
{
	return size ? data[i % size] : 0;
}

/* Build a well-formed list from @data into gen[], corrupt one byte. */
static size_t generate(const u8 *data, size_t size)
{
	unsigned int ncscd = pick(data, size, 1) % (KT_XCOPY_MAX_CSCD + 2);
	unsigned int nseg = pick(data, size, 2) % (KT_XCOPY_MAX_SEGMENTS + 2);
	size_t n = KT_XCOPY_HDR_LEN, i, k = 8;
	u8 *d;

	memset(gen, 0, sizeof(gen));
	gen[0] = pick(data, size, 3);
	gen[1] = pick(data, size, 4) & 0x3f;
	for (i = 0; i < ncscd && n + 32 <= sizeof(gen); i++, n += 32) {
		d = &gen[n];
		d[0] = 0xe4;
		memcpy(&d[9], data, size < 11 ? size : 11);
		switch (pick(data, size, k++) & 3) {
		case 0:				/* NAA 6h */
			d[4] = 0x1;
			d[5] = 0x3;
			d[7] = 16;
			d[8] = 0x60;
			break;
		case 1:				/* NAA 5h */
			d[4] = 0x1;
			d[5] = 0x3;
			d[7] = 8;
			d[8] = 0x50;
			break;
		case 2:				/* EUI-64: 8, 12 or 16 bytes */
			d[4] = 0x1;
			d[5] = 0x2;
			d[7] = 8 + 4 * (pick(data, size, k++) % 3);
			break;
		default:			/* T10 vendor ID, ASCII */
			d[4] = 0x2;
			d[5] = 0x1;
			d[7] = 8 + pick(data, size, k++) % 13;
			break;
		}
		put_unaligned_be24(512U << (pick(data, size, k++) & 3), &d[29]);
	}
	put_unaligned_be16(n - KT_XCOPY_HDR_LEN, &gen[2]);
	for (i = 0; i < nseg && n + 28 <= sizeof(gen); i++, n += 28) {
		d = &gen[n];
		d[0] = 0x02;
		d[1] = pick(data, size, k++) & 0x3;
		d[3] = 24;
		put_unaligned_be16(pick(data, size, k++) % (ncscd + 1), &d[4]);
		put_unaligned_be16(pick(data, size, k++) % (ncscd + 1), &d[6]);
		put_unaligned_be16(pick(data, size, k) << 8 |
				   pick(data, size, k + 1), &d[10]);
		k += 2;
		put_unaligned_be32(pick(data, size, k++) << 8, &d[16]);
		put_unaligned_be32(pick(data, size, k++) << 8, &d[24]);
	}
	put_unaligned_be32(n - KT_XCOPY_HDR_LEN -
			   get_unaligned_be16(&gen[2]), &gen[8]);

	/* corrupt one byte, or cut the list short, as the input says */
	if (size > 8 && n) {
		i = get_unaligned_be16(&data[5]) % n;
		switch (data[7] & 3) {
		case 0:
			gen[i] = data[8];
			break;
		case 1:
			gen[i] ^= 1U << (data[8] & 7);
			break;
		case 2:
			n = i;
			break;
		default:
			break;
		}
	}
	return n;
}

static void check_err(const struct kt_xcopy_err *e, size_t size)
{
	u16 asc = e->asc << 8 | e->ascq;
	u8 sks[3];

	if (e->flags & ~(KT_XCOPY_ERR_SKSV | KT_XCOPY_ERR_BPV |
			 KT_XCOPY_ERR_CSI))
		abort();
	if ((e->flags & KT_XCOPY_ERR_BPV) &&
	    (!(e->flags & KT_XCOPY_ERR_SKSV) || e->bit > 7))
		abort();
	if (e->flags & KT_XCOPY_ERR_SKSV) {
		/* only fields the parser has read are pointed at */
		if (e->field >= size || e->field >= KT_XCOPY_MAX_PARAM_LEN)
			abort();
	}
	if (kt_xcopy_sks(e, sks) != !!(e->flags & KT_XCOPY_ERR_SKSV))
		abort();

	switch (e->key) {
	case KT_XCOPY_KEY_ILLEGAL_REQUEST:
		if (e->flags & KT_XCOPY_ERR_CSI)
			abort();
		if (asc == KT_XCOPY_ASC_PARAM_LIST_LEN) {
			if (e->flags)
				abort();
			break;
		}
		if (!(e->flags & KT_XCOPY_ERR_SKSV))
			abort();
		if (asc != KT_XCOPY_ASC_INVALID_PARAM &&
		    asc != KT_XCOPY_ASC_TOO_MANY_CSCD &&
		    asc != KT_XCOPY_ASC_BAD_CSCD_TYPE &&
		    asc != KT_XCOPY_ASC_TOO_MANY_SEGMENTS &&
		    asc != KT_XCOPY_ASC_BAD_SEGMENT_TYPE)
			abort();
		break;
	case KT_XCOPY_KEY_COPY_ABORTED:
		if (asc != KT_XCOPY_ASC_UNREACHABLE_TARGET ||
		    !(e->flags & KT_XCOPY_ERR_SKSV) ||
		    !(e->flags & KT_XCOPY_ERR_CSI) ||
		    e->info >= KT_XCOPY_MAX_SEGMENTS)
			abort();
		break;
	default:
		abort();
	}
}

static void check_list(const struct kt_xcopy_list *l, const u8 *buf,
		       size_t size)
{
	const struct kt_xcopy_cscd *c;
	const struct kt_xcopy_segment *s;
	unsigned int i, off;

	if (l->nr_cscd > KT_XCOPY_MAX_CSCD || l->nr_seg > KT_XCOPY_MAX_SEGMENTS)
		abort();
	if (l->len > size || l->len > KT_XCOPY_MAX_PARAM_LEN ||
	    l->len != KT_XCOPY_HDR_LEN + l->nr_cscd * KT_XCOPY_CSCD_LEN +
		      l->nr_seg * KT_XCOPY_SEG_B2B_LEN)
		abort();
	if (l->list_id_usage == 1 || l->list_id_usage > 3 ||
	    (l->list_id_usage == KT_XCOPY_LIST_ID_NONE && l->list_id))
		abort();
	if (l->list_id != buf[0] || l->priority != (buf[1] & 7))
		abort();

	for (i = 0; i < l->nr_cscd; i++) {
		c = &l->cscd[i];
		off = KT_XCOPY_HDR_LEN + i * KT_XCOPY_CSCD_LEN;
		if (c->offset != off || c->type != 0xe4 || buf[off] != 0xe4 ||
		    c->dev_type || c->assoc ||
		    c->desig_len > KT_XCOPY_DESIG_MAX ||
		    c->desig_len != buf[off + 7] ||
		    memcmp(c->desig, &buf[off + 8], c->desig_len) ||
		    c->block_len != get_unaligned_be24(&buf[off + 29]))
			abort();
		if (c->desig_type < KT_XCOPY_DESIG_T10 ||
		    c->desig_type > KT_XCOPY_DESIG_NAA)
			abort();
		if (!kt_xcopy_cscd_match(c, c->desig_type, &buf[off + 8],
					 c->desig_len))
			abort();
	}

	off = KT_XCOPY_HDR_LEN + l->nr_cscd * KT_XCOPY_CSCD_LEN;
	for (i = 0; i < l->nr_seg; i++, off += KT_XCOPY_SEG_B2B_LEN) {
		s = &l->seg[i];
		if (s->offset != off || s->type != 0x02 || buf[off] != 0x02 ||
		    get_unaligned_be16(&buf[off + 2]) != 24 ||
		    s->src != get_unaligned_be16(&buf[off + 4]) ||
		    s->dst != get_unaligned_be16(&buf[off + 6]) ||
		    s->nr_blocks != get_unaligned_be16(&buf[off + 10]) ||
		    s->src_lba != get_unaligned_be64(&buf[off + 12]) ||
		    s->dst_lba != get_unaligned_be64(&buf[off + 20]))
			abort();
		if ((s->src != KT_XCOPY_CSCD_LOCAL && s->src >= l->nr_cscd) ||
		    (s->dst != KT_XCOPY_CSCD_LOCAL && s->dst >= l->nr_cscd))
			abort();
	}
}

/* Resolve segments against made-up devices and walk their chunks. */
static void check_spans(const struct kt_xcopy_list *l, const u8 *data,
			size_t size)
{
	static const u32 bs[] = { 512, 1024, 4096, 65536 };
	struct kt_xcopy_geom src, dst;
	struct kt_xcopy_span span;
	struct kt_xcopy_err err;
	struct kt_xcopy_iter it;
	struct kt_xcopy_chunk c;
	unsigned int i, unit;
	u64 total, slba, dlba;
	u32 max;
	u8 r;

	for (i = 0; i < l->nr_seg && i < 4; i++) {
		r = pick(data, size, 9 + i);
		src.block_size = bs[r & 3];
		dst.block_size = bs[(r >> 2) & 3];
		src.nr_blocks = l->seg[i].src_lba + (r & 0x10 ? 1ULL << 20 : r);
		dst.nr_blocks = r & 0x20 ? ~0ULL : l->seg[i].dst_lba + 70000;

		if (kt_xcopy_segment_span(l, i, &src, &dst, &span, &err)) {
			if ((err.key != KT_XCOPY_KEY_COPY_ABORTED &&
			     err.key != KT_XCOPY_KEY_HARDWARE_ERROR) ||
			    (err.key == KT_XCOPY_KEY_COPY_ABORTED &&
			     (!(err.flags & KT_XCOPY_ERR_CSI) || err.info != i ||
			      !(err.flags & KT_XCOPY_ERR_SKSV) ||
			      err.field >= l->len)))
				abort();
			continue;
		}
		if (span.bytes > KT_XCOPY_MAX_SEG_BYTES ||
		    span.bytes % src.block_size || span.bytes % dst.block_size)
			abort();
		if (span.src_lba > src.nr_blocks ||
		    span.bytes / src.block_size > src.nr_blocks - span.src_lba ||
		    span.dst_lba > dst.nr_blocks ||
		    span.bytes / dst.block_size > dst.nr_blocks - span.dst_lba)
			abort();

		/* a buffer of 1 MiB to 128 MiB, not always block aligned */
		max = (1U << (20 + (r >> 5))) - (r & 0x40 ? 1 : 0);
		if (kt_xcopy_iter_init(&it, &span, max))
			abort();
		unit = src.block_size > dst.block_size ? src.block_size :
							 dst.block_size;
		total = 0;
		slba = span.src_lba;
		dlba = span.dst_lba;
		while (kt_xcopy_iter_next(&it, &c)) {
			if (!c.bytes || c.bytes > max || c.bytes % unit ||
			    c.src_lba != slba || c.dst_lba != dlba ||
			    (u64)c.src_blocks * src.block_size != c.bytes ||
			    (u64)c.dst_blocks * dst.block_size != c.bytes)
				abort();
			slba += c.src_blocks;
			dlba += c.dst_blocks;
			total += c.bytes;
		}
		if (total != span.bytes)
			abort();
	}
}

/* Builders into exact-size heap buffers: ASan catches any overrun. */
static void check_builders(const u8 *data, size_t size)
{
	struct kt_xcopy_progress p = {
		.bytes = size > 16 ? get_unaligned_be64(&data[8]) : size,
		.segments = pick(data, size, 5),
		.state = pick(data, size, 6) % 3,
		.flags = pick(data, size, 7) & 1,
	};
	unsigned int len = size % 340, sense_len = pick(data, size, 4) * 2;
	u8 *b = malloc(len ? len : 1);

	if (kt_xcopy_build_op_params(b, len) != KT_XCOPY_OP_PARAMS_LEN ||
	    kt_xcopy_build_copy_status(b, len, &p) != KT_XCOPY_COPY_STATUS_LEN ||
	    kt_xcopy_build_vpd_tpc(b, len, 0, NULL) != KT_XCOPY_VPD_TPC_LEN)
		abort();
	if (sense_len > size)
		sense_len = size;
	len = kt_xcopy_build_failure_details(b, len, &p, data, sense_len);
	if (p.state == KT_XCOPY_CM_FAILED ?
	    len != KT_XCOPY_FAILURE_HDR_LEN +
		   (sense_len > KT_XCOPY_SENSE_MAX ? KT_XCOPY_SENSE_MAX :
						     sense_len) :
	    len != 4)
		abort();
	free(b);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct kt_xcopy_err err;
	const u8 *buf = data;
	size_t len = size;
	u8 *copy;

	if (size && (data[0] & 1)) {
		len = generate(data, size);
		buf = gen;
	}
	/* an exact-size copy, so that ASan sees reads past the end */
	copy = malloc(len ? len : 1);
	memcpy(copy, buf, len);

	switch (kt_xcopy_parse(copy, len, &list, &err)) {
	case KT_XCOPY_EMPTY:
		if (len)
			abort();
		break;
	case KT_XCOPY_ERROR:
		check_err(&err, len);
		break;
	case KT_XCOPY_OK:
		check_list(&list, copy, len);
		check_spans(&list, data, size);
		break;
	default:
		abort();
	}
	free(copy);
	check_builders(data, size);
	return 0;
}
