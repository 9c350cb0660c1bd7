// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: a ceiling on the memory that the commands of all sessions
 * together hold in data buffers, target/data_buffer_limit_mb. A session's
 * CmdSN window bounds what one initiator pins (its commands times the
 * MAXIMUM TRANSFER LENGTH); this bounds what many pin at once. A command
 * whose buffer would pass the ceiling is answered TASK SET FULL before
 * anything is allocated, and its initiator retries as others complete.
 *
 * The count is a percpu_counter: the check may pass the ceiling by a
 * batch per CPU, never by more.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/module.h>
#include <linux/percpu_counter.h>

#include "core.h"

#define KT_DATA_BATCH	64	/* pages a CPU counts before it shares them */

static struct percpu_counter kt_data_pages;
static unsigned long kt_data_limit_pages;	/* 0: no ceiling */

int kt_data_limit_init(void)
{
	/* a quarter of RAM: buffers never push the rest of the system out */
	kt_data_limit_pages = totalram_pages() / 4;
	return percpu_counter_init(&kt_data_pages, 0, GFP_KERNEL);
}

void kt_data_limit_exit(void)
{
	percpu_counter_destroy(&kt_data_pages);
}

/* May a command take a buffer of @pages more? Warns when it may not. */
bool kt_data_limit_allows(unsigned int pages)
{
	unsigned long limit = READ_ONCE(kt_data_limit_pages);

	if (!limit || __percpu_counter_compare(&kt_data_pages,
					       (s64)limit - pages,
					       KT_DATA_BATCH) <= 0)
		return true;
	pr_warn_ratelimited("data buffers of all sessions are at data_buffer_limit_mb=%lu: commands get TASK SET FULL until others complete\n",
			    limit >> (20 - PAGE_SHIFT));
	return false;
}

void kt_data_limit_charge(unsigned int pages)
{
	percpu_counter_add_batch(&kt_data_pages, pages, KT_DATA_BATCH);
}

void kt_data_limit_uncharge(unsigned int pages)
{
	percpu_counter_add_batch(&kt_data_pages, -(s64)pages, KT_DATA_BATCH);
}

unsigned long kt_data_limit_mb(void)
{
	return READ_ONCE(kt_data_limit_pages) >> (20 - PAGE_SHIFT);
}

/* 0 lifts the ceiling; above the machine's RAM it means nothing. */
int kt_data_limit_set_mb(unsigned long mb)
{
	unsigned long ram_mb = totalram_pages() >> (20 - PAGE_SHIFT);

	if (mb > ram_mb) {
		pr_warn_ratelimited("data_buffer_limit_mb: %lu is more than the %lu MiB of RAM\n",
				    mb, ram_mb);
		return -EINVAL;
	}
	WRITE_ONCE(kt_data_limit_pages, mb << (20 - PAGE_SHIFT));
	pr_info("data buffers of all sessions limited to %lu MiB%s\n", mb,
		mb ? "" : " (no limit)");
	return 0;
}
