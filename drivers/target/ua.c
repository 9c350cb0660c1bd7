// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: unit attention conditions (SAM-5 5.14, SPC-4 5.14).
 *
 * An event (a LUN reset, changed mode parameters, a preempted reservation)
 * is recorded once per device with a sequence number from one global
 * counter, and says which I_T nexuses it concerns: all, or one or all but
 * one, named by a hash of the initiator's name and ISID (SPC-4 4.6.4: an
 * I_T nexus is that and the target port) so that a persistent reservation's
 * registrant can be named whether or not it is logged in. Each session remembers,
 * per device, the sequence number of the last event it has been told of;
 * events older than the session itself never apply. A command with an
 * event pending gets CHECK CONDITION / UNIT ATTENTION for the oldest one,
 * and the next command hears of the next.
 *
 * A new I_T nexus has not been told of anything yet: its first command to
 * each LU gets POWER ON, RESET, OR BUS DEVICE RESET OCCURRED (SAM-5 6.3.1),
 * which stands for whatever happened before it logged in, a lost nexus
 * included; initiators expect it after a login and retry. The fast path is
 * one xarray lookup of what the session has seen of the device and one
 * load of the device's newest sequence number.
 *
 * REPORTED LUNS DATA HAS CHANGED is the TPG's business rather than a
 * device's: a generation count in the TPG against one in the session.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/jhash.h>
#include <linux/module.h>
#include <linux/xarray.h>
#include <kunit/visibility.h>

#include <ktarget/fabric.h>
#include <ktarget/proto/cdb.h>

#include "core.h"

static atomic64_t kt_ua_clock = ATOMIC64_INIT(0);

/*
 * 64 bits naming an initiator port: its name (compared without case, as
 * TransportIDs' names are) and, when given, its port identifier.
 */
u64 kt_nexus_key(const char *name, const u8 *isid)
{
	u32 lo = 0x6b74, hi = 0x7561;
	u8 c;

	for (; *name; name++) {
		c = tolower(*name);
		lo = jhash(&c, 1, lo);
		hi = jhash(&c, 1, hi ^ lo);
	}
	if (isid) {
		lo = jhash(isid, 6, lo);
		hi = jhash(isid, 6, hi);
	}
	return (u64)hi << 32 | lo;
}

void kt_ua_dev_init(struct kt_dev *dev)
{
	spin_lock_init(&dev->state->ua.lock);
}
EXPORT_SYMBOL_IF_KUNIT(kt_ua_dev_init);

void kt_ua_session_init(struct kt_session *sess)
{
	sess->nexus_key = kt_nexus_key(sess->tid.name, sess->tid.has_isid ?
						       sess->tid.isid : NULL);
	sess->nexus_name_key = kt_nexus_key(sess->tid.name, NULL);
	sess->ua_base = atomic64_read(&kt_ua_clock);
	xa_init(&sess->ua_seen);
	sess->lun_gen_seen = atomic_read(&sess->tpg->lun_gen);
}
EXPORT_SYMBOL_IF_KUNIT(kt_ua_session_init);

void kt_ua_session_exit(struct kt_session *sess)
{
	xa_destroy(&sess->ua_seen);
}
EXPORT_SYMBOL_IF_KUNIT(kt_ua_session_exit);

/*
 * Record a unit attention for the nexuses @scope, @nexus (a kt_nexus_key())
 * and @port (a relative target port, 0 for any) name.
 */
void kt_ua_raise_nexus(struct kt_dev *dev, u16 asc_ascq,
		       enum kt_ua_scope scope, u64 nexus, u16 port)
{
	struct kt_ua_event *ev;
	unsigned long flags;

