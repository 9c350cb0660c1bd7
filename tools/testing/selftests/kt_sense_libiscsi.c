// SPDX-License-Identifier: GPL-2.0
/*
 * kt_sense_libiscsi URL read|write LBA BLOCKS WANT: one READ (16) or
 * WRITE (16) through libiscsi, and the answer as libiscsi decoded it
 * ("status 2, sense 3/11/00"). WANT is KEY/ASC/ASCQ in hex, 0/00/00 for
 * GOOD, optionally "@N": the sense data's INFORMATION (fixed or
 * descriptor format, as libiscsi hands it over) must hold LBA N. Exits 0
 * when the answer is WANT. tests/47 and 48 build it in the guest to check
 * fault senses from a second initiator implementation.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

/*
 * INFORMATION of the sense data libiscsi keeps in task->datain (after
 * its two-byte SenseLength), if the sense data has it valid.
 */
static int sense_info(const struct scsi_task *task, unsigned long long *info)
{
	const unsigned char *d = task->datain.data, *s = d + 2;
	int len, i, j;

	if (!d || task->datain.size < 10)
		return -1;
	len = d[0] << 8 | d[1];
	if (len > task->datain.size - 2)
		len = task->datain.size - 2;
	if (len < 8)
		return -1;
	/* the sense data's own length: ADDITIONAL SENSE LENGTH */
	if (len > 8 + s[7])
		len = 8 + s[7];
	switch (s[0] & 0x7f) {
	case 0x70: case 0x71:			/* fixed: VALID, bytes 3-6 */
		if (!(s[0] & 0x80) || len < 7)
			return -1;
		*info = (unsigned long long)s[3] << 24 | s[4] << 16 |
			s[5] << 8 | s[6];
		return 0;
	case 0x72: case 0x73:			/* descriptors from byte 8 */
		for (i = 8; i + 2 <= len && i + 2 + s[i + 1] <= len;
		     i += 2 + s[i + 1]) {
			/* the information descriptor, type 00h, VALID */
			if (s[i] != 0x00 || s[i + 1] != 0x0a ||
			    !(s[i + 2] & 0x80))
				continue;
			*info = 0;
			for (j = 4; j < 12; j++)
				*info = *info << 8 | s[i + j];
			return 0;
		}
		return -1;
	default:
		return -1;
	}
}

int main(int argc, char **argv)
{
	struct scsi_readcapacity16 *rc;
	struct iscsi_context *iscsi;
	struct scsi_task *task;
	struct iscsi_url *url;
	unsigned int key, asc, ascq, st;
	unsigned long long lba, info = 0, want_info = 0;
	int has_info = 0, info_ok = 1;
	unsigned char *buf;
	uint32_t bs, n;
	char got[16], want[40], info_s[24] = "none", *at;

	if (argc != 6) {
		fprintf(stderr, "usage: %s URL read|write LBA BLOCKS KEY/ASC/ASCQ\n",
			argv[0]);
		return 2;
	}
	lba = strtoull(argv[3], NULL, 0);
	n = strtoul(argv[4], NULL, 0);
	snprintf(want, sizeof(want), "%s", argv[5]);
	at = strchr(want, '@');
	if (at) {
		*at = 0;
		want_info = strtoull(at + 1, NULL, 0);
	}
	iscsi = iscsi_create_context("iqn.2026-11.org.ktarget:sense-libiscsi");
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
	/* the first command of a new nexus hears of the power on: retry */
	task = iscsi_readcapacity16_sync(iscsi, url->lun);
	if (task && task->status == SCSI_STATUS_CHECK_CONDITION) {
		scsi_free_scsi_task(task);
		task = iscsi_readcapacity16_sync(iscsi, url->lun);
	}
	rc = task && task->status == SCSI_STATUS_GOOD ?
	     scsi_datain_unmarshall(task) : NULL;
	if (!rc) {
		fprintf(stderr, "READ CAPACITY (16): %s\n", iscsi_get_error(iscsi));
		return 1;
	}
	bs = rc->block_length;
	scsi_free_scsi_task(task);

	buf = calloc(n, bs);
	if (!buf)
		return 1;
	memset(buf, 0x6c, (size_t)n * bs);
	if (!strcmp(argv[2], "read"))
		task = iscsi_read16_sync(iscsi, url->lun, lba, n * bs, bs,
					 0, 0, 0, 0, 0);
	else
		task = iscsi_write16_sync(iscsi, url->lun, lba, buf, n * bs, bs,
					  0, 0, 0, 0, 0);
	if (!task) {
		fprintf(stderr, "%s: %s\n", argv[2], iscsi_get_error(iscsi));
		return 1;
	}
	st = task->status;
	key = st == SCSI_STATUS_CHECK_CONDITION ? task->sense.key : 0;
	asc = st == SCSI_STATUS_CHECK_CONDITION ? task->sense.ascq >> 8 : 0;
	ascq = st == SCSI_STATUS_CHECK_CONDITION ? task->sense.ascq & 0xff : 0;
	snprintf(got, sizeof(got), "%x/%02x/%02x", key, asc, ascq);
	if (st == SCSI_STATUS_CHECK_CONDITION)
		has_info = !sense_info(task, &info);
	if (at)
		info_ok = has_info && info == want_info;
	if (has_info)
		snprintf(info_s, sizeof(info_s), "%llu", info);
	printf("libiscsi: %s (16) of %u blocks at %llu: status %u, sense %s, INFORMATION %s (want %s)\n",
	       argv[2], n, lba, st, got, info_s, argv[5]);
	scsi_free_scsi_task(task);
	free(buf);
	iscsi_logout_sync(iscsi);
	iscsi_destroy_url(url);
	iscsi_destroy_context(iscsi);
	if (!strcmp(want, "0/00/00"))
		return st == SCSI_STATUS_GOOD ? 0 : 1;
	return st == SCSI_STATUS_CHECK_CONDITION && !strcasecmp(got, want) &&
	       info_ok ? 0 : 1;
}
