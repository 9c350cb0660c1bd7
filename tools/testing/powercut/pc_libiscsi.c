// SPDX-License-Identifier: GPL-2.0
/*
 * pc_libiscsi URL: the power-cut writer's transport through libiscsi
 * (powercut_io.py write-libiscsi drives it).
 *
 * Reads commands on stdin and answers each on stdout once the target has:
 *   "W LBA F|P\n" and 512 bytes: WRITE (10) of one block, FUA with F;
 *   "S\n": SYNCHRONIZE CACHE (10) of the whole LU.
 * The answer is "ok\n", or the command's status and sense on stderr and
 * exit 1. The log of what was written and acknowledged stays with the
 * caller, which writes "W" before it sends and "A" after "ok".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

#define REC 512

static int done(struct scsi_task *task, struct iscsi_context *iscsi,
		const char *what)
{
	if (!task || task->status != SCSI_STATUS_GOOD) {
		fprintf(stderr, "%s: %s (status %d, sense %x/%02x/%02x)\n",
			what, iscsi_get_error(iscsi), task ? task->status : -1,
			task ? task->sense.key : 0,
			task ? task->sense.ascq >> 8 : 0,
			task ? task->sense.ascq & 0xff : 0);
		return 1;
	}
	scsi_free_scsi_task(task);
	printf("ok\n");
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	struct iscsi_context *iscsi;
	struct iscsi_url *url;
	unsigned char buf[REC];
	char line[64], kind;
	unsigned long lba;

	if (argc != 2) {
		fprintf(stderr, "usage: %s iscsi://HOST/IQN/LUN\n", argv[0]);
		return 2;
	}
	iscsi = iscsi_create_context("iqn.2026-11.org.ktarget:powercut-libiscsi");
	url = iscsi ? iscsi_parse_full_url(iscsi, argv[1]) : NULL;
	if (!url) {
		fprintf(stderr, "%s: no iSCSI URL\n", argv[1]);
		return 2;
	}
	iscsi_set_session_type(iscsi, ISCSI_SESSION_NORMAL);
	iscsi_set_header_digest(iscsi, ISCSI_HEADER_DIGEST_NONE);
	if (iscsi_full_connect_sync(iscsi, url->portal, url->lun)) {
		fprintf(stderr, "login: %s\n", iscsi_get_error(iscsi));
		return 1;
	}
	while (fgets(line, sizeof(line), stdin)) {
		if (line[0] == 'S') {
			if (done(iscsi_synchronizecache10_sync(iscsi, url->lun,
							       0, 0, 0, 0),
				 iscsi, "SYNCHRONIZE CACHE"))
				return 1;
			continue;
		}
		if (sscanf(line, "W %lu %c", &lba, &kind) != 2 ||
		    fread(buf, 1, REC, stdin) != REC) {
			fprintf(stderr, "bad command: %s", line);
			return 2;
		}
		if (done(iscsi_write10_sync(iscsi, url->lun, (uint32_t)lba,
					    buf, REC, REC, 0, 0,
					    kind == 'F', 0, 0),
			 iscsi, "WRITE (10)"))
			return 1;
	}
	iscsi_logout_sync(iscsi);
	iscsi_destroy_url(url);
	iscsi_destroy_context(iscsi);
	return 0;
}
