/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Live object counts, for tests and for the admin who wonders what holds a
 * module: /sys/kernel/debug/ktarget/objects lists every registered count
 * as "<module> <name> <live>". Teardown tests assert that each is 0 before
 * they unload the modules.
 *
 * Each count is per CPU, so that counting a command costs no shared cache
 * line; the file sums them. A count may be incremented on one CPU and
 * decremented on another: only the sum means anything.
 */
#ifndef KTARGET_OBJECTS_H
#define KTARGET_OBJECTS_H

#include <linux/list.h>
#include <linux/percpu.h>

struct module;

struct kt_obj_count {
	const char		*name;
	struct module		*owner;
	long __percpu		*live;
	struct list_head	node;
};

int kt_obj_count_register(struct kt_obj_count *c, struct module *owner,
			  const char *name);
/* Warns when objects are still counted: a leak the module leaves behind. */
void kt_obj_count_unregister(struct kt_obj_count *c);
long kt_obj_count_sum(const struct kt_obj_count *c);

static inline void kt_obj_inc(struct kt_obj_count *c)
{
	this_cpu_inc(*c->live);
}

static inline void kt_obj_dec(struct kt_obj_count *c)
{
	this_cpu_dec(*c->live);
}

#endif /* KTARGET_OBJECTS_H */
