// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_user: the UIO device the daemon opens, "tcm-user/HBA/DEV/CONFIG"
 * as LIO names it (tcmu-runner finds devices by that name), with one
 * mapping: mailbox and command ring (vmalloc), then the data area (pages
 * of data.c, found at fault time). A mapping holds a reference on the
 * device, so it outlives the configfs device if the daemon keeps it; the
 * UIO device goes when the configfs device is disabled, and a daemon's
 * write after that fails in UIO itself. A write ("kick") makes the kernel
 * read the daemon's answers.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include <ktarget/compat.h>

#include "user.h"

static struct device *kt_user_root;

static struct kt_user_dev *info_to_udev(struct uio_info *info)
{
	return container_of(info, struct kt_user_dev, uio);
}

/* a write to the UIO device: the daemon answered (ring.c's kick work) */
static int kt_user_irqcontrol(struct uio_info *info, s32 on)
{
	kt_user_kick(info_to_udev(info));
	return 0;
}

/*
 * One mmap() of the device, shared by the VMAs it splits or forks into:
 * the enable it was made in (@gen, udev->map_gen then), and how many VMAs
 * have it (under udev->lock). The VMAs of the current enable are counted
 * in udev->map_vmas too: when none is left (the daemon unmapped, or
 * died), the next mmap() may come through another device node.
 */
struct kt_user_vma {
	struct kt_user_dev	*udev;
	u64			gen;
	unsigned int		users;
};

static void kt_user_vma_open(struct vm_area_struct *vma)
{
	struct kt_user_vma *uv = vma->vm_private_data;
	struct kt_user_dev *udev = uv->udev;
	unsigned long flags;

	kref_get(&udev->kref);
	spin_lock_irqsave(&udev->lock, flags);
	uv->users++;
	if (uv->gen == udev->map_gen)
		udev->map_vmas++;
	spin_unlock_irqrestore(&udev->lock, flags);
}

static void kt_user_vma_close(struct vm_area_struct *vma)
{
	struct kt_user_vma *uv = vma->vm_private_data;
	struct kt_user_dev *udev = uv->udev;
	unsigned long flags;
	bool last;

	spin_lock_irqsave(&udev->lock, flags);
	if (uv->gen == udev->map_gen && !WARN_ON_ONCE(!udev->map_vmas))
		udev->map_vmas--;
	last = !--uv->users;
	spin_unlock_irqrestore(&udev->lock, flags);
	if (last)
		kfree(uv);
	kt_user_dev_put(udev);
}

/*
 * Under udev->lock: a failed enable or a disable takes the memory away
 * (map_size 0, no mapping) while a daemon may have the device mapped; a
 * mapping made before a disable is not the device's any more (SIGBUS),
 * whatever is mapped after it is enabled again. A page is returned
 * locked, once seen still the device's with its lock held (a data area
 * page still in udev->pages, a ring page still in udev->mb): a page given
 * back or taken down meanwhile (data.c, kt_user_take_down()) is not
 * mapped, and one that goes later is not zapped before its PTE is in
 * place.
 */
static vm_fault_t kt_user_vma_fault(struct vm_fault *vmf)
{
	struct kt_user_vma *uv = vmf->vma->vm_private_data;
	struct kt_user_dev *udev = uv->udev;
	struct address_space *mapping = vmf->vma->vm_file->f_mapping;
	size_t off = (size_t)vmf->pgoff << PAGE_SHIFT;
	vm_fault_t ret = VM_FAULT_SIGBUS;
	struct page *page = NULL;
	unsigned long flags, idx = 0;
	void *mb = NULL;
	bool kept;

	spin_lock_irqsave(&udev->lock, flags);
	if (off >= udev->map_size || !udev->mb || udev->mapping != mapping ||
	    uv->gen != udev->map_gen)
		goto out;
	if (off < udev->data_off) {
		mb = udev->mb;
		page = vmalloc_to_page(mb + off);
		get_page(page);
	} else {
		/* a page no command has now: the daemon's mistake */
		idx = (off - udev->data_off) >> PAGE_SHIFT;
		page = kt_user_data_page(udev, idx);
		if (!page) {
			pr_warn_ratelimited("%s: the daemon touched data area page %lu, which no command has\n",
					    kt_user_name(udev), idx);
			goto out;
		}
	}
	spin_unlock_irqrestore(&udev->lock, flags);

	lock_page(page);
	spin_lock_irqsave(&udev->lock, flags);
	if (mb)
		kept = udev->mb == mb;
	else
		kept = xa_load(&udev->pages, idx) == page;
	kept = kept && udev->mapping == mapping && uv->gen == udev->map_gen;
	spin_unlock_irqrestore(&udev->lock, flags);
	if (!kept) {
		/* given back: the touch faults again, on what is there now */
		unlock_page(page);
		put_page(page);
		return VM_FAULT_NOPAGE;
	}
	vmf->page = page;
	return VM_FAULT_LOCKED;

out:
	spin_unlock_irqrestore(&udev->lock, flags);
	return ret;
}

static const struct vm_operations_struct kt_user_vm_ops = {
	.open	= kt_user_vma_open,
	.close	= kt_user_vma_close,
	.fault	= kt_user_vma_fault,
};

