// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_vhost: split virtqueues (virtio 1.2, 2.7) in the memory of the
 * process that owns the device. The rings' addresses are the owner's
 * (VHOST_SET_VRING_ADDR); the buffers a descriptor names are guest
 * physical addresses, turned into the owner's through the memory table
 * (VHOST_SET_MEM_TABLE). A queue's work runs on a kworker that borrows the
 * owner's mm (kthread_use_mm()), so that every access is a plain
 * get_user(), put_user() or copy through an iov_iter of user segments,
 * checked as any other.
 *
 * The work of a queue first sends the answers the core has finished
 * (vq->done), then takes new requests, at most KT_VHOST_BUDGET a run, and
 * publishes the used index once. A kick (the VMM's or the guest's eventfd
 * written) queues the work; so does every answer.
 *
 * What the guest may get wrong, and what it costs it: an avail index more
 * than the ring size ahead, a head or a next index outside its table, a
 * chain longer than its table (a loop), a nested indirect table, a
 * readable descriptor after a writable one, a buffer outside the memory
 * table, more than KT_VHOST_MAX_SEGS segments: the ring is broken, no
 * request of it is taken until the VMM sets it up again (SET_VRING_BASE),
 * and the VMM's error eventfd hears of it. Every little-endian field is
 * read once, into a local.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/file.h>
#include <linux/kthread.h>
#include <linux/sched/mm.h>
#include <linux/uaccess.h>
#include <linux/virtio_ring.h>

#include <ktarget/compat.h>

#include "vhost.h"

/* The split ring's layout, little-endian (VERSION_1, or an x86 guest) */
struct kt_vring_desc {
	__le64	addr;
	__le32	len;
	__le16	flags;
	__le16	next;
};

struct kt_vring_used_elem {
	__le32	id;
	__le32	len;
};

#define KT_AVAIL_FLAGS(vq)	((__le16 __user *)(vq)->avail)
#define KT_AVAIL_IDX(vq)	((__le16 __user *)((vq)->avail + 2))
#define KT_AVAIL_RING(vq, i)	((__le16 __user *)((vq)->avail + 4 + 2 * (i)))
#define KT_USED_FLAGS(vq)	((__le16 __user *)(vq)->used)
#define KT_USED_IDX(vq)		((__le16 __user *)((vq)->used + 2))
#define KT_USED_RING(vq, i)	\
	((struct kt_vring_used_elem __user *)((vq)->used + 4 + 8 * (i)))

void kt_vhost_vq_queue(struct kt_vhost_vq *vq)
{
	queue_work(kt_vhost_wq, &vq->work);
}

/*
 * The core finished @r: its answer goes out from its queue's work. Once
 * on the list, @r is the work's: it may be answered and freed - and with
 * the last request the device, by a teardown that waited for
 * dev->inflight - before queue_work() returns. So the queue is read
 * first, and a count of dev->inflight keeps the device until then.
 */
void kt_vhost_req_done(struct kt_vhost_req *r)
{
	struct kt_vhost_vq *vq = r->vq;
	struct kt_vhost_dev *dev = vq->dev;

	atomic_inc(&dev->inflight);
	llist_add(&r->node, &vq->done);
	kt_vhost_vq_queue(vq);
	if (atomic_dec_and_test(&dev->inflight))
		wake_up_var(&dev->inflight);
}

void kt_vhost_vq_broken(struct kt_vhost_vq *vq, const char *why)
{
	lockdep_assert_held(&vq->mutex);
	if (vq->broken)
		return;
	vq->broken = true;
	pr_warn_ratelimited("queue %u: %s; no request is taken until the ring is set up again\n",
			    vq->index, why);
	if (vq->err)
		kt_eventfd_signal(vq->err);
}

/* ---- kicks ---- */

static int kt_vhost_kick_wake(wait_queue_entry_t *wait, unsigned int mode,
			      int sync, void *key)
{
	struct kt_vhost_vq *vq = container_of(wait, struct kt_vhost_vq,
					      kick_wait);

	if (key_to_poll(key) & EPOLLIN)
		kt_vhost_vq_queue(vq);
	return 0;
}

static void kt_vhost_kick_queue_proc(struct file *file,
				     wait_queue_head_t *wqh, poll_table *pt)
{
	struct kt_vhost_vq *vq = container_of(pt, struct kt_vhost_vq, kick_pt);

	/* an eventfd has one wait queue; any other file gets it only once */
	if (vq->kick_wqh)
		return;
	vq->kick_wqh = wqh;
	add_wait_queue(wqh, &vq->kick_wait);
}

