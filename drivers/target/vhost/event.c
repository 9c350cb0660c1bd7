// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_vhost: the event queue (virtio 1.2, 5.6.6.3). With
 * VIRTIO_SCSI_F_HOTPLUG negotiated, a LUN linked into a TPG of the
 * endpoint is announced as VIRTIO_SCSI_T_TRANSPORT_RESET with reason
 * RESCAN, one about to be unlinked with reason REMOVED, under the LUN
 * number the TPG's nexus sees it by (LIO's vhost_scsi does the same).
 *
 * The guest posts empty buffers on the queue; an event waits for one. At
 * most KT_VHOST_MAX_EVENTS wait: one more is dropped and the next event
 * sent carries VIRTIO_SCSI_T_EVENTS_MISSED, as does a VIRTIO_SCSI_T_NO_EVENT
 * sent for it alone when nothing else waits; the guest then rescans. The
 * VMM reads and sets that flag with VHOST_SCSI_GET/SET_EVENTS_MISSED.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/unaligned.h>
#include <linux/virtio_byteorder.h>

#include <ktarget/proto/lun.h>

#include "vhost.h"

struct kt_vhost_evt {
	struct list_head	node;	/* dev->events */
	u32			event;
	u32			reason;
	u8			lun[8];
};

/*
 * An event for LUN @lun of target @target. Process context; the caller
 * holds kt_vhost_mutex, which keeps the endpoint @dev.
 */
void kt_vhost_event(struct kt_vhost_dev *dev, u8 target, u64 lun, u32 reason)
{
	struct kt_vhost_evt *e;
	u64 field;

	lockdep_assert_held(&kt_vhost_mutex);
	if (!kt_vhost_has(dev, VIRTIO_SCSI_F_HOTPLUG) ||
	    !kt_lun_encode(lun, &field))
		return;
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	spin_lock(&dev->evt_lock);
	if (!e || dev->evt_nr >= KT_VHOST_MAX_EVENTS) {
		dev->events_missed = true;
		spin_unlock(&dev->evt_lock);
		kfree(e);
		pr_warn_ratelimited("target %u: a hotplug event for LUN %llu is lost: the guest takes none\n",
				    target, lun);
	} else {
		e->event = VIRTIO_SCSI_T_TRANSPORT_RESET;
		e->reason = reason;
		e->lun[0] = 1;
		e->lun[1] = target;
		put_unaligned_be16(field >> 48, e->lun + 2);
		list_add_tail(&e->node, &dev->events);
		dev->evt_nr++;
		spin_unlock(&dev->evt_lock);
	}
	kt_vhost_vq_queue(dev->vqs[KT_VHOST_VQ_EVT]);
}

/*
 * Drop the events that wait: the endpoint they are about is cleared
 * (@keep_missed: events_missed stays), or the device goes.
 */
void kt_vhost_events_flush(struct kt_vhost_dev *dev, bool keep_missed)
{
	struct kt_vhost_evt *e, *next;
	LIST_HEAD(list);

	spin_lock(&dev->evt_lock);
	list_splice_init(&dev->events, &list);
	dev->evt_nr = 0;
	if (!keep_missed)
		dev->events_missed = false;
	spin_unlock(&dev->evt_lock);
	list_for_each_entry_safe(e, next, &list, node)
		kfree(e);
}

void kt_vhost_handle_evt(struct kt_vhost_vq *vq)
{
	struct kt_vhost_dev *dev = vq->dev;
	struct virtio_scsi_event ev;
	struct kt_vhost_chain c;
	struct kt_vhost_evt *e;
	unsigned int budget = KT_VHOST_BUDGET;
	bool waiting, missed;
	u16 head;

	for (;;) {
		spin_lock(&dev->evt_lock);
		waiting = !list_empty(&dev->events) || dev->events_missed;
		spin_unlock(&dev->evt_lock);
		if (!waiting)
			return;
		/* bad buffers leave events_missed set: the guest may post more */
		if (!budget--) {
			kt_vhost_vq_queue(vq);
			return;
		}
		if (kt_vhost_vq_next(vq, &head) <= 0 ||
		    kt_vhost_vq_walk(vq, head, &c))
			return;
		if (c.out_len || c.in_len < sizeof(ev)) {
			pr_warn_ratelimited("queue %u: an event buffer that cannot hold an event\n",
					    vq->index);
			if (kt_vhost_vq_used(vq, head, 0))
				return;
			continue;
		}
		/* only this work takes events off the list */
		spin_lock(&dev->evt_lock);
		e = list_first_entry_or_null(&dev->events, struct kt_vhost_evt,
					     node);
		if (e) {
			list_del(&e->node);
			dev->evt_nr--;
		}
		missed = dev->events_missed;
		dev->events_missed = false;
		spin_unlock(&dev->evt_lock);

		memset(&ev, 0, sizeof(ev));
		ev.event = __cpu_to_virtio32(true, (e ? e->event : VIRTIO_SCSI_T_NO_EVENT) |
					     (missed ? VIRTIO_SCSI_T_EVENTS_MISSED : 0));
		if (e) {
			ev.reason = __cpu_to_virtio32(true, e->reason);
			memcpy(ev.lun, e->lun, sizeof(ev.lun));
			kfree(e);
		}
		if (kt_vhost_reply(vq, &c, head, &ev, sizeof(ev))) {
			/* lost with the ring: the guest rescans once it is back */
			spin_lock(&dev->evt_lock);
			dev->events_missed = true;
			spin_unlock(&dev->evt_lock);
			return;
		}
	}
}