static int kt_user_mmap(struct uio_info *info, struct vm_area_struct *vma)
{
	struct kt_user_dev *udev = info_to_udev(info);
	struct address_space *mapping = vma->vm_file->f_mapping;
	struct path old = {}, new = vma->vm_file->f_path;
	struct kt_user_vma *uv;
	unsigned long flags;
	int ret = 0;

	/* the whole mapping, from its start: offsets are the ring's */
	if (vma->vm_pgoff || vma_pages(vma) != udev->map_size >> PAGE_SHIFT)
		return -EINVAL;
	uv = kzalloc(sizeof(*uv), GFP_KERNEL);
	if (!uv)
		return -ENOMEM;
	uv->udev = udev;
	uv->users = 1;
	/*
	 * Pages given back are zapped in the one address space the daemon
	 * maps, its device node's, held until the device is disabled or no
	 * VMA of it is left (a daemon restarted may come through another
	 * node). The node is held by its path: its inode, and the mount and
	 * superblock it is on (a tmpfs /dev may be unmounted meanwhile), not
	 * the file, which the daemon closes as it likes. Its reference is
	 * taken and dropped outside udev->lock, which the timer takes in
	 * softirq: the dentry's lock is not softirq-safe.
	 */
	path_get(&new);
	mutex_lock(&udev->map_lock);
	spin_lock_irqsave(&udev->lock, flags);
	if (udev->mapping && udev->mapping != mapping && !udev->map_vmas) {
		swap(old, udev->map_path);
		udev->mapping = NULL;
	}
	if (!udev->mapping) {
		swap(new, udev->map_path);
		udev->mapping = mapping;
	} else if (udev->mapping != mapping) {
		ret = -EBUSY;
	}
	if (!ret) {
		uv->gen = udev->map_gen;
		udev->map_vmas++;
	}
	spin_unlock_irqrestore(&udev->lock, flags);
	mutex_unlock(&udev->map_lock);
	/* no PTE is left in the old one, no reclaim is zapping it now */
	if (old.dentry)
		path_put(&old);
	/* the node mapped already, or refused */
	if (new.dentry)
		path_put(&new);
	if (ret) {
		kfree(uv);
		pr_warn_ratelimited("%s: mapped through another device node while one is mapped: refused\n",
				    kt_user_name(udev));
		return ret;
	}
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_ops = &kt_user_vm_ops;
	vma->vm_private_data = uv;
	kref_get(&udev->kref);
	return 0;
}

/* one daemon at a time; it finds the ring described as it is */
static int kt_user_open(struct uio_info *info, struct inode *inode)
{
	struct kt_user_dev *udev = info_to_udev(info);
	unsigned long flags;

	if (test_and_set_bit(KT_USER_OPEN, &udev->flags))
		return -EBUSY;
	spin_lock_irqsave(&udev->lock, flags);
	if (udev->up && udev->mb)
		kt_user_mb_describe(udev);
	spin_unlock_irqrestore(&udev->lock, flags);
	return 0;
}

static int kt_user_release(struct uio_info *info, struct inode *inode)
{
	clear_bit(KT_USER_OPEN, &info_to_udev(info)->flags);
	return 0;
}

int kt_user_uio_register(struct kt_user_dev *udev)
{
	struct uio_info *info = &udev->uio;
	int ret;

	if (udev->config[0])
		info->name = kasprintf(GFP_KERNEL, "tcm-user/%u/%s/%s",
				       udev->dev.hba_index, kt_user_name(udev),
				       udev->config);
	else
		info->name = kasprintf(GFP_KERNEL, "tcm-user/%u/%s",
				       udev->dev.hba_index, kt_user_name(udev));
	if (!info->name)
		return -ENOMEM;
	info->version = __stringify(TCMU_MAILBOX_VERSION);
	info->mem[0].name = "tcm-user command & data buffer";
	info->mem[0].addr = 0;
	info->mem[0].size = udev->map_size;
	info->mem[0].memtype = UIO_MEM_NONE;
	info->irq = UIO_IRQ_CUSTOM;
	info->irqcontrol = kt_user_irqcontrol;
	info->mmap = kt_user_mmap;
	info->open = kt_user_open;
	info->release = kt_user_release;
	ret = uio_register_device(kt_user_root, info);
	if (ret) {
		kfree(info->name);
		info->name = NULL;
		return ret;
	}
	udev->uio_up = true;
	return 0;
}

/* no kick, open or mmap reaches the device after this, nor a kick's work */
void kt_user_uio_unregister(struct kt_user_dev *udev)
{
	unsigned long flags;

	spin_lock_irqsave(&udev->lock, flags);
	udev->uio_up = false;
	spin_unlock_irqrestore(&udev->lock, flags);
	uio_unregister_device(&udev->uio);
	/* the answers of the last kicks taken while the device is up */
	flush_work(&udev->kick_work);
	kfree(udev->uio.name);
	udev->uio.name = NULL;
	/* UIO calls no release once unregistered: a next enable may open */
	clear_bit(KT_USER_OPEN, &udev->flags);
}

int kt_user_uio_init(void)
{
	kt_user_root = root_device_register("ktarget_user");
	return PTR_ERR_OR_ZERO(kt_user_root);
}

void kt_user_uio_exit(void)
{
	root_device_unregister(kt_user_root);
}
