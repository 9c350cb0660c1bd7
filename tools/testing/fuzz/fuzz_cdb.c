// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: kt_cdb_decode() over arbitrary bytes. Checks that an
 * accepted CDB never claims more bytes than it was given.
 */
#include <linux/types.h>
#include <stdlib.h>

#include <ktarget/proto/cdb.h>

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct kt_cdb c;

	if (kt_cdb_decode(data, size, &c) == KT_CDB_OK) {
		if (c.len > size || c.len > KT_CDB_MAX_LEN || c.opcode != data[0])
			abort();
		if (c.layout == KT_CDB_RW6 && (c.nr_blocks < 1 || c.nr_blocks > 256))
			abort();
	}
	return 0;
}
