// SPDX-License-Identifier: GPL-2.0
/*
 * kt_vhost_client: a minimal vhost-scsi "VMM" and virtio-scsi "guest" in
 * one process, for tests/92-vhost.sh. It owns a memory region that stands
 * for guest RAM, lays out split virtqueues in it (control, event, a
 * request queue, and three more request queues it breaks on purpose),
 * gives the kernel its memory table, rings and eventfds, binds the
 * endpoint and talks virtio-scsi on the queues, checking each answer.
 * Output is TAP lines ("ok - ..." / "not ok - ..."), exactly KT_CHECKS of
 * them (plus one with -e), whatever fails.
 *
 *	kt_vhost_client [-A | -e | -H FILE | -p TYPE] WWPN TPGT LUN LAST_LBA
 *
 * -e: after the checks, write "ready" to stdout's log (the file given by
 * -H, created) and wait up to 60 s for a hotplug event: LUN LUN of TPGT
 * removed (VIRTIO_SCSI_T_TRANSPORT_RESET, reason REMOVED).
 * -H FILE: after the checks, create FILE and wait (up to 120 s) until it
 * is removed; then the target must be gone (a command to it is answered
 * VIRTIO_SCSI_S_BAD_TARGET). One check more, as with -e.
 * -A: set-up, then only abort_checks() on a slow LUN (18 checks in all);
 * $KT_VHOST_NEXUS names the TPG's nexus attribute, which must read at
 * once while CLEAR_ENDPOINT waits for a READ (no global lock held).
 * -p TYPE: VIRTIO_SCSI_F_T10_PI negotiated too, then only pi_checks() on
 * a LUN whose LU keeps no PI, through a nexus whose fabric_prot_type is
 * TYPE (0 or 1), and CLEAR_ENDPOINT: 23 checks in all with TYPE 0, 26
 * with TYPE 1.
 *
 * A request posted before SET_ENDPOINT, or after CLEAR_ENDPOINT, stays in
 * its ring (QEMU kicks before it sets the endpoint, and saves the ring's
 * base after it cleared it). The 20th request queue (queue 21) is set up
 * and used, as QEMU does for a guest of 20 vCPUs. At the end, the guest
 * posts bad event buffers with events missed as fast as it can while
 * CLEAR_ENDPOINT must still return.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <endian.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/vhost.h>
#include <linux/virtio_config.h>
#include <linux/virtio_ring.h>
#include <linux/virtio_scsi.h>

#define KT_CHECKS	33

#define MEM_SIZE	(8u << 20)
#define GPA_BASE	0x40000000ull
#define RING_NUM	64
#define NR_VQ		6	/* ctl, evt, req, and three to break */
#define VQ_CTL		0
#define VQ_EVT		1
#define VQ_REQ		2
#define VQ_FAR		21	/* the 20th request queue */
#define EVT_BUFS	4
#define BLK		512

static int checks;

static void result(int good, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", good ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	checks++;
}

static void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static int planned = KT_CHECKS;

/* the checks an early failure skipped: each still reported */
static void finish(void)
{
	while (checks < planned)
		result(0, "not run: an earlier step failed");
}

/* ---- guest memory ---- */

static uint8_t *mem;
static size_t mem_used;

static void *galloc(size_t len, size_t align)
{
	size_t at = (mem_used + align - 1) & ~(align - 1);

	if (at + len > MEM_SIZE) {
		diag("guest memory exhausted");
		exit(1);
	}
	mem_used = at + len;
	memset(mem + at, 0, len);
	return mem + at;
}

static uint64_t gpa(const void *p)
{
	return GPA_BASE + ((const uint8_t *)p - mem);
}

/* ---- virtqueues ---- */

struct vq {
	int			index;
	struct vring_desc	*desc;
	struct vring_avail	*avail;
	struct vring_used	*used;
	struct vring_desc	*indirect;	/* a table for one request */
	uint16_t		avail_idx;
	uint16_t		last_used;
	int			kick, call, err;
};

static struct vq vqs[NR_VQ];
static struct vq far_vq;
static int far_ok;
/* the request queue scsi_post() and scsi_wait() use */
static struct vq *req_q = &vqs[VQ_REQ];
static int vfd;

struct buf {
	void		*p;
	uint32_t	len;
	int		write;		/* device-writable */
};

static int vq_setup(struct vq *q, int index)
{
	struct vhost_vring_state s = { .index = index, .num = RING_NUM };
	struct vhost_vring_addr a = { .index = index };
	struct vhost_vring_file f = { .index = index };

	q->index = index;
	q->desc = galloc(16 * RING_NUM, 16);
	q->avail = galloc(6 + 2 * RING_NUM, 2);
	q->used = galloc(6 + 8 * RING_NUM, 4);
	q->indirect = galloc(16 * 256, 16);
	q->kick = eventfd(0, EFD_NONBLOCK);
	q->call = eventfd(0, EFD_NONBLOCK);
	q->err = eventfd(0, EFD_NONBLOCK);
	a.desc_user_addr = (uintptr_t)q->desc;
	a.avail_user_addr = (uintptr_t)q->avail;
	a.used_user_addr = (uintptr_t)q->used;
	if (ioctl(vfd, VHOST_SET_VRING_NUM, &s))
		return -1;
	s.num = 0;
	if (ioctl(vfd, VHOST_SET_VRING_BASE, &s) ||
	    ioctl(vfd, VHOST_SET_VRING_ADDR, &a))
		return -1;
	f.fd = q->kick;
	if (ioctl(vfd, VHOST_SET_VRING_KICK, &f))
		return -1;
	f.fd = q->call;
	if (ioctl(vfd, VHOST_SET_VRING_CALL, &f))
		return -1;
	f.fd = q->err;
	return ioctl(vfd, VHOST_SET_VRING_ERR, &f);
}

static void vq_kick(struct vq *q)
{
	uint64_t one = 1;

	if (write(q->kick, &one, sizeof(one)) != sizeof(one))
		diag("kick: %s", strerror(errno));
}

/* Publish head @head; the device hears of it. */
static void vq_post(struct vq *q, uint16_t head)
{
	q->avail->ring[q->avail_idx % RING_NUM] = head;
	__sync_synchronize();
	q->avail->idx = ++q->avail_idx;
	__sync_synchronize();
	vq_kick(q);
}

/*
 * Lay @n buffers out from descriptor @first (or in the indirect table)
 * and post them. Returns the head.
 */
static uint16_t vq_chain(struct vq *q, struct buf *b, int n, int first,
			 int indirect)
{
	struct vring_desc *t = indirect ? q->indirect : q->desc + first;
	int i;

	for (i = 0; i < n; i++) {
		t[i].addr = gpa(b[i].p);
		t[i].len = b[i].len;
		t[i].flags = (b[i].write ? VRING_DESC_F_WRITE : 0) |
			     (i < n - 1 ? VRING_DESC_F_NEXT : 0);
		t[i].next = indirect ? i + 1 : first + i + 1;
	}
	if (indirect) {
		q->desc[first].addr = gpa(q->indirect);
		q->desc[first].len = n * sizeof(*t);
		q->desc[first].flags = VRING_DESC_F_INDIRECT;
		q->desc[first].next = 0;
	}
	vq_post(q, first);
	return first;
}

