// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: the data buffers of the EXTENDED COPY engine. A copy takes
 * one buffer for its whole run (xcopy.c). When it ends, the buffer is kept
 * as a spare and the next copy it fits takes it again, instead of
 * allocating, and zeroing (init_on_alloc), megabytes of pages per command.
 * Spares nobody takes for two seconds are freed: an idle target holds no copy
 * memory. A buffer in use counts toward target/data_buffer_limit_mb like a
 * command's (data_limit.c); the four spares do not.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/scatterlist.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "core.h"
#include "xcopy.h"

#define KT_XCOPY_SPARES		4
#define KT_XCOPY_SPARE_IDLE	(2 * HZ)

struct kt_xcopy_spare {
	struct scatterlist	*sgl;
	unsigned int		cap;	/* pages */
};

static DEFINE_SPINLOCK(kt_xcopy_spare_lock);
static struct kt_xcopy_spare kt_xcopy_spare[KT_XCOPY_SPARES];
static unsigned int kt_xcopy_nr_spares;

static void kt_xcopy_spares_free(struct work_struct *work)
{
	struct kt_xcopy_spare old[KT_XCOPY_SPARES];
	unsigned int i, n;

	spin_lock(&kt_xcopy_spare_lock);
	n = kt_xcopy_nr_spares;
	memcpy(old, kt_xcopy_spare, n * sizeof(old[0]));
	kt_xcopy_nr_spares = 0;
	spin_unlock(&kt_xcopy_spare_lock);
	for (i = 0; i < n; i++)
		kt_sgl_free(old[i].sgl, old[i].cap);
}

static DECLARE_DELAYED_WORK(kt_xcopy_spare_work, kt_xcopy_spares_free);

/*
 * A buffer of @len (> 0) bytes: a spare of at least that size, but not one
 * four times larger, or a new one (*@fresh). *@cap is its real number of
 * pages, for kt_xcopy_buf_put(). NULL (and *@fresh) when memory is short or
 * the buffers of all sessions are at their ceiling: the copy then asks for
 * a smaller one.
 */
struct scatterlist *kt_xcopy_buf_get(struct kt_session *sess, u32 len,
				     unsigned int *nents, unsigned int *cap,
				     bool *fresh)
{
	unsigned int pages = DIV_ROUND_UP(len, PAGE_SIZE), i;
	struct scatterlist *sgl = NULL;

	*fresh = true;
	if (!kt_data_limit_try_charge(sess, pages))
		return NULL;
	spin_lock(&kt_xcopy_spare_lock);
	for (i = 0; i < kt_xcopy_nr_spares; i++) {
		struct kt_xcopy_spare *s = &kt_xcopy_spare[i];

		if (s->cap >= pages && s->cap / 4 <= pages) {
			sgl = s->sgl;
			*cap = s->cap;
			*s = kt_xcopy_spare[--kt_xcopy_nr_spares];
			break;
		}
	}
	spin_unlock(&kt_xcopy_spare_lock);
	*fresh = !sgl;
	if (sgl) {
		*nents = kt_sgl_shape(sgl, *cap, len);
	} else {
		sgl = sgl_alloc(len, GFP_KERNEL | __GFP_NOWARN, nents);
		*cap = *nents;
	}
	if (!sgl) {
		kt_data_limit_uncharge(sess, pages);
		return NULL;
	}
	/* a spare may have more pages than asked for */
	kt_data_limit_charge(sess, *cap - pages);
	return sgl;
}

/* Give back a buffer of @cap pages that kt_xcopy_buf_get() gave @sess. */
void kt_xcopy_buf_put(struct kt_session *sess, struct scatterlist *sgl,
		      unsigned int cap)
{
	kt_data_limit_uncharge(sess, cap);
	spin_lock(&kt_xcopy_spare_lock);
	if (kt_xcopy_nr_spares < KT_XCOPY_SPARES) {
		kt_xcopy_spare[kt_xcopy_nr_spares++] =
			(struct kt_xcopy_spare){ sgl, cap };
		sgl = NULL;
	}
	spin_unlock(&kt_xcopy_spare_lock);
	if (sgl)
		kt_sgl_free(sgl, cap);
	else
		mod_delayed_work(system_wq, &kt_xcopy_spare_work,
				 KT_XCOPY_SPARE_IDLE);
}

/* Module exit, once no copy runs: free the spares now. */
void kt_xcopy_buf_exit(void)
{
	cancel_delayed_work_sync(&kt_xcopy_spare_work);
	kt_xcopy_spares_free(NULL);
}
