// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: drivers/target/proto/alua.c. SET TARGET PORT GROUPS
 * parameter lists, then REPORT TARGET PORT GROUPS built over the groups
 * those descriptors name, into an allocation-length-sized buffer that must
 * hold a prefix of the full response; and the access check for every state
 * over the input as a CDB. Buffers are malloc'ed to their exact length so
 * ASan catches overruns.
 *
 * Input: byte 0 RTPG format and allocation length (low 7 bits, times 4),
 * then the parameter list.
 */
#include <linux/types.h>
#include <linux/unaligned.h>
#include <stdlib.h>
#include <string.h>

#include <ktarget/proto/alua.h>
#include <ktarget/proto/cdb.h>
#include <ktarget/proto/sense.h>

#define MAX_DESC	64

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct kt_alua_stpg_desc sd[MAX_DESC];
	struct kt_alua_desc d[MAX_DESC];
	u16 ports[MAX_DESC];
	struct kt_sense_field f;
	unsigned int nr = 0, i;
	u8 cdb[16] = { 0xa3, 0x0a }, *param, *full, *part;
	u32 len, alloc, n_full = 0, n_part = 0;
	sense_reason_t ret;

	if (size < 1)
		return 0;
	cdb[1] |= (data[0] & 0x80) ? 0x20 : 0;
	alloc = (data[0] & 0x7f) * 4;
	len = size - 1;
	param = malloc(len ? len : 1);
	memcpy(param, data + 1, len);

	ret = kt_alua_stpg_parse(param, len, sd, MAX_DESC, &nr, &f);
	if (ret == KT_SENSE_INVALID_PARAM_FIELD && (!f.valid || f.in_cdb))
		abort();
	if (ret != KT_SENSE_NONE)
		nr = 0;
	for (i = 0; i < nr; i++) {
		if (sd[i].state > KT_ALUA_UNAVAILABLE)
			abort();
		ports[i] = sd[i].id;
		d[i] = (struct kt_alua_desc){
			.id = sd[i].id, .state = sd[i].state,
			.supported = kt_alua_state_sup(sd[i].state),
			.nr_ports = i + 1, .ports = ports,
		};
	}

	full = malloc(8 + MAX_DESC * (8 + 4 * MAX_DESC));
	part = malloc(alloc ? alloc : 1);
	if (kt_alua_rtpg(cdb, d, nr, 7, full,
			 8 + MAX_DESC * (8 + 4 * MAX_DESC), &n_full, &f) ||
	    kt_alua_rtpg(cdb, d, nr, 7, part, alloc, &n_part, &f))
		abort();
	if (n_full != n_part || get_unaligned_be32(full) != n_full - 4 ||
	    memcmp(full, part, alloc < n_full ? alloc : n_full))
		abort();

	/* a CDB is at least 6 bytes: the core passes its 32-byte copy */
	memset(cdb, 0, sizeof(cdb));
	memcpy(cdb, param, len < sizeof(cdb) ? len : sizeof(cdb));
	for (i = 0; i <= 0xf; i++)
		if (kt_alua_access_check(i, kt_cdb_desc_find(cdb, 2)) &&
		    (kt_alua_access_check(i, kt_cdb_desc_find(cdb, 2)) >> 8) != 0x04)
			abort();

	free(part);
	free(full);
	free(param);
	return 0;
}
