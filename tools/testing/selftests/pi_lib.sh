# SPDX-License-Identifier: GPL-2.0
#
# T10-PI helpers of the tests/56-pi*.sh files: bytes of a backing file
# changed behind the target's back, and the tuple a block's data should
# have. pi_ok reads the globals IMG (the data, 512-byte blocks) and PROT
# (its .protection file).

# poke FILE OFFSET HEX: write the bytes HEX at OFFSET of FILE, in place
poke() {
	python3 - "$@" <<-'EOF'
	import os, sys
	fd = os.open(sys.argv[1], os.O_WRONLY)
	os.pwrite(fd, bytes.fromhex(sys.argv[3]), int(sys.argv[2]))
	os.fsync(fd)
	os.close(fd)
	EOF
}

# flip FILE OFFSET: invert the byte at OFFSET of FILE
flip() {
	python3 - "$@" <<-'EOF'
	import os, sys
	fd = os.open(sys.argv[1], os.O_RDWR)
	off = int(sys.argv[2])
	b = os.pread(fd, 1, off)
	os.pwrite(fd, bytes([b[0] ^ 0xff]), off)
	os.fsync(fd)
	os.close(fd)
	EOF
}

# pi_ok LBA TYPE [APP [REF]]: f1's stored PI of block LBA is what SBC-4
# says a write with WRPROTECT 0 makes of its data: CRC-16 T10-DIF guard,
# application tag 0, reference tag the LBA (type 1) or 0 (type 3); or the
# application tag APP and reference tag REF given
pi_ok() {
	python3 ./pi_tuple.py check $IMG $PROT "$@"
}

# write_verify DISK: 1 MiB at 1 MiB through the Linux initiator, read back
# (its data kept in $DIR/data)
write_verify() {
	head -c 1M /dev/urandom > $DIR/data &&
		dd if=$DIR/data of=$1 bs=64k seek=16 oflag=direct status=none &&
		dd if=$1 bs=64k skip=16 count=16 iflag=direct status=none | cmp - $DIR/data
}