/* Wait up to @ms for a used element: 0 and *@id, *@len, or -1. */
static int vq_wait(struct vq *q, int ms, uint32_t *id, uint32_t *len)
{
	struct pollfd p = { .fd = q->call, .events = POLLIN };
	uint64_t v;
	int waited = 0;

	while (*(volatile uint16_t *)&q->used->idx == q->last_used) {
		if (waited >= ms)
			return -1;
		poll(&p, 1, 100);
		waited += 100;
		if (read(q->call, &v, sizeof(v)) < 0 && errno != EAGAIN)
			return -1;
	}
	__sync_synchronize();
	*id = q->used->ring[q->last_used % RING_NUM].id;
	*len = q->used->ring[q->last_used % RING_NUM].len;
	q->last_used++;
	return 0;
}

/* Whether the error eventfd of @q fired within @ms */
static int vq_err_fired(struct vq *q, int ms)
{
	struct pollfd p = { .fd = q->err, .events = POLLIN };
	uint64_t v;

	return poll(&p, 1, ms) == 1 && read(q->err, &v, sizeof(v)) == sizeof(v);
}

/* ---- virtio-scsi ---- */

static int tpgt, lun;

static void set_lun(uint8_t *l, int target, int n)
{
	memset(l, 0, 8);
	l[0] = 1;
	l[1] = target;
	l[2] = n < 256 ? 0 : 0x40 | (n >> 8);
	l[3] = n & 0xff;
}

struct cmd {
	int		target;
	int		lun;
	uint8_t		cdb[32];
	void		*dout;
	uint32_t	dout_len;
	void		*din;
	uint32_t	din_len;
	int		segs;		/* data split into this many */
	int		indirect;
	int		one_in;		/* response and data-in in one buffer */
	uint64_t	tag;
	/* T10_PI: the first pi_out bytes of dout, pi_in of din, are PI */
	uint32_t	pi_out;
	uint32_t	pi_in;
};

/* the header, with PI (req_pi, T10_PI negotiated) or without: one buffer */
static struct virtio_scsi_cmd_req *req;
static struct virtio_scsi_cmd_req_pi *req_pi;
static int t10_pi;
static struct virtio_scsi_cmd_resp *resp;
static uint8_t *inbuf;		/* response + data-in, for one_in */

/* Post @c on the request queue; scsi_wait() takes its answer. */
static void scsi_post(struct cmd *c)
{
	struct buf b[260];
	uint32_t part, off;
	int n = 0, i, segs = c->segs ? c->segs : 1;

	memset(req_pi, 0, sizeof(*req_pi));
	set_lun(req->lun, c->target, c->lun);
	req->tag = c->tag;
	if (t10_pi) {
		req_pi->pi_bytesout = htole32(c->pi_out);
		req_pi->pi_bytesin = htole32(c->pi_in);
		memcpy(req_pi->cdb, c->cdb, sizeof(req_pi->cdb));
		b[n++] = (struct buf){ req_pi, sizeof(*req_pi), 0 };
	} else {
		memcpy(req->cdb, c->cdb, sizeof(req->cdb));
		b[n++] = (struct buf){ req, sizeof(*req), 0 };
	}
	memset(resp, 0xee, sizeof(*resp));
	for (i = 0, off = 0; c->dout_len && i < segs; i++, off += part) {
		part = i == segs - 1 ? c->dout_len - off : c->dout_len / segs;
		b[n++] = (struct buf){ (uint8_t *)c->dout + off, part, 0 };
	}
	if (c->one_in) {
		memset(inbuf, 0xee, sizeof(*resp));
		b[n++] = (struct buf){ inbuf, sizeof(*resp) + c->din_len, 1 };
	} else {
		b[n++] = (struct buf){ resp, sizeof(*resp), 1 };
		for (i = 0, off = 0; c->din_len && i < segs; i++, off += part) {
			part = i == segs - 1 ? c->din_len - off : c->din_len / segs;
			b[n++] = (struct buf){ (uint8_t *)c->din + off, part, 1 };
		}
	}
	vq_chain(req_q, b, n, 0, c->indirect);
}

static int scsi_wait(struct cmd *c, uint32_t *used_len, int ms)
{
	uint32_t id, len;
	uint8_t *data;

	if (vq_wait(req_q, ms, &id, &len)) {
		diag("no answer within %d s", ms / 1000);
		return -1;
	}
	if (id != 0)
		diag("used id %u, want 0", id);
	if (c->one_in) {
		memcpy(resp, inbuf, sizeof(*resp));
		data = inbuf + sizeof(*resp);
		if (c->din_len)
			memcpy(c->din, data, c->din_len);
	}
	if (used_len)
		*used_len = len;
	return 0;
}

static int scsi(struct cmd *c, uint32_t *used_len)
{
	scsi_post(c);
	return scsi_wait(c, used_len, 20000);
}