/* Stop listening to the kick eventfd and drop it. Under vq->mutex. */
static void kt_vhost_kick_drop(struct kt_vhost_vq *vq)
{
	if (vq->kick_wqh)
		remove_wait_queue(vq->kick_wqh, &vq->kick_wait);
	vq->kick_wqh = NULL;
	if (vq->kick)
		fput(vq->kick);
	vq->kick = NULL;
}

/* VHOST_SET_VRING_KICK: @fd (-1: none) wakes the queue's work. */
int kt_vhost_vq_set_kick(struct kt_vhost_vq *vq, int fd)
{
	struct file *file = NULL;
	__poll_t mask;

	if (fd != VHOST_FILE_UNBIND) {
		file = eventfd_fget(fd);
		if (IS_ERR(file))
			return PTR_ERR(file);
	}
	mutex_lock(&vq->mutex);
	kt_vhost_kick_drop(vq);
	vq->kick = file;
	if (file) {
		mask = vfs_poll(file, &vq->kick_pt);
		/* a kick that came before this listened */
		if (mask & EPOLLIN)
			kt_vhost_vq_queue(vq);
	}
	mutex_unlock(&vq->mutex);
	return 0;
}

/* The queue hears no more kicks and sends no more calls. */
void kt_vhost_vq_stop(struct kt_vhost_vq *vq)
{
	mutex_lock(&vq->mutex);
	kt_vhost_kick_drop(vq);
	mutex_unlock(&vq->mutex);
	flush_work(&vq->work);
	mutex_lock(&vq->mutex);
	if (vq->call)
		eventfd_ctx_put(vq->call);
	if (vq->err)
		eventfd_ctx_put(vq->err);
	vq->call = NULL;
	vq->err = NULL;
	vq->num = 0;
	vq->addr_set = false;
	vq->started = false;
	vq->broken = false;
	vq->last_avail = 0;
	vq->used_idx = 0;
	vq->used_pending = 0;
	mutex_unlock(&vq->mutex);
}

/* ---- the avail ring and descriptor chains ---- */

/*
 * Whether requests may be taken and answers sent. The first time, the
 * used index is read back from the ring (the VMM may hand over a ring a
 * previous backend used).
 */
bool kt_vhost_vq_ready(struct kt_vhost_vq *vq)
{
	__le16 idx;

	lockdep_assert_held(&vq->mutex);
	if (!vq->num || !vq->addr_set || vq->broken || !vq->dev->mem)
		return false;
	if (vq->started)
		return true;
	if (get_user(idx, KT_USED_IDX(vq)) ||
	    put_user(cpu_to_le16(0), KT_USED_FLAGS(vq))) {
		kt_vhost_vq_broken(vq, "its used ring is not accessible");
		return false;
	}
	vq->used_idx = le16_to_cpu(idx);
	vq->started = true;
	return true;
}

/* The next head of the avail ring: 1 and *@head, 0 for none, or -errno. */
int kt_vhost_vq_next(struct kt_vhost_vq *vq, u16 *head)
{
	u16 avail_idx, h;
	__le16 v;

	if (get_user(v, KT_AVAIL_IDX(vq))) {
		kt_vhost_vq_broken(vq, "its avail ring is not readable");
		return -EFAULT;
	}
	avail_idx = le16_to_cpu(v);
	if (avail_idx == vq->last_avail)
		return 0;
	if ((u16)(avail_idx - vq->last_avail) > vq->num) {
		kt_vhost_vq_broken(vq, "the avail index moved by more than the ring size");
		return -EINVAL;
	}
	/* the entry is read after the index that published it */
	smp_rmb();
	if (get_user(v, KT_AVAIL_RING(vq, vq->last_avail & (vq->num - 1)))) {
		kt_vhost_vq_broken(vq, "its avail ring is not readable");
		return -EFAULT;
	}
	h = le16_to_cpu(v);
	if (h >= vq->num) {
		kt_vhost_vq_broken(vq, "a head is outside the descriptor table");
		return -EINVAL;
	}
	vq->last_avail++;
	*head = h;
	return 1;
}

/*
 * Guest physical [@gpa, +@len) as the owner's segments, appended at *@nr
 * of @max
 */
static int kt_vhost_map(const struct kt_vhost_mem *mem, u64 gpa, u32 len,
			struct iovec *iov, unsigned int *nr, unsigned int max)
{
	const struct vhost_memory_region *r;
	u64 off, chunk;
	unsigned int i;

