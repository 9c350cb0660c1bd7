// SPDX-License-Identifier: GPL-2.0
/*
 * ktarget_core: data buffers kept per session. A command's buffer is an
 * array of whole pages made by sgl_alloc(); when the command is released
 * the buffer goes back to a few slots in its session, and the session's
 * next command of no larger size takes it again, so that the I/O path
 * allocates nothing once a session has warmed up. The session frees what
 * it holds when it ends.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include <ktarget/fabric.h>

#include "core.h"

void kt_sgl_cache_init(struct kt_session *sess)
{
	spin_lock_init(&sess->sgl_lock);
	sess->sgl_nr = 0;
}

void kt_sgl_cache_exit(struct kt_session *sess)
{
	while (sess->sgl_nr) {
		sess->sgl_nr--;
		kt_sgl_free(sess->sgl_slot[sess->sgl_nr].sgl,
			    sess->sgl_slot[sess->sgl_nr].cap);
	}
}

/*
 * Free a buffer of @cap pages from sgl_alloc(), shaped or not: sgl_free()
 * stops at the end mark, and a shaped buffer may have pages past it.
 */
void kt_sgl_free(struct scatterlist *sgl, unsigned int cap)
{
	unsigned int i;

	for (i = 0; i < cap; i++)
		__free_page(sg_page(&sgl[i]));
	kfree(sgl);
}

/* Shape @sgl (@cap pages) to hold exactly @len (> 0) bytes. */
unsigned int kt_sgl_shape(struct scatterlist *sgl, unsigned int cap, u32 len)
{
	unsigned int n = DIV_ROUND_UP(len, PAGE_SIZE), i;

	for (i = 0; i < cap; i++) {
		sg_unmark_end(&sgl[i]);
		sgl[i].length = PAGE_SIZE;
		sgl[i].offset = 0;
	}
	sgl[n - 1].length = len - (n - 1) * PAGE_SIZE;
	sg_mark_end(&sgl[n - 1]);
	return n;
}

/*
 * A buffer of @len (> 0) bytes for a command of @sess: *@cap is the
 * number of pages it really has, for kt_sgl_cache_put().
 */
struct scatterlist *kt_sgl_cache_get(struct kt_session *sess, u32 len,
				     unsigned int *nents, unsigned int *cap)
{
	unsigned int pages = DIV_ROUND_UP(len, PAGE_SIZE), i;
	struct scatterlist *sgl = NULL;
	unsigned long flags;

	spin_lock_irqsave(&sess->sgl_lock, flags);
	for (i = 0; i < sess->sgl_nr; i++) {
		struct kt_sgl_slot *s = &sess->sgl_slot[i];

		/* big enough, and not a large one spent on a small command */
		if (s->cap >= pages && s->cap <= 4 * pages) {
			sgl = s->sgl;
			*cap = s->cap;
			*s = sess->sgl_slot[--sess->sgl_nr];
			break;
		}
	}
	spin_unlock_irqrestore(&sess->sgl_lock, flags);
	if (sgl) {
		*nents = kt_sgl_shape(sgl, *cap, len);
		return sgl;
	}
	sgl = sgl_alloc(len, GFP_KERNEL, nents);
	*cap = *nents;
	return sgl;
}

/* Give back a buffer of @cap pages from kt_sgl_cache_get(). */
void kt_sgl_cache_put(struct kt_session *sess, struct scatterlist *sgl,
		      unsigned int cap)
{
	unsigned long flags;

	if (cap <= KT_SGL_CACHE_MAX_PAGES) {
		spin_lock_irqsave(&sess->sgl_lock, flags);
		if (sess->sgl_nr < KT_SGL_CACHE_SLOTS) {
			sess->sgl_slot[sess->sgl_nr].sgl = sgl;
			sess->sgl_slot[sess->sgl_nr].cap = cap;
			sess->sgl_nr++;
			sgl = NULL;
		}
		spin_unlock_irqrestore(&sess->sgl_lock, flags);
	}
	if (sgl)
		kt_sgl_free(sgl, cap);
}