static int good(const char *what)
{
	if (resp->response == VIRTIO_SCSI_S_OK && resp->status == 0)
		return 1;
	diag("%s: response %u status %#x sense_len %u key %x asc %02x/%02x",
	     what, resp->response, resp->status, resp->sense_len,
	     resp->sense[2] & 0xf, resp->sense[12], resp->sense[13]);
	return 0;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

/* TEST UNIT READY until no unit attention is left (at most 4) */
static void clear_ua(void)
{
	struct cmd c = { .target = tpgt, .lun = lun };
	int i;

	for (i = 0; i < 4; i++) {
		if (scsi(&c, NULL) || good("TEST UNIT READY"))
			return;
	}
}

static int tmf(int target, uint32_t subtype, uint64_t tag, uint8_t *response)
{
	struct virtio_scsi_ctrl_tmf_req *t = galloc(sizeof(*t), 8);
	struct virtio_scsi_ctrl_tmf_resp *r = galloc(sizeof(*r), 8);
	struct buf b[2] = { { t, sizeof(*t), 0 }, { r, sizeof(*r), 1 } };
	uint32_t id, len;

	t->type = VIRTIO_SCSI_T_TMF;
	t->subtype = subtype;
	set_lun(t->lun, target, lun);
	t->tag = tag;
	r->response = 0xee;
	vq_chain(&vqs[VQ_CTL], b, 2, 0, 0);
	if (vq_wait(&vqs[VQ_CTL], 60000, &id, &len))
		return -1;
	*response = r->response;
	return len == 1 ? 0 : -1;
}

/* ---- the checks ---- */

/* the memory table, as given at set-up */
static struct vhost_memory *m;

static int setup(const char *wwpn, int pi)
{
	struct cmd early = { .target = tpgt, .lun = lun };
	struct vhost_scsi_target t = { 0 };
	uint64_t features, want;
	int i, ok, abi = 0;

	vfd = open("/dev/vhost-scsi", O_RDWR);
	result(vfd >= 0, "open /dev/vhost-scsi");
	if (vfd < 0) {
		diag("open: %s", strerror(errno));
		return -1;
	}
	want = 1ull << VIRTIO_F_VERSION_1 | 1ull << VIRTIO_SCSI_F_HOTPLUG |
	       1ull << VIRTIO_RING_F_INDIRECT_DESC;
	if (pi)
		want |= 1ull << VIRTIO_SCSI_F_T10_PI;
	result(!ioctl(vfd, VHOST_GET_FEATURES, &features) &&
	       (features & want) == want &&
	       !(features & (1ull << VHOST_F_LOG_ALL)),
	       "GET_FEATURES: VERSION_1, HOTPLUG, INDIRECT_DESC%s, no LOG_ALL",
	       pi ? ", T10_PI" : "");
	result(ioctl(vfd, VHOST_SET_MEM_TABLE, &(struct vhost_memory){ 0 }) &&
	       errno == EPERM, "SET_MEM_TABLE before SET_OWNER: EPERM");
	if (ioctl(vfd, VHOST_SET_OWNER))
		return -1;
	features = want | 1ull << VHOST_F_LOG_ALL;
	result(ioctl(vfd, VHOST_SET_FEATURES, &features) && errno == EOPNOTSUPP,
	       "SET_FEATURES with VHOST_F_LOG_ALL: EOPNOTSUPP");
	if (ioctl(vfd, VHOST_SET_FEATURES, &want))
		return -1;
	/* the early request below goes with the header of the features */
	t10_pi = pi;

	m = calloc(1, sizeof(*m) + sizeof(m->regions[0]));
	m->nregions = 1;
	m->regions[0].guest_phys_addr = GPA_BASE;
	m->regions[0].memory_size = MEM_SIZE;
	m->regions[0].userspace_addr = (uintptr_t)mem;
	if (ioctl(vfd, VHOST_SET_MEM_TABLE, m))
		return -1;
	for (i = 0; i < NR_VQ; i++)
		if (vq_setup(&vqs[i], i))
			return -1;
	far_ok = !vq_setup(&far_vq, VQ_FAR);
	if (!far_ok)
		diag("queue %d: %s", VQ_FAR, strerror(errno));
	ok = !ioctl(vfd, VHOST_SCSI_GET_ABI_VERSION, &abi) &&
	     abi == VHOST_SCSI_ABI_VERSION;
	result(ok, "GET_ABI_VERSION: %d", abi);

	/* QEMU kicks the queues before it sets the endpoint */
	scsi_post(&early);
	usleep(1000000);
	ok = vqs[VQ_REQ].used->idx == vqs[VQ_REQ].last_used;
	result(ok, "a request posted before SET_ENDPOINT stays in the ring");
	if (!ok)
		diag("answered: response %u", resp->response);

	strncpy(t.vhost_wwpn, wwpn, sizeof(t.vhost_wwpn) - 1);
	t.vhost_tpgt = tpgt;
	i = ioctl(vfd, VHOST_SCSI_SET_ENDPOINT, &t);
	result(!i, "SET_ENDPOINT %s", wwpn);
	if (i) {
		diag("SET_ENDPOINT: %s", strerror(errno));
		return i;
	}
	ok = !scsi_wait(&early, NULL, 5000) &&
	     resp->response == VIRTIO_SCSI_S_OK;
	result(ok, "... and is answered once the endpoint is set (response %u)",
	       resp->response);
	return 0;
}

/* event buffers, posted at set-up as a guest driver does */
static struct virtio_scsi_event *evts;

static void post_events(void)
{
	int i;

	evts = galloc(EVT_BUFS * sizeof(*evts), 8);
	for (i = 0; i < EVT_BUFS; i++) {
		vqs[VQ_EVT].desc[i] = (struct vring_desc){
			.addr = gpa(&evts[i]), .len = sizeof(*evts),
			.flags = VRING_DESC_F_WRITE };
		vq_post(&vqs[VQ_EVT], i);
	}
}

static void io_checks(uint32_t last_lba)
{
	uint32_t len = 64 << 10, ulen = 0, blocks = len / BLK, i;
	uint8_t *wbuf = galloc(len, 4096), *rbuf = galloc(len, 4096);
	uint8_t *small = galloc(4096, 4096);
	struct cmd c;
	uint8_t r = 0xee;
	int ok;

	memset(&c, 0, sizeof(c));
	c.target = tpgt;
	c.lun = lun;
	clear_ua();

	c.cdb[0] = 0x12;	/* INQUIRY, 96 bytes */
	c.cdb[4] = 96;
	c.din = small;
	c.din_len = 96;
	ok = !scsi(&c, &ulen) && good("INQUIRY") &&
	     !memcmp(small + 8, "KTARGET", 7) && (small[0] & 0x1f) == 0 &&
	     ulen == sizeof(*resp) + 96 - resp->resid;
	result(ok, "INQUIRY: a disk of vendor KTARGET (used length %u, resid %u)",
	       ulen, resp->resid);

	memset(c.cdb, 0, sizeof(c.cdb));
	c.cdb[0] = 0x25;	/* READ CAPACITY (10) */
	c.din_len = 8;
	ok = !scsi(&c, NULL) && good("READ CAPACITY") &&
	     be32(small) == last_lba && be32(small + 4) == BLK;
	result(ok, "READ CAPACITY (10): last LBA %u, blocks of %u (got %u, %u)",
	       last_lba, BLK, be32(small), be32(small + 4));

	for (i = 0; i < len; i++)
		wbuf[i] = (uint8_t)(i * 7 + (i >> 9) + 0x5a);
	memset(&c.cdb, 0, sizeof(c.cdb));
	c.cdb[0] = 0x2a;	/* WRITE (10) of 64 KiB at LBA 16 */
	c.cdb[5] = 16;
	c.cdb[8] = blocks;
	c.din = NULL;
	c.din_len = 0;
	c.dout = wbuf;
	c.dout_len = len;
	c.segs = 16;
	result(!scsi(&c, NULL) && good("WRITE") && resp->resid == 0,
	       "WRITE (10) of 64 KiB in 16 descriptors");

	c.cdb[0] = 0x28;	/* READ (10) back, indirect, response and data together */
	c.dout = NULL;
	c.dout_len = 0;
	c.din = rbuf;
	c.din_len = len;
	c.segs = 1;
	c.indirect = 1;
	c.one_in = 1;
	result(!scsi(&c, &ulen) && good("READ") && !memcmp(rbuf, wbuf, len) &&
	       ulen == sizeof(*resp) + len,
	       "READ (10) through an indirect table, response and data in one buffer: the data written");

	c.indirect = 0;
	c.one_in = 0;
	c.segs = 5;
	memset(rbuf, 0, len);
	result(!scsi(&c, NULL) && good("READ") && !memcmp(rbuf, wbuf, len),
	       "READ (10) in 5 uneven descriptors: the data written");

	memset(&c.cdb, 0, sizeof(c.cdb));
	c.cdb[0] = 0xa0;	/* REPORT LUNS */
	c.cdb[9] = 64;
	c.din = small;
	c.din_len = 64;
	c.segs = 1;
	ok = !scsi(&c, NULL) && good("REPORT LUNS") && be32(small) >= 8;
	result(ok, "REPORT LUNS lists %u LUN(s)", be32(small) / 8);

	memset(&c.cdb, 0, sizeof(c.cdb));
	c.cdb[0] = 0x12;
	c.cdb[4] = 36;
	c.din_len = 36;
	c.lun = 999;
	result(!scsi(&c, NULL) && resp->response == VIRTIO_SCSI_S_OK &&
	       ((resp->status == 2 && (resp->sense[2] & 0xf) == 5 &&
		 resp->sense[12] == 0x25) || (resp->status == 0 &&
		 (small[0] & 0xe0) == 0x60)),
	       "a LUN the TPG lacks: LOGICAL UNIT NOT SUPPORTED (or no LU in INQUIRY)");
	c.lun = lun;

	c.target = (tpgt + 1) & 0xff;
	result(!scsi(&c, NULL) && resp->response == VIRTIO_SCSI_S_BAD_TARGET,
	       "a target the endpoint lacks: VIRTIO_SCSI_S_BAD_TARGET");
	c.target = tpgt;

	{
		struct buf b[2] = { { req, 10, 0 }, { resp, sizeof(*resp), 1 } };
		uint32_t id, l;

		resp->response = 0xee;
		vq_chain(&vqs[VQ_REQ], b, 2, 0, 0);
		result(!vq_wait(&vqs[VQ_REQ], 20000, &id, &l) &&
		       resp->response == VIRTIO_SCSI_S_FAILURE,
		       "a request header of 10 bytes: VIRTIO_SCSI_S_FAILURE");
	}
	{
		set_lun(req->lun, tpgt, lun);
		req->lun[0] = 0;
		struct buf b[2] = { { req, sizeof(*req), 0 },
				    { resp, sizeof(*resp), 1 } };
		uint32_t id, l;

		resp->response = 0xee;
		vq_chain(&vqs[VQ_REQ], b, 2, 0, 0);
		result(!vq_wait(&vqs[VQ_REQ], 20000, &id, &l) &&
		       resp->response == VIRTIO_SCSI_S_BAD_TARGET,
		       "a LUN field whose byte 0 is not 1: VIRTIO_SCSI_S_BAD_TARGET");
	}

	/* task management */
	ok = !tmf(tpgt, VIRTIO_SCSI_T_TMF_LOGICAL_UNIT_RESET, 0, &r) &&
	     r == VIRTIO_SCSI_S_OK;
	result(ok, "TMF LOGICAL UNIT RESET: function complete (%u)", r);
	clear_ua();
	ok = !tmf(tpgt, VIRTIO_SCSI_T_TMF_ABORT_TASK, 0x1234, &r) &&
	     r == VIRTIO_SCSI_S_OK;
	result(ok, "TMF ABORT TASK of no such task: function complete (%u)", r);
	ok = !tmf(tpgt, VIRTIO_SCSI_T_TMF_CLEAR_ACA, 0, &r) &&
	     r == VIRTIO_SCSI_S_FUNCTION_REJECTED;
	result(ok, "TMF CLEAR ACA: function rejected (%u)", r);
	ok = !tmf((tpgt + 1) & 0xff, VIRTIO_SCSI_T_TMF_LOGICAL_UNIT_RESET, 0, &r) &&
	     r == VIRTIO_SCSI_S_BAD_TARGET;
	result(ok, "TMF to a target the endpoint lacks: BAD_TARGET (%u)", r);
	{
		struct virtio_scsi_ctrl_an_req *a = galloc(sizeof(*a), 8);
		struct virtio_scsi_ctrl_an_resp *ar = galloc(sizeof(*ar), 8);
		struct buf b[2] = { { a, sizeof(*a), 0 }, { ar, sizeof(*ar), 1 } };
		uint32_t id, l;

		a->type = VIRTIO_SCSI_T_AN_QUERY;
		set_lun(a->lun, tpgt, lun);
		a->event_requested = 0xff;
		ar->response = 0xee;
		ar->event_actual = 0xee;
		vq_chain(&vqs[VQ_CTL], b, 2, 0, 0);
		result(!vq_wait(&vqs[VQ_CTL], 20000, &id, &l) &&
		       ar->response == VIRTIO_SCSI_S_OK && ar->event_actual == 0,
		       "AN QUERY: no asynchronous events");
	}
	clear_ua();

	memset(&c, 0, sizeof(c));
	c.target = tpgt;
	c.lun = lun;
	ok = far_ok;
	if (ok) {
		req_q = &far_vq;
		ok = !scsi(&c, NULL) && resp->response == VIRTIO_SCSI_S_OK;
		req_q = &vqs[VQ_REQ];
	}
	result(ok, "the 20th request queue (queue %d) is set up and answers",
	       VQ_FAR);

	/* the guest's data-in buffer is read-only: no GOOD with a resid */
	c.cdb[0] = 0x28;	/* READ (10) of 8 blocks at LBA 16 */
	c.cdb[5] = 16;
	c.cdb[8] = 8;
	c.din = small;
	c.din_len = 4096;
	mprotect(small, 4096, PROT_READ);
	ok = !scsi(&c, NULL) &&
	     (resp->response != VIRTIO_SCSI_S_OK || resp->status != 0);
	mprotect(small, 4096, PROT_READ | PROT_WRITE);
	result(ok,
	       "a READ whose data-in cannot be written is not GOOD (response %u status %#x resid %u)",
	       resp->response, resp->status, resp->resid);

	/* residuals as LIO reports them: the bytes the CDB wanted more */
	c.cdb[8] = 16;		/* 8 KiB into 4 KiB */
	ok = !scsi(&c, NULL) && good("READ") && resp->resid == 4096;
	result(ok, "a READ of 8 KiB into 4 KiB: GOOD, resid 4096 (%u)",
	       resp->resid);
	c.cdb[8] = 8;		/* 4 KiB, no data-in buffer */
	c.din = NULL;
	c.din_len = 0;
	ok = !scsi(&c, NULL) && resp->response == VIRTIO_SCSI_S_OK &&
	     (resp->status != 0 || resp->resid == 4096);
	result(ok,
	       "a READ of 4 KiB without a data-in buffer: resid 4096 or not GOOD (status %#x resid %u)",
	       resp->status, resp->resid);
}

/*
 * Hostile chains on queues 3 to 5: each breaks its queue (the error
 * eventfd fires, nothing comes back), and the request queue still works.
 */
static void hostile_checks(void)
{
	struct vq *q;
	struct cmd c = { .target = tpgt, .lun = lun };
	uint32_t id, l;

	q = &vqs[3];		/* a loop: 0 -> 1 -> 0 */
	q->desc[0] = (struct vring_desc){ gpa(req), sizeof(*req), VRING_DESC_F_NEXT, 1 };
	q->desc[1] = (struct vring_desc){ gpa(req), 8, VRING_DESC_F_NEXT, 0 };
	vq_post(q, 0);
	result(vq_err_fired(q, 10000) && vq_wait(q, 500, &id, &l),
	       "a descriptor loop breaks its queue (error eventfd), nothing is used");

	q = &vqs[4];		/* a buffer outside the memory table */
	q->desc[0] = (struct vring_desc){ GPA_BASE + MEM_SIZE - 8, 64, 0, 0 };
	vq_post(q, 0);
	result(vq_err_fired(q, 10000) && vq_wait(q, 500, &id, &l),
	       "a buffer past the memory table breaks its queue");

	q = &vqs[5];		/* an indirect table naming an indirect table */
	q->indirect[0] = (struct vring_desc){ gpa(q->indirect), 32,
					      VRING_DESC_F_INDIRECT, 0 };
	q->desc[0] = (struct vring_desc){ gpa(q->indirect), 16,
					  VRING_DESC_F_INDIRECT, 0 };
	vq_post(q, 0);
	result(vq_err_fired(q, 10000) && vq_wait(q, 500, &id, &l),
	       "a nested indirect table breaks its queue");

	c.cdb[0] = 0x00;	/* TEST UNIT READY */
	result(!scsi(&c, NULL) && good("TEST UNIT READY"),
	       "the request queue still answers");
}

/*
 * -A: LUN is slow (an LU that holds each I/O a few seconds). A READ in
 * flight is aborted (ABORT TASK answers FUNCTION COMPLETE, the READ
 * VIRTIO_SCSI_S_ABORTED); CLEAR_ENDPOINT with another READ in flight
 * waits for it, and the READ is answered.
 */
/*
 * After 1 s, read @path (a configfs attribute that takes kt_vhost_mutex):
 * 0 if that took less than a second, else the seconds it took (99: no
 * such file).
 */
static int read_soon(const char *path)
{
	struct timeval t0, t1;
	char b[256];
	int fd;

	usleep(1000000);
	gettimeofday(&t0, NULL);
	fd = path ? open(path, O_RDONLY) : -1;
	if (fd < 0 || read(fd, b, sizeof(b)) < 0)
		return 99;
	close(fd);
	gettimeofday(&t1, NULL);
	return (t1.tv_sec - t0.tv_sec) * 1000000 +
	       (t1.tv_usec - t0.tv_usec) < 1000000 ? 0 :
	       (int)(t1.tv_sec - t0.tv_sec);
}

#define KT_ABORT_CHECKS	10

static void abort_checks(const char *wwpn)
{
	struct cmd c = { .target = tpgt, .lun = lun, .tag = 0x77 };
	struct vhost_scsi_target t = { 0 };
	uint8_t *buf = galloc(4096, 4096), r = 0xee;
	pid_t child;
	int ok, st;

	clear_ua();
	c.cdb[0] = 0x28;	/* READ (10) of 8 blocks at LBA 0 */
	c.cdb[8] = 8;
	c.din = buf;
	c.din_len = 4096;
	scsi_post(&c);
	usleep(500000);
	ok = !tmf(tpgt, VIRTIO_SCSI_T_TMF_ABORT_TASK, 0x77, &r) &&
	     r == VIRTIO_SCSI_S_OK;
	result(ok, "ABORT TASK of a READ in flight: function complete (%u)", r);
	/* Linux's virtio_scsi frees the aborted request on the TMF's answer */
	result(vqs[VQ_REQ].used->idx != vqs[VQ_REQ].last_used,
	       "the aborted READ is in its used ring before the TMF's answer");
	ok = !scsi_wait(&c, NULL, 60000) &&
	     resp->response == VIRTIO_SCSI_S_ABORTED;
	result(ok, "the aborted READ comes back VIRTIO_SCSI_S_ABORTED (%u)",
	       resp->response);

	clear_ua();
	c.tag = 0x79;
	scsi_post(&c);
	usleep(500000);
	ok = !tmf(tpgt, VIRTIO_SCSI_T_TMF_LOGICAL_UNIT_RESET, 0, &r) &&
	     r == VIRTIO_SCSI_S_OK;
	result(ok, "LOGICAL UNIT RESET with a READ in flight: function complete (%u)",
	       r);
	result(vqs[VQ_REQ].used->idx != vqs[VQ_REQ].last_used,
	       "the READ it aborted is in its used ring before the TMF's answer");
	ok = !scsi_wait(&c, NULL, 60000) &&
	     resp->response == VIRTIO_SCSI_S_ABORTED;
	result(ok, "... and comes back VIRTIO_SCSI_S_ABORTED (%u)",
	       resp->response);

	/* QEMU changes the table while the guest runs (memory hotplug) */
	clear_ua();
	c.tag = 0x7a;
	scsi_post(&c);
	usleep(500000);
	ok = !ioctl(vfd, VHOST_SET_MEM_TABLE, m) &&
	     vqs[VQ_REQ].used->idx != vqs[VQ_REQ].last_used;
	ok = !scsi_wait(&c, NULL, 5000) && good("READ") && ok;
	result(ok, "SET_MEM_TABLE with a READ in flight returns once the READ is answered");

	clear_ua();
	c.tag = 0x78;
	scsi_post(&c);
	usleep(500000);
	strncpy(t.vhost_wwpn, wwpn, sizeof(t.vhost_wwpn) - 1);
	t.vhost_tpgt = tpgt;
	child = fork();
	if (!child)
		_exit(read_soon(getenv("KT_VHOST_NEXUS")));
	result(!ioctl(vfd, VHOST_SCSI_CLEAR_ENDPOINT, &t),
	       "CLEAR_ENDPOINT with a READ in flight");
	ok = !scsi_wait(&c, NULL, 5000) && good("READ");
	result(ok, "... returns once the READ is answered");
	st = -1;
	if (child > 0)
		waitpid(child, &st, 0);
	result(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "meanwhile the TPG's nexus attribute reads at once (%d s)",
	       WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

/*
 * -p TYPE: T10_PI negotiated, the header is a virtio_scsi_cmd_req_pi; LUN
 * is an LU that keeps no PI, reached through a nexus whose
 * fabric_prot_type is TYPE. KT_PI_CHECKS whatever TYPE, then
 * KT_PI_NONE_CHECKS (TYPE 0: RDPROTECT and WRPROTECT are invalid, a
 * READ's PI room stays as the guest left it) or KT_PI_FABRIC_CHECKS
 * (TYPE 1: the LU shows PI of type 1, whose tuples the core makes and
 * checks, and drops).
 */
#define KT_PI_CHECKS		10
#define KT_PI_NONE_CHECKS	5
#define KT_PI_FABRIC_CHECKS	8
#define PI_LBA			64
#define PI_BLOCKS		8
#define PI_LEN			(PI_BLOCKS * 8)
#define PI_BIG			(2u << 20)

/* CRC16 of T10-DIF: polynomial 0x8bb7, initial value 0, MSB first */
static uint16_t crc_t10dif(const uint8_t *p, size_t len)
{
	uint16_t crc = 0;
	size_t i;
	int b;

	for (i = 0; i < len; i++) {
		crc ^= p[i] << 8;
		for (b = 0; b < 8; b++)
			crc = crc & 0x8000 ? (crc << 1) ^ 0x8bb7 : crc << 1;
	}
	return crc;
}

/* the type 1 tuple of @blk at @lba: guard, application tag 0, reference tag */
static void pi_tuple(uint8_t *t, const uint8_t *blk, uint32_t lba)
{
	uint16_t g = crc_t10dif(blk, BLK);

	t[0] = g >> 8;
	t[1] = g;
	t[2] = 0;
	t[3] = 0;
	t[4] = lba >> 24;
	t[5] = lba >> 16;
	t[6] = lba >> 8;
	t[7] = lba;
}

/* A READ (10) or WRITE (10) of PI_BLOCKS blocks at PI_LBA, @protect in byte 1 */
static void pi_rw(struct cmd *c, uint8_t op, uint8_t protect)
{
	memset(c, 0, sizeof(*c));
	c->target = tpgt;
	c->lun = lun;
	c->cdb[0] = op;
	c->cdb[1] = protect << 5;
	c->cdb[5] = PI_LBA;
	c->cdb[8] = PI_BLOCKS;
}

/* @c is answered VIRTIO_SCSI_S_FAILURE, and a TEST UNIT READY after it GOOD */
static int pi_refused(struct cmd *c)
{
	struct cmd t = { .target = tpgt, .lun = lun };
	int ok;

	ok = !scsi(c, NULL) && resp->response == VIRTIO_SCSI_S_FAILURE;
	if (!ok)
		diag("response %u status %#x, want VIRTIO_SCSI_S_FAILURE",
		     resp->response, resp->status);
	return !scsi(&t, NULL) && good("TEST UNIT READY") && ok;
}

/* CHECK CONDITION with sense key @key and @asc / @ascq */
static int pi_sense(uint8_t key, uint8_t asc, uint8_t ascq)
{
	if (resp->response == VIRTIO_SCSI_S_OK && resp->status == 2 &&
	    (resp->sense[2] & 0xf) == key && resp->sense[12] == asc &&
	    resp->sense[13] == ascq)
		return 1;
	diag("response %u status %#x key %x asc %02x/%02x, want %x %02x/%02x",
	     resp->response, resp->status, resp->sense[2] & 0xf,
	     resp->sense[12], resp->sense[13], key, asc, ascq);
	return 0;
}

static void pi_checks(int type, uint32_t last_lba)
{
	uint32_t dlen = PI_BLOCKS * BLK, ulen = 0, i, n, nz, id, l;
	uint8_t *wbuf = galloc(PI_LEN + dlen, 4096);
	uint8_t *rbuf = galloc(PI_LEN + dlen, 4096);
	uint8_t *big = galloc(PI_BIG + dlen, 4096), *keep = galloc(dlen, 4096);
	uint8_t *d;
	struct cmd c;
	int ok;

	memset(&c, 0, sizeof(c));
	c.target = tpgt;
	c.lun = lun;
	clear_ua();

	c.cdb[0] = 0x12;	/* INQUIRY, 96 bytes, no PI */
	c.cdb[4] = 96;
	c.din = rbuf;
	c.din_len = 96;
	ok = !scsi(&c, &ulen) && good("INQUIRY") &&
	     !memcmp(rbuf + 8, "KTARGET", 7) &&
	     ulen == sizeof(*resp) + 96 - resp->resid;
	result(ok,
	       "T10_PI: INQUIRY through the header with PI fields, pi_bytesin 0 (used length %u)",
	       ulen);

	/* the data of PI_BLOCKS blocks, after a PI room of the tuples' size */
	d = wbuf + PI_LEN;
	for (i = 0; i < dlen; i++)
		d[i] = (uint8_t)(i * 13 + (i >> 9) * 5 + type + 0x21);
	pi_rw(&c, 0x2a, 0);
	c.dout = d;
	c.dout_len = dlen;
	result(!scsi(&c, NULL) && good("WRITE") && resp->resid == 0,
	       "T10_PI: WRITE (10) of %u blocks at LBA %u, pi_bytesout 0",
	       PI_BLOCKS, PI_LBA);

	pi_rw(&c, 0x28, 0);
	memset(rbuf, 0, PI_LEN + dlen);
	c.din = rbuf;
	c.din_len = dlen;
	c.segs = 3;
	result(!scsi(&c, NULL) && good("READ") && !memcmp(rbuf, d, dlen),
	       "T10_PI: READ (10) of them, pi_bytesin 0, in 3 descriptors: the data written");

	{
		/* the header of no T10_PI: too short for the one negotiated */
		struct buf b[2] = { { req, sizeof(*req), 0 },
				    { resp, sizeof(*resp), 1 } };
		struct cmd t = { .target = tpgt, .lun = lun };

		memset(req_pi, 0, sizeof(*req_pi));
		set_lun(req->lun, tpgt, lun);
		resp->response = 0xee;
		vq_chain(req_q, b, 2, 0, 0);
		ok = !vq_wait(req_q, 20000, &id, &l) &&
		     resp->response == VIRTIO_SCSI_S_FAILURE;
		if (!ok)
			diag("response %u", resp->response);
		ok = !scsi(&t, NULL) && good("TEST UNIT READY") && ok;
		result(ok,
		       "T10_PI: a header of %zu bytes (without PI fields): VIRTIO_SCSI_S_FAILURE, the queue still answers",
		       sizeof(*req));
	}

	pi_rw(&c, 0x2a, 0);
	c.dout = d;
	c.dout_len = dlen;
	c.pi_out = dlen + 1;
	result(pi_refused(&c),
	       "T10_PI: pi_bytesout %u with %u bytes of data-out: VIRTIO_SCSI_S_FAILURE, the queue still answers",
	       c.pi_out, dlen);

	pi_rw(&c, 0x28, 0);
	c.din = rbuf;
	c.din_len = dlen;
	c.pi_in = dlen + 1;
	result(pi_refused(&c),
	       "T10_PI: pi_bytesin %u with %u bytes of data-in room: VIRTIO_SCSI_S_FAILURE, the queue still answers",
	       c.pi_in, dlen);

	pi_rw(&c, 0x28, 0);
	c.din = big;
	c.din_len = PI_BIG + dlen;
	c.pi_in = PI_BIG;
	result(pi_refused(&c),
	       "T10_PI: pi_bytesin of 2 MiB (more than 1 MiB) with room for it and the data: VIRTIO_SCSI_S_FAILURE, the queue still answers");

	/* within 1 MiB, but more than 8 blocks' tuples: the target holds none */
	pi_rw(&c, 0x28, 0);
	c.din = big;
	c.din_len = (64u << 10) + dlen;
	c.pi_in = 64u << 10;
	result(pi_refused(&c),
	       "T10_PI: pi_bytesin of 64 KiB for a READ of %u blocks: VIRTIO_SCSI_S_FAILURE, the queue still answers",
	       PI_BLOCKS);

	pi_rw(&c, 0x2a, 0);
	memset(big, 0, PI_BIG);
	memcpy(big + PI_BIG, d, dlen);
	c.dout = big;
	c.dout_len = PI_BIG + dlen;
	c.pi_out = PI_BIG;
	result(pi_refused(&c),
	       "T10_PI: pi_bytesout of 2 MiB (more than 1 MiB) before the data-out: VIRTIO_SCSI_S_FAILURE, the queue still answers");

	/*
	 * PI both ways with data one way (data both ways is refused on its
	 * own): pi_bytesin also exceeds the room, which is only the response
	 */
	pi_rw(&c, 0x2a, 0);
	memset(wbuf, 0, PI_LEN);
	c.dout = wbuf;
	c.dout_len = PI_LEN + dlen;
	c.pi_out = PI_LEN;
	c.pi_in = PI_LEN;
	result(pi_refused(&c),
	       "T10_PI: pi_bytesout and pi_bytesin both %u, a WRITE: VIRTIO_SCSI_S_FAILURE, the queue still answers",
	       PI_LEN);

	if (type == 0) {
		/* the PI room, which nothing fills, keeps the guest's bytes */
		pi_rw(&c, 0x28, 0);
		memset(rbuf, 0xa5, PI_LEN);
		memset(rbuf + PI_LEN, 0, dlen);
		c.din = rbuf;
		c.din_len = PI_LEN + dlen;
		c.pi_in = PI_LEN;
		ok = !scsi(&c, &ulen) && good("READ") &&
		     !memcmp(rbuf + PI_LEN, d, dlen) && resp->resid == 0 &&
		     ulen == sizeof(*resp) + PI_LEN + dlen;
		result(ok,
		       "T10_PI: READ (10) of %u blocks, RDPROTECT 000b, pi_bytesin %u: GOOD, the data after the PI room (used length %u, resid %u)",
		       PI_BLOCKS, PI_LEN, ulen, resp->resid);
		for (i = 0, n = 0, nz = 0; i < PI_LEN; i++) {
			n += rbuf[i] != 0xa5;
			nz += rbuf[i] != 0xa5 && rbuf[i];
		}
		if (n)
			diag("PI room: %02x %02x %02x %02x %02x %02x %02x %02x ...",
			     rbuf[0], rbuf[1], rbuf[2], rbuf[3], rbuf[4],
			     rbuf[5], rbuf[6], rbuf[7]);
		result(!n,
		       "T10_PI: ... and the PI room is as the guest left it (%u of %u bytes changed, %u of them not to 0)",
		       n, PI_LEN, nz);

		/* the PI room and the data cut across 100 descriptors */
		memset(rbuf, 0xa5, PI_LEN);
		memset(rbuf + PI_LEN, 0, dlen);
		c.segs = 100;
		c.indirect = 1;
		ok = !scsi(&c, NULL) && good("READ") &&
		     !memcmp(rbuf + PI_LEN, d, dlen);
		result(ok,
		       "T10_PI: the same READ in 100 descriptors of an indirect table (the PI room across two): the data after it");

		pi_rw(&c, 0x28, 1);
		c.din = rbuf;
		c.din_len = PI_LEN + dlen;
		c.pi_in = PI_LEN;
		result(!scsi(&c, NULL) && pi_sense(5, 0x24, 0),
		       "T10_PI: READ (10) with RDPROTECT 001b on a LU without PI: ILLEGAL REQUEST, INVALID FIELD IN CDB");

		pi_rw(&c, 0x2a, 1);
		for (i = 0; i < PI_BLOCKS; i++)
			pi_tuple(wbuf + 8 * i, d + i * BLK, PI_LBA + i);
		c.dout = wbuf;
		c.dout_len = PI_LEN + dlen;
		c.pi_out = PI_LEN;
		result(!scsi(&c, NULL) && pi_sense(5, 0x24, 0),
		       "T10_PI: WRITE (10) with WRPROTECT 001b and its tuples on a LU without PI: ILLEGAL REQUEST, INVALID FIELD IN CDB");
		return;
	}

	memset(&c, 0, sizeof(c));
	c.target = tpgt;
	c.lun = lun;
	c.cdb[0] = 0x9e;	/* READ CAPACITY (16) */
	c.cdb[1] = 0x10;
	c.cdb[13] = 32;
	c.din = rbuf;
	c.din_len = 32;
	ok = !scsi(&c, NULL) && good("READ CAPACITY (16)") &&
	     be32(rbuf) == 0 && be32(rbuf + 4) == last_lba &&
	     (rbuf[12] & 0x0f) == 0x01;
	result(ok,
	       "T10_PI, fabric_prot_type %d: READ CAPACITY (16) shows PROT_EN 1, P_TYPE 0 (type 1) (byte 12: %#x)",
	       type, rbuf[12]);

	pi_rw(&c, 0x28, 1);
	memset(rbuf, 0xa5, PI_LEN);
	memset(rbuf + PI_LEN, 0, dlen);
	c.din = rbuf;
	c.din_len = PI_LEN + dlen;
	c.pi_in = PI_LEN;
	ok = !scsi(&c, &ulen) && good("READ") &&
	     !memcmp(rbuf + PI_LEN, d, dlen) &&
	     ulen == sizeof(*resp) + PI_LEN + dlen;
	result(ok,
	       "T10_PI: READ (10) with RDPROTECT 001b, pi_bytesin %u: GOOD, the data after the tuples (used length %u)",
	       PI_LEN, ulen);
	for (i = 0; i < PI_BLOCKS; i++) {
		uint8_t t[8];

		pi_tuple(t, d + i * BLK, PI_LBA + i);
		if (memcmp(t, rbuf + 8 * i, 2) || memcmp(t + 4, rbuf + 8 * i + 4, 4))
			break;
	}
	if (i < PI_BLOCKS)
		diag("block %u (LBA %u): guard %04x, reference tag %08x", i,
		     PI_LBA + i, rbuf[8 * i] << 8 | rbuf[8 * i + 1],
		     be32(rbuf + 8 * i + 4));
	result(i == PI_BLOCKS,
	       "T10_PI: ... the tuples the target made: guard the CRC of each block, reference tag its LBA (%u of %u right)",
	       i, PI_BLOCKS);

	/* new data with its tuples; then a block whose guard is wrong */
	for (i = 0; i < dlen; i++)
		d[i] = (uint8_t)(i * 3 + (i >> 9) + 0x77);
	for (i = 0; i < PI_BLOCKS; i++)
		pi_tuple(wbuf + 8 * i, d + i * BLK, PI_LBA + i);
	pi_rw(&c, 0x2a, 1);
	c.dout = wbuf;
	c.dout_len = PI_LEN + dlen;
	c.pi_out = PI_LEN;
	result(!scsi(&c, NULL) && good("WRITE") && resp->resid == 0,
	       "T10_PI: WRITE (10) with WRPROTECT 001b and right tuples: GOOD");
	pi_rw(&c, 0x28, 0);
	memset(rbuf, 0, dlen);
	c.din = rbuf;
	c.din_len = dlen;
	result(!scsi(&c, NULL) && good("READ") && !memcmp(rbuf, d, dlen),
	       "T10_PI: ... READ (10) without PI: the data written after the tuples");

	memcpy(keep, d, dlen);		/* what the LU holds */
	for (i = 0; i < dlen; i++)
		d[i] ^= 0xff;
	for (i = 0; i < PI_BLOCKS; i++)
		pi_tuple(wbuf + 8 * i, d + i * BLK, PI_LBA + i);
	wbuf[8 * 3] ^= 0x01;		/* block 3's guard */
	pi_rw(&c, 0x2a, 1);
	c.dout = wbuf;
	c.dout_len = PI_LEN + dlen;
	c.pi_out = PI_LEN;
	result(!scsi(&c, NULL) && pi_sense(0xb, 0x10, 0x01),
	       "T10_PI: WRITE (10) with WRPROTECT 001b and a wrong guard in block 3: ABORTED COMMAND, LOGICAL BLOCK GUARD CHECK FAILED");
	pi_rw(&c, 0x28, 0);
	memset(rbuf, 0, dlen);
	c.din = rbuf;
	c.din_len = dlen;
	result(!scsi(&c, NULL) && good("READ") &&
	       !memcmp(rbuf, keep, dlen),
	       "T10_PI: ... and none of that WRITE reached the LU");

	pi_rw(&c, 0x2a, 1);
	memcpy(d, keep, dlen);
	for (i = 0; i < PI_BLOCKS; i++)
		pi_tuple(wbuf + 8 * i, d + i * BLK, PI_LBA + i + (i == 5));
	c.dout = wbuf;
	c.dout_len = PI_LEN + dlen;
	c.pi_out = PI_LEN;
	result(!scsi(&c, NULL) && pi_sense(0xb, 0x10, 0x03),
	       "T10_PI: WRITE (10) with WRPROTECT 001b and a wrong reference tag in block 5: ABORTED COMMAND, LOGICAL BLOCK REFERENCE TAG CHECK FAILED");
}

/* ---- the end: CLEAR_ENDPOINT under an event storm ---- */

static int storm_stop;

/*
 * The guest posts event buffers the device cannot write to (readable),
 * as fast as the ring takes them, until told to stop (or 20 s).
 */
static void *storm(void *arg)
{
	struct vq *q = &vqs[VQ_EVT];
	struct timeval t0, t;
	int n = 0;

	(void)arg;
	q->desc[8] = (struct vring_desc){ gpa(evts), sizeof(*evts), 0, 0 };
	gettimeofday(&t0, NULL);
	while (!__atomic_load_n(&storm_stop, __ATOMIC_RELAXED)) {
		if ((uint16_t)(q->avail_idx -
			       __atomic_load_n(&q->used->idx, __ATOMIC_ACQUIRE)) >=
		    RING_NUM) {
			if (!(++n & 1023)) {
				gettimeofday(&t, NULL);
				if (t.tv_sec - t0.tv_sec > 20)
					break;
			}
			continue;
		}
		q->avail->ring[q->avail_idx % RING_NUM] = 8;
		__sync_synchronize();
		q->avail->idx = ++q->avail_idx;
		if (!(q->avail_idx & 15))
			vq_kick(q);
	}
	return NULL;
}

static void clear_checks(const char *wwpn)
{
	struct vhost_scsi_target t = { 0 };
	struct vhost_vring_state s = { .index = VQ_REQ };
	struct cmd c = { .target = tpgt, .lun = lun };
	struct timeval t0, t1;
	uint32_t one = 1, id, l;
	pthread_t th;
	int i, ok, secs;

	/* the good event buffers go first, each with NO_EVENT | MISSED */
	for (i = 0; i < EVT_BUFS; i++) {
		if (ioctl(vfd, VHOST_SCSI_SET_EVENTS_MISSED, &one) ||
		    vq_wait(&vqs[VQ_EVT], 1000, &id, &l))
			break;
	}
	ioctl(vfd, VHOST_SCSI_SET_EVENTS_MISSED, &one);
	__atomic_store_n(&storm_stop, 0, __ATOMIC_RELAXED);
	pthread_create(&th, NULL, storm, NULL);
	usleep(500000);
	strncpy(t.vhost_wwpn, wwpn, sizeof(t.vhost_wwpn) - 1);
	t.vhost_tpgt = tpgt;
	gettimeofday(&t0, NULL);
	ok = !ioctl(vfd, VHOST_SCSI_CLEAR_ENDPOINT, &t);
	gettimeofday(&t1, NULL);
	__atomic_store_n(&storm_stop, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	secs = t1.tv_sec - t0.tv_sec;
	result(ok && secs < 5,
	       "CLEAR_ENDPOINT returns while the guest posts bad event buffers, events missed (%d s)",
	       secs);

	/* QEMU saves the ring's base after CLEAR_ENDPOINT */
	c.cdb[0] = 0x00;
	scsi_post(&c);
	usleep(1000000);
	ok = vqs[VQ_REQ].used->idx == vqs[VQ_REQ].last_used &&
	     !ioctl(vfd, VHOST_GET_VRING_BASE, &s) &&
	     s.num == (uint16_t)(vqs[VQ_REQ].avail_idx - 1);
	result(ok,
	       "after CLEAR_ENDPOINT a request stays in the ring (base %u, posted %u, response %u)",
	       s.num, vqs[VQ_REQ].avail_idx, resp->response);
}

static int wait_event(void)
{
	struct vq *q = &vqs[VQ_EVT];
	uint32_t id, len, ev, reason;
	int l, i;

	for (i = 0; i < 60; i++) {
		if (vq_wait(q, 1000, &id, &len))
			continue;
		ev = evts[id].event;
		reason = evts[id].reason;
		l = (evts[id].lun[2] << 8 | evts[id].lun[3]) & 0x3fff;
		diag("event %#x reason %u target %u LUN %d", ev, reason,
		     evts[id].lun[1], l);
		if (ev == VIRTIO_SCSI_T_TRANSPORT_RESET &&
		    reason == VIRTIO_SCSI_EVT_RESET_REMOVED &&
		    evts[id].lun[0] == 1 && evts[id].lun[1] == tpgt && l == lun)
			return 0;
		vq_post(q, id);
	}
	return -1;
}

int main(int argc, char **argv)
{
	const char *hold = NULL, *wwpn;
	int event = 0, aborts = 0, pi = -1, opt;
	uint32_t last_lba;
	struct stat st;

	while ((opt = getopt(argc, argv, "AeH:p:")) != -1) {
		if (opt == 'A')
			aborts = 1;
		else if (opt == 'p')
			pi = atoi(optarg);
		else if (opt == 'e')
			event = 1;
		else if (opt == 'H')
			hold = optarg;
		else
			return 2;
	}
	if (argc - optind != 4) {
		fprintf(stderr, "usage: %s [-A | -e | -H FILE | -p TYPE] WWPN TPGT LUN LAST_LBA\n",
			argv[0]);
		return 2;
	}
	wwpn = argv[optind];
	tpgt = atoi(argv[optind + 1]);
	lun = atoi(argv[optind + 2]);
	last_lba = strtoul(argv[optind + 3], NULL, 0);
	planned += event || hold;
	atexit(finish);

	mem = mmap(NULL, MEM_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 1;
	req_pi = galloc(sizeof(*req_pi), 8);
	req = (struct virtio_scsi_cmd_req *)req_pi;
	resp = galloc(sizeof(*resp), 8);
	inbuf = galloc(sizeof(*resp) + (64 << 10), 8);
	if (aborts)
		planned = 8 + KT_ABORT_CHECKS;
	if (pi >= 0)
		planned = 8 + KT_PI_CHECKS + 1 +
			  (pi ? KT_PI_FABRIC_CHECKS : KT_PI_NONE_CHECKS);
	if (setup(wwpn, pi >= 0))
		return 1;
	post_events();
	if (pi >= 0) {
		struct vhost_scsi_target t = { 0 };

		pi_checks(pi, last_lba);
		strncpy(t.vhost_wwpn, wwpn, sizeof(t.vhost_wwpn) - 1);
		t.vhost_tpgt = tpgt;
		result(!ioctl(vfd, VHOST_SCSI_CLEAR_ENDPOINT, &t),
		       "T10_PI: CLEAR_ENDPOINT");
		close(vfd);
		return checks == planned ? 0 : 1;
	}
	if (aborts) {
		abort_checks(wwpn);
		close(vfd);
		return checks == planned ? 0 : 1;
	}
	io_checks(last_lba);
	hostile_checks();

	if (event) {
		diag("ready: waiting for the removal of LUN %d", lun);
		if (hold)
			close(open(hold, O_CREAT | O_WRONLY, 0644));
		result(!wait_event(), "hotplug: TRANSPORT_RESET, REMOVED, for target %d LUN %d",
		       tpgt, lun);
	} else if (hold) {
		struct cmd c = { .target = tpgt, .lun = lun };
		int i;

		close(open(hold, O_CREAT | O_WRONLY, 0644));
		for (i = 0; i < 1200 && !stat(hold, &st); i++)
			usleep(100000);
		result(!scsi(&c, NULL) && resp->response == VIRTIO_SCSI_S_BAD_TARGET,
		       "the TPG removed under the endpoint: VIRTIO_SCSI_S_BAD_TARGET");
	}
	clear_checks(wwpn);
	close(vfd);
	return checks == planned ? 0 : 1;
}