	while (len) {
		r = NULL;
		for (i = 0; i < mem->nr; i++) {
			if (gpa >= mem->r[i].guest_phys_addr &&
			    gpa - mem->r[i].guest_phys_addr < mem->r[i].memory_size) {
				r = &mem->r[i];
				break;
			}
		}
		if (!r)
			return -EFAULT;
		if (*nr >= max)
			return -E2BIG;
		off = gpa - r->guest_phys_addr;
		chunk = min_t(u64, len, r->memory_size - off);
		iov[*nr].iov_base = u64_to_user_ptr(r->userspace_addr + off);
		iov[*nr].iov_len = chunk;
		(*nr)++;
		gpa += chunk;
		len -= chunk;
	}
	return 0;
}

/*
 * Walk the chain of @head into vq->iov: its device-readable segments
 * first (c->out_nr), then the writable ones (c->in_nr). Any error breaks
 * the ring: the guest's chain cannot be answered.
 */
int kt_vhost_vq_walk(struct kt_vhost_vq *vq, u16 head,
		     struct kt_vhost_chain *c)
{
	const struct kt_vhost_mem *mem = vq->dev->mem;
	void __user *table = vq->desc;
	unsigned int size = vq->num, seen = 0, nr = 0;
	struct iovec tbl;
	struct kt_vring_desc d;
	bool indirect = false;
	unsigned int i = head;
	const char *why;
	u16 flags;
	u32 len;
	u64 addr;
	int ret;

	memset(c, 0, sizeof(*c));
	for (;;) {
		why = "a next index is outside its table";
		if (i >= size)
			goto bad;
		why = "a descriptor chain is longer than its table (a loop?)";
		if (++seen > size)
			goto bad;
		why = "a descriptor is not readable";
		if (copy_from_user(&d, table + sizeof(d) * i, sizeof(d)))
			goto bad;
		flags = le16_to_cpu(d.flags);
		len = le32_to_cpu(d.len);
		addr = le64_to_cpu(d.addr);

		if (flags & VRING_DESC_F_INDIRECT) {
			why = "an indirect table without VIRTIO_RING_F_INDIRECT_DESC";
			if (!kt_vhost_has(vq->dev, VIRTIO_RING_F_INDIRECT_DESC))
				goto bad;
			why = "an indirect table inside an indirect table";
			if (indirect)
				goto bad;
			why = "an indirect descriptor with F_NEXT";
			if (flags & VRING_DESC_F_NEXT)
				goto bad;
			why = "an indirect table of a bad length";
			if (!len || len % sizeof(d) ||
			    len / sizeof(d) > KT_VHOST_MAX_INDIRECT)
				goto bad;
			nr = 0;
			why = "an indirect table outside one memory region";
			if (kt_vhost_map(mem, addr, len, &tbl, &nr, 1))
				goto bad;
			table = tbl.iov_base;
			size = len / sizeof(d);
			indirect = true;
			seen = 0;
			i = 0;
			continue;
		}

		if (flags & VRING_DESC_F_WRITE) {
			nr = c->out_nr + c->in_nr;
			ret = kt_vhost_map(mem, addr, len, vq->iov, &nr,
					   KT_VHOST_MAX_SEGS);
			c->in_nr = nr - c->out_nr;
			c->in_len += len;
		} else {
			why = "a readable descriptor after a writable one";
			if (c->in_nr)
				goto bad;
			nr = c->out_nr;
			ret = kt_vhost_map(mem, addr, len, vq->iov, &nr,
					   KT_VHOST_MAX_SEGS);
			c->out_nr = nr;
			c->out_len += len;
		}
		why = ret == -E2BIG ? "a request of too many segments" :
		      "a buffer outside the memory table";
		if (ret)
			goto bad;
		if (!(flags & VRING_DESC_F_NEXT))
			return 0;
		i = le16_to_cpu(d.next);
	}
bad:
	kt_vhost_vq_broken(vq, why);
	return -EINVAL;
}

/* ---- the used ring ---- */

/* Put @head, @len bytes written, in the used ring; published later. */
int kt_vhost_vq_used(struct kt_vhost_vq *vq, u16 head, u32 len)
{
	struct kt_vring_used_elem e = {
		.id	= cpu_to_le32(head),
		.len	= cpu_to_le32(len),
	};

	lockdep_assert_held(&vq->mutex);
	if (!vq->started || vq->broken)
		return -EIO;
	if (copy_to_user(KT_USED_RING(vq, vq->used_idx & (vq->num - 1)), &e,
			 sizeof(e))) {
		kt_vhost_vq_broken(vq, "its used ring is not writable");
		return -EFAULT;
	}
	vq->used_idx++;
	vq->used_pending++;
	return 0;
}