	spin_lock_irqsave(&dev->state->ua.lock, flags);
	ev = &dev->state->ua.ev[dev->state->ua.next];
	dev->state->ua.next = (dev->state->ua.next + 1) % KT_UA_HISTORY;
	ev->seq = atomic64_inc_return(&kt_ua_clock);
	ev->nexus = nexus;
	ev->port = port;
	ev->asc_ascq = asc_ascq;
	ev->scope = scope;
	/* pairs with the load-acquire in kt_ua_take() */
	smp_store_release(&dev->state->ua.seq, ev->seq);
	spin_unlock_irqrestore(&dev->state->ua.lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(kt_ua_raise_nexus);

/* Record a unit attention for the nexuses @scope and @sess name. */
void kt_ua_raise(struct kt_dev *dev, u16 asc_ascq, enum kt_ua_scope scope,
		 const struct kt_session *sess)
{
	kt_ua_raise_nexus(dev, asc_ascq, scope, sess ? sess->nexus_key : 0,
			  sess ? sess->tpg->tag : 0);
}
EXPORT_SYMBOL_IF_KUNIT(kt_ua_raise);

/* The LUNs a TPG offers have changed: every session hears of it once. */
void kt_ua_luns_changed(struct kt_tpg *tpg)
{
	atomic_inc(&tpg->lun_gen);
}
EXPORT_SYMBOL_IF_KUNIT(kt_ua_luns_changed);

static bool kt_ua_names(const struct kt_ua_event *ev,
			const struct kt_session *sess)
{
	if (ev->port && ev->port != sess->tpg->tag)
		return false;
	/* a name without an ISID (TransportID format 00b) names every ISID */
	return ev->nexus == sess->nexus_key ||
	       ev->nexus == sess->nexus_name_key;
}

static bool kt_ua_applies(const struct kt_ua_event *ev,
			  const struct kt_session *sess)
{
	switch (ev->scope) {
	case KT_UA_ONLY:
		return kt_ua_names(ev, sess);
	case KT_UA_OTHERS:
		return !kt_ua_names(ev, sess);
	default:
		return true;
	}
}

/* The oldest event after @seen that concerns @sess, or NULL. */
static const struct kt_ua_event *
kt_ua_after(const struct kt_dev *dev, const struct kt_session *sess, u64 seen)
{
	const struct kt_ua_event *ev, *best = NULL;
	unsigned int i;

	for (i = 0; i < KT_UA_HISTORY; i++) {
		ev = &dev->state->ua.ev[i];
		if (ev->seq <= seen || !kt_ua_applies(ev, sess))
			continue;
		if (!best || ev->seq < best->seq)
			best = ev;
	}
	return best;
}

/*
 * The oldest event after @seen that concerns @sess: its ASC/ASCQ, or 0.
 * *next is what the nexus has seen once it has been told. Events with the
 * same ASC/ASCQ right after it are told with it: a burst of LUN resets
 * is one unit attention, not one per reset (as LIO keeps no second
 * pending unit attention like one it has).
 */
static u16 kt_ua_oldest(struct kt_dev *dev, const struct kt_session *sess,
			u64 seen, u64 *next)
{
	const struct kt_ua_event *best, *ev;
	unsigned long flags;

	spin_lock_irqsave(&dev->state->ua.lock, flags);
	*next = dev->state->ua.seq;
	best = kt_ua_after(dev, sess, seen);
	if (best) {
		*next = best->seq;
		while ((ev = kt_ua_after(dev, sess, *next)) &&
		       ev->asc_ascq == best->asc_ascq)
			*next = ev->seq;
	}
	spin_unlock_irqrestore(&dev->state->ua.lock, flags);
	return best ? best->asc_ascq : 0;
}

/*
 * Take the unit attention pending for the command's nexus and device, if
 * any, and return its ASC/ASCQ; 0 when there is none.
 */
u16 kt_ua_take(struct kt_cmd *cmd)
{
	struct kt_session *sess = cmd->sess;
	struct kt_dev *dev = cmd->dev;
	int gen = atomic_read(&sess->tpg->lun_gen);
	int seen_gen = READ_ONCE(sess->lun_gen_seen);
	u64 newest, next;
	unsigned long flags;
	void *entry;
	u16 asc = 0;

	if (gen != seen_gen &&
	    cmpxchg(&sess->lun_gen_seen, seen_gen, gen) == seen_gen)
		return KT_ASC_LUNS_CHANGED;
	if (!dev)
		return 0;
	entry = xa_load(&sess->ua_seen, dev->index);
	if (entry) {
		/* pairs with the store-release in kt_ua_raise() */
		newest = smp_load_acquire(&dev->state->ua.seq);
		if (newest <= xa_to_value(entry))
			return 0;
	}

	/* one command at a time of this nexus takes the next event */
	xa_lock_irqsave(&sess->ua_seen, flags);
	entry = xa_load(&sess->ua_seen, dev->index);
	if (!entry) {
		/* the nexus's first word from this LU; what follows is news */
		asc = KT_ASC_POWER_ON_RESET;
		next = sess->ua_base;
	} else {
		asc = kt_ua_oldest(dev, sess, xa_to_value(entry), &next);
	}
	/* should this fail, the nexus hears the same again next time */
	if (!entry || next > xa_to_value(entry))
		__xa_store(&sess->ua_seen, dev->index, xa_mk_value(next),
			   GFP_ATOMIC);
	xa_unlock_irqrestore(&sess->ua_seen, flags);
	return asc;
}
EXPORT_SYMBOL_IF_KUNIT(kt_ua_take);

/*
 * SPC-4 5.14: the commands the table marks KT_CDB_D_NO_UA (INQUIRY, REPORT
 * LUNS, REQUEST SENSE) run with a unit attention pending: REQUEST SENSE
 * returns it, REPORT LUNS clears the changed-LUNs one. Every other command
 * is refused with it.
 */
sense_reason_t kt_ua_check(struct kt_cmd *cmd)
{
	u16 asc;

	if (cmd->desc->opcode == REPORT_LUNS)
		WRITE_ONCE(cmd->sess->lun_gen_seen,
			   atomic_read(&cmd->sess->tpg->lun_gen));
	if (cmd->desc->flags & KT_CDB_D_NO_UA)
		return KT_SENSE_NONE;
	asc = kt_ua_take(cmd);
	if (!asc)
		return KT_SENSE_NONE;
	cmd->sense_asc_ascq = asc;
	return KT_SENSE_UNIT_ATTENTION;
}
