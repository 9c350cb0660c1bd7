// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_vhost: /dev/vhost-scsi, the vhost protocol (<linux/vhost.h>) as
 * QEMU's vhost-scsi and the kernel's vhost core speak it. Each open file
 * is one virtio-scsi device of one guest:
 *
 *	VHOST_SET_OWNER		the caller's mm serves the queues; every
 *				other call but GET_FEATURES and
 *				GET_ABI_VERSION must come from it (-EPERM)
 *	VHOST_GET/SET_FEATURES	KT_VHOST_FEATURES: VERSION_1, ANY_LAYOUT,
 *				INDIRECT_DESC, HOTPLUG, T10_PI; the dirty log
 *				(VHOST_F_LOG_ALL, SET_LOG_BASE/FD) and the
 *				IOTLB (backend features) are refused with
 *				-EOPNOTSUPP
 *	VHOST_SET_MEM_TABLE	at most KT_VHOST_MAX_REGIONS regions
 *	VHOST_SET_VRING_*	NUM (a power of 2 up to 1024), ADDR, BASE,
 *				KICK, CALL, ERR; -EBUSY while an endpoint
 *				is set; GET_VRING_BASE
 *	VHOST_SCSI_SET_ENDPOINT	binds every TPG of the WWN that has a nexus
 *				and no endpoint yet, as LIO does; the
 *				guest addresses each by its tag
 *	VHOST_SCSI_CLEAR_ENDPOINT  unbinds them once their commands ended
 *
 * The control and request queues take requests only while an endpoint is
 * set; before and after, they stay in the ring (QEMU kicks before
 * SET_ENDPOINT and saves the bases after CLEAR_ENDPOINT).
 *
 * Locks, outermost first: dev->mutex (the ioctls), kt_vhost_mutex (TPGs,
 * nexuses, endpoints), dev->ep_sem (the memory table, the endpoint's
 * targets and the features, which a queue's work reads while it takes
 * requests), vq->mutex (one ring's state) - which a queue's work takes
 * before ep_sem: so no writer of ep_sem holds a vq->mutex.
 *
 * Teardown (CLEAR_ENDPOINT, RESET_OWNER, close, a TPG removed under an
 * endpoint) waits for the commands and TMFs of what goes; each wait says
 * every KT_VHOST_WAIT_WARN what it waits for, and for how many. None
 * waits under kt_vhost_mutex, which every VM's endpoint takes: a TPG
 * leaving its endpoint is marked (tpg->detaching) under it, the mutex is
 * dropped for the wait, and taken again to unbind it. Meanwhile nothing
 * binds it, sends it events or frees it: rmdir waits for a CLEAR_ENDPOINT
 * that detaches it, and CLEAR_ENDPOINT, before its device goes, for an
 * rmdir (dev->detaching).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/file.h>
#include <linux/memcontrol.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/nospec.h>
#include <linux/overflow.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "vhost.h"

/* the TPGs, their nexuses, which endpoint serves each */
DEFINE_MUTEX(kt_vhost_mutex);
LIST_HEAD(kt_vhost_tpgs);

void kt_vhost_wait_inflight(atomic_t *count, const char *what)
{
	while (!wait_var_event_timeout(count, !atomic_read(count),
				       KT_VHOST_WAIT_WARN))
		pr_warn("%s waits for %d command(s) and TMF(s) in the target\n",
			what, atomic_read(count));
}

/* ---- the endpoint ---- */

/*
 * @tpg goes (rmdir) while @tpg->dev serves it: the guest's target goes
 * first, then what it sent ends. Called under kt_vhost_mutex, which it
 * drops while it waits; a CLEAR_ENDPOINT detaching @tpg already is waited
 * for instead.
 */
void kt_vhost_detach_tpg(struct kt_vhost_tpg *tpg)
{
	struct kt_vhost_dev *dev = tpg->dev;

	lockdep_assert_held(&kt_vhost_mutex);
	if (tpg->detaching) {
		mutex_unlock(&kt_vhost_mutex);
		while (!wait_var_event_timeout(&tpg->dev, !READ_ONCE(tpg->dev),
					       KT_VHOST_WAIT_WARN))
			pr_warn("removing a TPG waits for its endpoint to be cleared\n");
		mutex_lock(&kt_vhost_mutex);
		return;
	}
	tpg->detaching = true;
	atomic_inc(&dev->detaching);
	mutex_unlock(&kt_vhost_mutex);

	down_write(&dev->ep_sem);
	if (dev->tpgs[tpg->tag] == tpg)
		dev->tpgs[tpg->tag] = NULL;
	up_write(&dev->ep_sem);
	kt_vhost_wait_inflight(&tpg->inflight, "removing a TPG of an endpoint");

	mutex_lock(&kt_vhost_mutex);
	tpg->dev = NULL;
	tpg->detaching = false;
	/* a CLEAR_ENDPOINT may free @dev as soon as the count is 0 */
	if (atomic_dec_and_test(&dev->detaching))
		wake_up_var(&dev->detaching);
}

static long kt_vhost_set_endpoint(struct kt_vhost_dev *dev,
				  struct vhost_scsi_target *t)
{
	struct kt_vhost_tpg *tpg;
	bool busy = false;
	int found = 0, i;

	if (t->reserved)
		return -EOPNOTSUPP;
	t->vhost_wwpn[sizeof(t->vhost_wwpn) - 1] = '\0';
	if (dev->has_endpoint) {
		pr_warn_ratelimited("SET_ENDPOINT %s: the device serves %s already\n",
				    t->vhost_wwpn, dev->wwpn);
		return -EEXIST;
	}
	mutex_lock(&kt_vhost_mutex);
	down_write(&dev->ep_sem);
	list_for_each_entry(tpg, &kt_vhost_tpgs, node) {
		if (!tpg->nexus || strcmp(tpg->tport->wwn.name, t->vhost_wwpn))
			continue;
		if (tpg->dev) {
			busy = true;
			continue;
		}
		tpg->dev = dev;
		dev->tpgs[tpg->tag] = tpg;
		found++;
	}
	if (found) {
		dev->has_endpoint = true;
		strscpy(dev->wwpn, t->vhost_wwpn, sizeof(dev->wwpn));
	}
	up_write(&dev->ep_sem);
	mutex_unlock(&kt_vhost_mutex);
	/* what the guest queued before is taken now */
	for (i = 0; found && i < KT_VHOST_NR_VQ; i++)
		if (dev->vqs[i])
			kt_vhost_vq_queue(dev->vqs[i]);
	if (!found) {
		pr_warn_ratelimited("SET_ENDPOINT %s: %s\n", t->vhost_wwpn,
				    busy ? "its TPGs serve another endpoint" :
				    "no TPG of that WWN has a nexus");
		return busy ? -EBUSY : -ENODEV;
	}
	return 0;
}

/* Unbind every TPG of the endpoint once what it sent has ended. */
static void kt_vhost_clear_endpoint(struct kt_vhost_dev *dev)
{
	struct kt_vhost_tpg *tpg, *next;
	LIST_HEAD(gone);

	if (!dev->has_endpoint)
		return;
	mutex_lock(&kt_vhost_mutex);
	list_for_each_entry(tpg, &kt_vhost_tpgs, node) {
		if (tpg->dev != dev || tpg->detaching)
			continue;
		tpg->detaching = true;
		list_add_tail(&tpg->detach_node, &gone);
	}
	mutex_unlock(&kt_vhost_mutex);

	down_write(&dev->ep_sem);
	memset(dev->tpgs, 0, sizeof(dev->tpgs));
	dev->has_endpoint = false;
	up_write(&dev->ep_sem);
	list_for_each_entry(tpg, &gone, detach_node)
		kt_vhost_wait_inflight(&tpg->inflight, "clearing an endpoint");

	mutex_lock(&kt_vhost_mutex);
	list_for_each_entry_safe(tpg, next, &gone, detach_node) {
		list_del(&tpg->detach_node);
		tpg->dev = NULL;
		tpg->detaching = false;
		/* an rmdir waiting for it frees it once it has the mutex */
		wake_up_var(&tpg->dev);
	}
	mutex_unlock(&kt_vhost_mutex);

	/* TPGs removed meanwhile: they use the device until detached */
	while (!wait_var_event_timeout(&dev->detaching,
				       !atomic_read(&dev->detaching),
				       KT_VHOST_WAIT_WARN))
		pr_warn("clearing an endpoint waits for %d TPG(s) being removed\n",
			atomic_read(&dev->detaching));
	/* and the TMFs of TPGs removed meanwhile */
	kt_vhost_wait_inflight(&dev->inflight, "clearing an endpoint");
	/* hotplug events of targets the device has no more */
	kt_vhost_events_flush(dev, true);
}

/* ---- owner, memory ---- */

static long kt_vhost_set_owner(struct kt_vhost_dev *dev)
{
	struct mm_struct *mm;

	if (dev->mm)
		return -EBUSY;
	mm = get_task_mm(current);
	if (!mm)
		return -EINVAL;
	/* NULL without memory cgroups: then nothing is charged */
	dev->memcg = get_mem_cgroup_from_mm(mm);
	WRITE_ONCE(dev->mm, mm);
	return 0;
}

/* Back to a device just opened: no endpoint, rings, memory nor owner. */
static void kt_vhost_dev_stop(struct kt_vhost_dev *dev)
{
	struct kt_vhost_mem *mem;
	struct mm_struct *mm;
	int i;

	kt_vhost_clear_endpoint(dev);
	for (i = 0; i < KT_VHOST_NR_VQ; i++)
		if (dev->vqs[i])
			kt_vhost_vq_stop(dev->vqs[i]);
	kt_vhost_events_flush(dev, false);
	down_write(&dev->ep_sem);
	mem = dev->mem;
	dev->mem = NULL;
	dev->features = 0;
	up_write(&dev->ep_sem);
	kvfree(mem);
	/* cleared before it is put: no work may find a dropped mm */
	mm = dev->mm;
	WRITE_ONCE(dev->mm, NULL);
	if (mm)
		mmput(mm);
	mem_cgroup_put(dev->memcg);
	dev->memcg = NULL;
}

static long kt_vhost_set_mem(struct kt_vhost_dev *dev,
			     struct vhost_memory __user *m)
{
	const struct vhost_memory_region *r;
	struct kt_vhost_mem *mem;
	struct vhost_memory hdr;
	unsigned int i;

	if (copy_from_user(&hdr, m, sizeof(hdr)))
		return -EFAULT;
	if (hdr.padding)
		return -EOPNOTSUPP;
	if (hdr.nregions > KT_VHOST_MAX_REGIONS) {
		pr_warn_ratelimited("SET_MEM_TABLE: %u regions, more than %u\n",
				    hdr.nregions, KT_VHOST_MAX_REGIONS);
		return -E2BIG;
	}
	mem = kvzalloc(struct_size(mem, r, hdr.nregions), GFP_KERNEL_ACCOUNT);
	if (!mem)
		return -ENOMEM;
	mem->nr = hdr.nregions;
	if (copy_from_user(mem->r, m->regions,
			   array_size(hdr.nregions, sizeof(*mem->r)))) {
		kvfree(mem);
		return -EFAULT;
	}
	for (i = 0; i < mem->nr; i++) {
		r = &mem->r[i];
		if (!r->memory_size ||
		    r->guest_phys_addr + r->memory_size - 1 < r->guest_phys_addr ||
		    r->userspace_addr + r->memory_size - 1 < r->userspace_addr ||
		    !access_ok(u64_to_user_ptr(r->userspace_addr),
			       r->memory_size)) {
			pr_warn_ratelimited("SET_MEM_TABLE: region %u is empty, wraps or is not the caller's\n",
					    i);
			kvfree(mem);
			return -EFAULT;
		}
	}
	/*
	 * The buffers of requests in flight are the owner's addresses of
	 * the old table, not pinned: no request is taken, and those in
	 * flight are answered, before the new table is used.
	 */
	down_write(&dev->ep_sem);
	dev->mem_changing = true;
	up_write(&dev->ep_sem);
	kt_vhost_wait_inflight(&dev->inflight, "SET_MEM_TABLE");
	/* and their answers in the used rings, published */
	for (i = 0; i < KT_VHOST_NR_VQ; i++)
		if (dev->vqs[i])
			flush_work(&dev->vqs[i]->work);
	down_write(&dev->ep_sem);
	swap(dev->mem, mem);
	dev->mem_changing = false;
	up_write(&dev->ep_sem);
	kvfree(mem);
	for (i = 0; i < KT_VHOST_NR_VQ; i++)
		if (dev->vqs[i])
			kt_vhost_vq_queue(dev->vqs[i]);
	return 0;
}

/* ---- rings ---- */

static long kt_vhost_set_eventfd(struct kt_vhost_vq *vq,
				 struct eventfd_ctx **slot, int fd)
{
	struct eventfd_ctx *ctx = NULL;

	if (fd != VHOST_FILE_UNBIND) {
		ctx = eventfd_ctx_fdget(fd);
		if (IS_ERR(ctx))
			return PTR_ERR(ctx);
	}
	mutex_lock(&vq->mutex);
	swap(*slot, ctx);
	mutex_unlock(&vq->mutex);
	if (ctx)
		eventfd_ctx_put(ctx);
	return 0;
}

static bool kt_vhost_ring_ok(unsigned int num, const struct vhost_vring_addr *a)
{
	/* virtio 1.2, 2.7: alignment of the descriptor table, avail, used */
	if ((a->desc_user_addr & 15) || (a->avail_user_addr & 1) ||
	    (a->used_user_addr & 3))
		return false;
	return access_ok(u64_to_user_ptr(a->desc_user_addr), 16 * num) &&
	       access_ok(u64_to_user_ptr(a->avail_user_addr), 6 + 2 * num) &&
	       access_ok(u64_to_user_ptr(a->used_user_addr), 6 + 8 * num);
}

static long kt_vhost_vring_locked(struct kt_vhost_dev *dev,
				  struct kt_vhost_vq *vq, unsigned int ioctl,
				  void __user *argp)
{
	struct vhost_vring_state s;
	struct vhost_vring_addr a;

	switch (ioctl) {
	case VHOST_SET_VRING_NUM:
		if (copy_from_user(&s, argp, sizeof(s)))
			return -EFAULT;
		if (dev->has_endpoint)
			return -EBUSY;
		if (!s.num || s.num > KT_VHOST_MAX_RING || (s.num & (s.num - 1)))
			return -EINVAL;
		vq->num = s.num;
		/* the addresses are checked again for the new size */
		vq->addr_set = false;
		vq->started = false;
		return 0;
	case VHOST_SET_VRING_ADDR:
		if (copy_from_user(&a, argp, sizeof(a)))
			return -EFAULT;
		if (dev->has_endpoint)
			return -EBUSY;
		if (a.flags) {
			pr_warn_ratelimited("SET_VRING_ADDR: flags %#x: no dirty log\n",
					    a.flags);
			return -EOPNOTSUPP;
		}
		if (!vq->num || !kt_vhost_ring_ok(vq->num, &a))
			return -EINVAL;
		vq->desc = u64_to_user_ptr(a.desc_user_addr);
		vq->avail = u64_to_user_ptr(a.avail_user_addr);
		vq->used = u64_to_user_ptr(a.used_user_addr);
		vq->addr_set = true;
		vq->started = false;
		return 0;
	case VHOST_SET_VRING_BASE:
		if (copy_from_user(&s, argp, sizeof(s)))
			return -EFAULT;
		if (dev->has_endpoint)
			return -EBUSY;
		if (s.num > U16_MAX)
			return -EINVAL;
		vq->last_avail = s.num;
		vq->started = false;
		vq->broken = false;
		/* used_idx is read back from the ring: nothing to publish */
		vq->used_pending = 0;
		return 0;
	case VHOST_GET_VRING_BASE:
		s.index = vq->index;
		s.num = vq->last_avail;
		return copy_to_user(argp, &s, sizeof(s)) ? -EFAULT : 0;
	default:
		/* VHOST_SET_VRING_ENDIAN: a cross-endian legacy guest */
		return -EOPNOTSUPP;
	}
}

/* Queue @index, made on first use. Under dev->mutex. */
static struct kt_vhost_vq *kt_vhost_vq_get(struct kt_vhost_dev *dev,
					   unsigned int index)
{
	struct kt_vhost_vq *vq = dev->vqs[index];

	if (vq)
		return vq;
	vq = kvzalloc(sizeof(*vq), GFP_KERNEL_ACCOUNT);
	if (!vq)
		return NULL;
	kt_vhost_vq_init(dev, vq, index);
	/* initialised before a reader without dev->mutex sees it */
	smp_store_release(&dev->vqs[index], vq);
	return vq;
}

static long kt_vhost_vring_ioctl(struct kt_vhost_dev *dev, unsigned int ioctl,
				 void __user *argp)
{
	struct vhost_vring_file f;
	struct kt_vhost_vq *vq;
	u32 index;
	long ret;

	if (get_user(index, (u32 __user *)argp))
		return -EFAULT;
	if (index >= KT_VHOST_NR_VQ)
		return -ENOBUFS;
	vq = kt_vhost_vq_get(dev, array_index_nospec(index, KT_VHOST_NR_VQ));
	if (!vq)
		return -ENOMEM;

	switch (ioctl) {
	case VHOST_SET_VRING_KICK:
	case VHOST_SET_VRING_CALL:
	case VHOST_SET_VRING_ERR:
		if (copy_from_user(&f, argp, sizeof(f)))
			return -EFAULT;
		if (ioctl == VHOST_SET_VRING_KICK)
			return kt_vhost_vq_set_kick(vq, f.fd);
		return kt_vhost_set_eventfd(vq, ioctl == VHOST_SET_VRING_CALL ?
					    &vq->call : &vq->err, f.fd);
	case VHOST_GET_VRING_BASE:
		/* the used ring is whole before the VMM saves the base */
		flush_work(&vq->work);
		fallthrough;
	default:
		mutex_lock(&vq->mutex);
		ret = kt_vhost_vring_locked(dev, vq, ioctl, argp);
		mutex_unlock(&vq->mutex);
		return ret;
	}
}

/* ---- the ioctls ---- */

static long kt_vhost_owner_ioctl(struct kt_vhost_dev *dev, unsigned int ioctl,
				 void __user *argp)
{
	struct vhost_scsi_target t;
	u64 features;
	u32 missed;

	switch (ioctl) {
	case VHOST_SET_FEATURES:
	case VHOST_SET_BACKEND_FEATURES:
		if (copy_from_user(&features, argp, sizeof(features)))
			return -EFAULT;
		if (ioctl == VHOST_SET_BACKEND_FEATURES) {
			if (!features)
				return 0;
			pr_warn_ratelimited("SET_BACKEND_FEATURES %#llx: no IOTLB\n",
					    features);
			return -EOPNOTSUPP;
		}
		if (features & ~KT_VHOST_FEATURES) {
			pr_warn_ratelimited("SET_FEATURES: %#llx not offered (no dirty log, IOTLB, EVENT_IDX)\n",
					    features & ~KT_VHOST_FEATURES);
			return -EOPNOTSUPP;
		}
		down_write(&dev->ep_sem);
		dev->features = features;
		up_write(&dev->ep_sem);
		return 0;
	case VHOST_RESET_OWNER:
		kt_vhost_dev_stop(dev);
		return 0;
	case VHOST_SET_MEM_TABLE:
		return kt_vhost_set_mem(dev, argp);
	case VHOST_SET_LOG_BASE:
	case VHOST_SET_LOG_FD:
		pr_warn_ratelimited("no dirty log: VHOST_SET_LOG_* refused\n");
		return -EOPNOTSUPP;
	case VHOST_SCSI_SET_ENDPOINT:
	case VHOST_SCSI_CLEAR_ENDPOINT:
		if (copy_from_user(&t, argp, sizeof(t)))
			return -EFAULT;
		if (ioctl == VHOST_SCSI_SET_ENDPOINT)
			return kt_vhost_set_endpoint(dev, &t);
		t.vhost_wwpn[sizeof(t.vhost_wwpn) - 1] = '\0';
		if (dev->has_endpoint && strcmp(t.vhost_wwpn, dev->wwpn))
			return -EINVAL;
		kt_vhost_clear_endpoint(dev);
		return 0;
	case VHOST_SCSI_SET_EVENTS_MISSED:
		if (get_user(missed, (u32 __user *)argp))
			return -EFAULT;
		spin_lock(&dev->evt_lock);
		dev->events_missed = missed;
		spin_unlock(&dev->evt_lock);
		if (missed)
			kt_vhost_vq_queue(dev->vqs[KT_VHOST_VQ_EVT]);
		return 0;
	case VHOST_SCSI_GET_EVENTS_MISSED:
		spin_lock(&dev->evt_lock);
		missed = dev->events_missed;
		spin_unlock(&dev->evt_lock);
		return put_user(missed, (u32 __user *)argp);
	case VHOST_SET_VRING_NUM:
	case VHOST_SET_VRING_ADDR:
	case VHOST_SET_VRING_BASE:
	case VHOST_GET_VRING_BASE:
	case VHOST_SET_VRING_KICK:
	case VHOST_SET_VRING_CALL:
	case VHOST_SET_VRING_ERR:
	case VHOST_SET_VRING_ENDIAN:
	case VHOST_GET_VRING_ENDIAN:
		return kt_vhost_vring_ioctl(dev, ioctl, argp);
	default:
		return -ENOIOCTLCMD;
	}
}

static long kt_vhost_ioctl(struct file *file, unsigned int ioctl,
			   unsigned long arg)
{
	struct kt_vhost_dev *dev = file->private_data;
	void __user *argp = (void __user *)arg;
	u64 features = KT_VHOST_FEATURES;
	long ret;

	mutex_lock(&dev->mutex);
	switch (ioctl) {
	case VHOST_GET_FEATURES:
		ret = copy_to_user(argp, &features, sizeof(features)) ?
		      -EFAULT : 0;
		break;
	case VHOST_GET_BACKEND_FEATURES:
		features = 0;
		ret = copy_to_user(argp, &features, sizeof(features)) ?
		      -EFAULT : 0;
		break;
	case VHOST_SCSI_GET_ABI_VERSION:
		ret = put_user(VHOST_SCSI_ABI_VERSION, (int __user *)argp);
		break;
	case VHOST_SET_OWNER:
		ret = kt_vhost_set_owner(dev);
		break;
	default:
		if (!dev->mm || dev->mm != current->mm)
			ret = -EPERM;
		else
			ret = kt_vhost_owner_ioctl(dev, ioctl, argp);
		break;
	}
	mutex_unlock(&dev->mutex);
	return ret;
}

static void kt_vhost_free(struct kt_vhost_dev *dev)
{
	int i;

	for (i = 0; i < KT_VHOST_NR_VQ; i++)
		kvfree(dev->vqs[i]);
	kvfree(dev);
}

static int kt_vhost_open(struct inode *inode, struct file *file)
{
	struct kt_vhost_dev *dev;
	int i;

	dev = kvzalloc(sizeof(*dev), GFP_KERNEL_ACCOUNT);
	if (!dev)
		return -ENOMEM;
	mutex_init(&dev->mutex);
	init_rwsem(&dev->ep_sem);
	spin_lock_init(&dev->evt_lock);
	INIT_LIST_HEAD(&dev->events);
	atomic_set(&dev->inflight, 0);
	atomic_set(&dev->detaching, 0);
	for (i = 0; i <= KT_VHOST_VQ_EVT; i++) {
		if (!kt_vhost_vq_get(dev, i)) {
			kt_vhost_free(dev);
			return -ENOMEM;
		}
	}
	file->private_data = dev;
	kt_obj_inc(&kt_vhost_objs[KT_VHOST_OBJ_DEV]);
	return stream_open(inode, file);
}

static int kt_vhost_release(struct inode *inode, struct file *file)
{
	struct kt_vhost_dev *dev = file->private_data;

	mutex_lock(&dev->mutex);
	kt_vhost_dev_stop(dev);
	mutex_unlock(&dev->mutex);
	kt_vhost_free(dev);
	kt_obj_dec(&kt_vhost_objs[KT_VHOST_OBJ_DEV]);
	return 0;
}

static const struct file_operations kt_vhost_fops = {
	.owner		= THIS_MODULE,
	.open		= kt_vhost_open,
	.release	= kt_vhost_release,
	.unlocked_ioctl	= kt_vhost_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

static struct miscdevice kt_vhost_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "vhost-scsi",
	.fops	= &kt_vhost_fops,
};

/*
 * LIO's vhost_scsi registers the same name: the second misc device of a
 * name would only fail in sysfs, with a stack dump. Refuse to load instead.
 */
int kt_vhost_dev_init(void)
{
	struct path path;

	if (!kern_path("/sys/class/misc/vhost-scsi", 0, &path)) {
		path_put(&path);
		pr_err("/dev/vhost-scsi is another driver's (LIO's vhost_scsi?): unload it first\n");
		return -EBUSY;
	}
	return misc_register(&kt_vhost_misc);
}

void kt_vhost_dev_exit(void)
{
	misc_deregister(&kt_vhost_misc);
}
