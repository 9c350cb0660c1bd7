/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktarget_core: what the EXTENDED COPY engine (xcopy.c), its buffers
 * (xcopy_buf.c), its held results and RECEIVE COPY RESULTS (xcopy_rcr.c)
 * and its counters (configfs/dev_xcopy_stat.c) share.
 */
#ifndef KTARGET_XCOPY_H
#define KTARGET_XCOPY_H

#include <ktarget/proto/cdb.h>
#include <ktarget/proto/sense.h>
#include <ktarget/proto/xcopy.h>

struct kt_cmd;
struct kt_dev;
struct kt_lun;
struct kt_rod_token;
struct kt_session;
struct scatterlist;

/* xcopy.c */
int kt_xcopy_init(void);
void kt_xcopy_exit(void);
void kt_xcopy_execute(struct kt_cmd *cmd);
/* Fail @cmd with the sense @err describes; returns the reason to report. */
sense_reason_t kt_xcopy_set_err(struct kt_cmd *cmd,
				const struct kt_xcopy_err *err);
/*
 * WRITE USING TOKEN (rod_cmd.c): copy the @nr spans, made and checked,
 * from @src (the token's LUN) to the LU of @cmd, checking @token after
 * every READ; or, without @src and @token, write zeroes over them. Takes
 * the references to @src and @token; completes @cmd and its @slot.
 */
void kt_xcopy_token_run(struct kt_cmd *cmd, struct kt_lun *src,
			struct kt_rod_token *token, bool del_tkn,
			const struct kt_xcopy_span *span, unsigned int nr,
			int slot);

/* xcopy_rcr.c: copies by LIST IDENTIFIER, per I_T nexus */
#define KT_XCOPY_NO_SLOT	(-1)

/* What a LIST IDENTIFIER names: an EXTENDED COPY (LID1), or a token operation */
#define KT_XCOPY_KIND_LID1	0
#define KT_XCOPY_KIND_PT	KT_SA_POPULATE_TOKEN
#define KT_XCOPY_KIND_WUT	KT_SA_WRITE_USING_TOKEN

/*
 * Register the operation @list_id of @cmd (LID1: LIST ID USAGE 00b or
 * 10b; token operations always); @hold: keep the results until RECEIVE
 * COPY RESULTS reads them. Returns the slot or KT_XCOPY_NO_SLOT with the
 * reason in *reason.
 */
int kt_xcopy_ids_claim(struct kt_cmd *cmd, u32 list_id, u8 kind, bool hold,
		       sense_reason_t *reason);
/* POPULATE TOKEN: the slot keeps @token (the caller's reference) for RRTI */
void kt_xcopy_ids_set_token(struct kt_session *sess, int slot,
			    struct kt_rod_token *token, u64 bytes);
void kt_xcopy_ids_progress(struct kt_session *sess, int slot, u64 bytes,
			   u16 segments);
/* The copy ended with @reason; its sense data is kept for FAILURE DETAILS. */
void kt_xcopy_ids_finish(struct kt_cmd *cmd, int slot, sense_reason_t reason);
void kt_xcopy_session_release(struct kt_session *sess);
void kt_xcopy_rcr_execute(struct kt_cmd *cmd);

/* xcopy_buf.c: copy buffers, kept a while for the next copy */
struct scatterlist *kt_xcopy_buf_get(struct kt_session *sess, u32 len,
				     unsigned int *nents, unsigned int *cap,
				     bool *fresh);
void kt_xcopy_buf_put(struct kt_session *sess, struct scatterlist *sgl,
		      unsigned int cap);
void kt_xcopy_buf_exit(void);

#endif /* KTARGET_XCOPY_H */
