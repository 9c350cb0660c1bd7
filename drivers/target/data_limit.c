// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: a ceiling on the memory that the commands of all sessions
 * together hold in data buffers, target/data_buffer_limit_mb. A session's
 * CmdSN window bounds what one initiator pins (its commands times the
 * MAXIMUM TRANSFER LENGTH); this bounds what many pin at once. A command
 * whose buffer would pass the ceiling is answered TASK SET FULL before
 * anything is allocated, and its initiator retries as others complete.
 *
 * The count is a percpu_counter. A command charges what it asks for before
 * the check and what its buffer really has once allocated (a recycled one
 * may be larger), so the ceiling is passed by at most a batch per CPU and
 * the difference of buffers being allocated at that moment. A command
 * larger than the whole ceiling still runs when it is alone.
 *
 * Counted too: the buffers of running copies (EXTENDED COPY, WRITE USING
 * TOKEN; xcopy_buf.c). Not counted: the second buffers of VERIFY, COMPARE
 * AND WRITE, ORWRITE and WRITE SAME, the buffers a session keeps for reuse
 * (bounded per session, KT_SGL_CACHE_SLOTS) and the copy engine's spares
 * (four).
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

void kt_data_limit_charge(unsigned int pages)
{
	percpu_counter_add_batch(&kt_data_pages, pages, KT_DATA_BATCH);
}

void kt_data_limit_uncharge(unsigned int pages)
{
	percpu_counter_add_batch(&kt_data_pages, -(s64)pages, KT_DATA_BATCH);
}

/*
 * Charge @pages for a command's buffer; false (nothing charged, and a
 * warning) when that passes the ceiling while other buffers are held.
 */
bool kt_data_limit_try_charge(unsigned int pages)
{
	unsigned long limit = READ_ONCE(kt_data_limit_pages);

	kt_data_limit_charge(pages);
	if (!limit || __percpu_counter_compare(&kt_data_pages, limit,
					       KT_DATA_BATCH) <= 0)
		return true;
	/* the exact sum, only on this path: alone, a command may run */
	if (percpu_counter_sum(&kt_data_pages) <= pages)
		return true;
	kt_data_limit_uncharge(pages);
	pr_warn_ratelimited("data buffers of all sessions are at data_buffer_limit_mb=%lu: commands get TASK SET FULL, copies smaller buffers, until others complete\n",
			    limit >> (20 - PAGE_SHIFT));
	return false;
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