/* Publish the used index and call the guest unless it asked for none. */
static void kt_vhost_vq_publish(struct kt_vhost_vq *vq)
{
	__le16 flags;

	if (!vq->used_pending || vq->broken)
		return;
	vq->used_pending = 0;
	/* the elements before the index that publishes them */
	smp_wmb();
	if (put_user(cpu_to_le16(vq->used_idx), KT_USED_IDX(vq))) {
		kt_vhost_vq_broken(vq, "its used ring is not writable");
		return;
	}
	/* the index before the flags that say whether to call */
	smp_mb();
	if (get_user(flags, KT_AVAIL_FLAGS(vq))) {
		kt_vhost_vq_broken(vq, "its avail ring is not readable");
		return;
	}
	if (vq->call && !(le16_to_cpu(flags) & VRING_AVAIL_F_NO_INTERRUPT))
		kt_eventfd_signal(vq->call);
}

/*
 * Answer a request at once: @len bytes of @resp at the start of its
 * writable part, or nothing when that is too short to hold them.
 */
int kt_vhost_reply(struct kt_vhost_vq *vq, struct kt_vhost_chain *c, u16 head,
		   const void *resp, size_t len)
{
	struct iov_iter it;

	if (c->in_len < len)
		return kt_vhost_vq_used(vq, head, 0);
	iov_iter_init(&it, ITER_DEST, vq->iov + c->out_nr, c->in_nr, len);
	if (copy_to_iter(resp, len, &it) != len) {
		kt_vhost_vq_broken(vq, "a response buffer is not writable");
		return -EFAULT;
	}
	return kt_vhost_vq_used(vq, head, len);
}

/* ---- the work ---- */

static void kt_vhost_vq_answers(struct kt_vhost_vq *vq)
{
	struct kt_vhost_req *r, *next;
	struct llist_node *list;

	list = llist_reverse_order(llist_del_all(&vq->done));
	llist_for_each_entry_safe(r, next, list, node) {
		if (r->is_tmf)
			kt_vhost_answer_tmf(r);
		else
			kt_vhost_answer_cmd(r);
		/* up to a ring of answers, each copying its data-in */
		cond_resched();
	}
}

/*
 * Whether the queue's requests may be taken. The control and request
 * queues keep theirs in the ring while no endpoint is set: QEMU kicks
 * them before SET_ENDPOINT, and saves the rings' bases
 * (VHOST_GET_VRING_BASE) after CLEAR_ENDPOINT. And while SET_MEM_TABLE
 * waits for the requests in flight. Under ep_sem.
 */
static bool kt_vhost_vq_takes(struct kt_vhost_vq *vq)
{
	if (vq->index == KT_VHOST_VQ_EVT)
		return true;
	return vq->dev->has_endpoint && !vq->dev->mem_changing;
}

void kt_vhost_vq_work(struct work_struct *work)
{
	struct kt_vhost_vq *vq = container_of(work, struct kt_vhost_vq, work);
	struct mm_struct *mm = READ_ONCE(vq->dev->mm);
	struct mem_cgroup *old;

	/* the owner is set before a ring can be, and reset after its work */
	if (WARN_ON_ONCE(!mm))
		return;
	/* commands and TMFs (GFP_KERNEL_ACCOUNT) are charged to the owner */
	old = set_active_memcg(vq->dev->memcg);
	kthread_use_mm(mm);
	mutex_lock(&vq->mutex);
	kt_vhost_vq_answers(vq);
	down_read(&vq->dev->ep_sem);
	if (kt_vhost_vq_takes(vq) && kt_vhost_vq_ready(vq) && vq->kick)
		vq->handle(vq);
	up_read(&vq->dev->ep_sem);
	kt_vhost_vq_publish(vq);
	mutex_unlock(&vq->mutex);
	kthread_unuse_mm(mm);
	set_active_memcg(old);
}

void kt_vhost_vq_init(struct kt_vhost_dev *dev, struct kt_vhost_vq *vq,
		      unsigned int index)
{
	vq->dev = dev;
	vq->index = index;
	mutex_init(&vq->mutex);
	INIT_WORK(&vq->work, kt_vhost_vq_work);
	init_llist_head(&vq->done);
	atomic_set(&vq->inflight, 0);
	init_waitqueue_func_entry(&vq->kick_wait, kt_vhost_kick_wake);
	init_poll_funcptr(&vq->kick_pt, kt_vhost_kick_queue_proc);
	if (index == KT_VHOST_VQ_CTL)
		vq->handle = kt_vhost_handle_ctl;
	else if (index == KT_VHOST_VQ_EVT)
		vq->handle = kt_vhost_handle_evt;
	else
		vq->handle = kt_vhost_handle_io;
}
