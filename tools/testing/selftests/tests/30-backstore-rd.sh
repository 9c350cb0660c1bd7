#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The rd_mcp backstore through configfs as LIO's tools drive it: HBA and
# device directories, control/enable/info, attrib/ and wwn/ with their checks,
# on-demand loading of ktarget_rd, and rtslib-fb creating a ramdisk.
. ./lib.sh

main() {
	local hba=$KT_CFS/core/rd_mcp_0 dev

	plan 51
	modprobe ktarget_core
	check "mkdir core/rd_mcp_0 loads ktarget_rd" mkdir $hba
	check "ktarget_rd was loaded on demand" grep -q '^ktarget_rd ' /proc/modules
	check "hba_info names the plugin" grep -q 'plugin: rd_mcp' $hba/hba_info

	dev=$hba/r0
	check "mkdir a device" mkdir $dev
	local f missing=
	for f in control enable info udev_path alias attrib wwn pr alua statistics \
		 attrib/block_size attrib/hw_block_size attrib/emulate_3pc attrib/emulate_caw \
		 attrib/max_unmap_lba_count attrib/is_nonrot attrib/pi_prot_type \
		 wwn/vpd_unit_serial wwn/vendor_id wwn/product_id wwn/revision wwn/company_id; do
		[ -e "$dev/$f" ] || missing="$missing $f"
	done
	check_eq "the device has LIO's files" "${missing:-none}" none

	check_eq "a new device is not enabled" "$(cat $dev/enable)" 0
	check_bad_write "enable before rd_pages is refused" $dev/enable 1 "set rd_pages="
	check_bad_write "control without = is refused" $dev/control "rd_pages" "is not key=value"
	check_bad_write "an unknown control key is refused" $dev/control "fd_dev_name=/x" "unknown key 'fd_dev_name'"
	check_bad_write "rd_pages=0 is refused" $dev/control "rd_pages=0" "bad value '0' for rd_pages"
	check_bad_write "rd_pages=abc is refused" $dev/control "rd_pages=abc" "bad value 'abc' for rd_pages"
	check "control rd_pages=2048" write_attr $dev/control rd_pages=2048
	check "info shows the pages" grep -q 'PAGES/PAGE_SIZE: 2048\*4096' $dev/info
	check "info shows DEACTIVATED" grep -q 'Status: DEACTIVATED' $dev/info
	check "enable" write_attr $dev/enable 1
	check_eq "enable reads 1" "$(cat $dev/enable)" 1
	check "info shows ACTIVATED" grep -q 'Status: ACTIVATED' $dev/info
	check_bad_write "enable twice is refused" $dev/enable 1 "already enabled"
	check_bad_write "enable 0 is refused" $dev/enable 0 "only 1 can be written"
	check_bad_write "rd_nullio after enable is refused" $dev/control "rd_nullio=1" \
		"rd_nullio cannot change while enabled"

	# attrib/
	check_eq "block_size defaults to 512" "$(cat $dev/attrib/block_size)" 512
	check "block_size 4096" write_attr $dev/attrib/block_size 4096
	check_eq "block_size reads 4096" "$(cat $dev/attrib/block_size)" 4096
	write_attr $dev/attrib/block_size 512
	check_bad_write "block_size 1000 is refused" $dev/attrib/block_size 1000 "not a power of 2"
	check_bad_write "block_size 8192 is refused" $dev/attrib/block_size 8192 "out of range 512..4096"
	check_bad_write "block_size abc is refused" $dev/attrib/block_size abc "is not a number"
	check_bad_write "emulate_caw 2 is refused" $dev/attrib/emulate_caw 2 "out of range 0..1"
	check_bad_write "optimal_sectors above hw_max_sectors is refused" \
		$dev/attrib/optimal_sectors 100000 "above hw_max_sectors"
	check_bad_write "queue_depth 0 is refused" $dev/attrib/queue_depth 0 "out of range"
	check_fails "hw_block_size is read-only" write_attr $dev/attrib/hw_block_size 4096
	check "emulate_tpu 1" write_attr $dev/attrib/emulate_tpu 1
	check_eq "emulate_tpu reads 1" "$(cat $dev/attrib/emulate_tpu)" 1

	# wwn/
	check "vpd_unit_serial written with echo" write_attr $dev/wwn/vpd_unit_serial 1a2b3c4d-0000-4000-8000-123456789abc
	check_eq "vpd_unit_serial reads back without the newline" "$(cat $dev/wwn/vpd_unit_serial)" \
		"T10 VPD Unit Serial Number: 1a2b3c4d-0000-4000-8000-123456789abc"
	check_bad_write "a 9-byte vendor_id is refused" $dev/wwn/vendor_id ABCDEFGHI "want 1..8"
	check_bad_write "a non-ASCII product_id is refused" $dev/wwn/product_id "$(printf 'ab\001c')" "not printable ASCII"
	check_bad_write "a company_id over 24 bits is refused" $dev/wwn/company_id 0x1000000 "24-bit"
	check "company_id 0x00abcd" write_attr $dev/wwn/company_id 0x00abcd
	check_eq "company_id reads back" "$(cat $dev/wwn/company_id)" 0x00abcd

	# HBA names
	kmsg_mark
	if mkdir $KT_CFS/core/rd_mcp 2>/dev/null; then
		not_ok "core/rd_mcp (no index) is refused"
	else
		kmsg_since | grep -q "HBA names are PLUGIN_INDEX" && ok "core/rd_mcp (no index) is refused" ||
			not_ok "core/rd_mcp (no index) is refused" "$(kmsg_since)"
	fi
	kmsg_mark
	if mkdir $KT_CFS/core/nosuch_3 2>/dev/null; then
		not_ok "an unknown backstore is refused"
	else
		kmsg_since | grep -q "no backstore 'nosuch'" && ok "an unknown backstore is refused" ||
			not_ok "an unknown backstore is refused" "$(kmsg_since)"
	fi

	# memory the machine does not have
	mkdir $hba/huge
	write_attr $hba/huge/control rd_pages=100000000000
	check_bad_write "rd_pages beyond RAM fails at enable" $hba/huge/enable 1 "more than the machine"
	rmdir $hba/huge

	# nullio
	mkdir $hba/null0
	check "a nullio ramdisk enables" sh -c "echo rd_pages=1000000,rd_nullio=1 > $hba/null0/control && echo 1 > $hba/null0/enable"
	check "info shows nullio: 1" grep -q 'nullio: 1' $hba/null0/info
	rmdir $hba/null0

	check "rmdir the device" rmdir $dev
	check "rmdir the HBA" rmdir $hba
	check "rmmod ktarget_rd" rmmod ktarget_rd

	# rtslib-fb, targetcli's library, creates and reads back a ramdisk
	mkdir -p /etc/rtslib-fb-target /var/run
	check "rtslib-fb creates a 64 MiB ramdisk and reads it back" python3 -c '
import rtslib_fb as r
so = r.RDMCPStorageObject("ram0", size=64 * 1024 * 1024, wwn="5a1f1e2d-0000-4000-8000-00000000beef")
try:
    assert so.size == 64 * 1024 * 1024, so.size
    assert so.wwn == "5a1f1e2d-0000-4000-8000-00000000beef", so.wwn
    assert so.status == "activated", so.status
    assert so.is_configured()
    so.set_attribute("emulate_tpu", "1")
    assert so.get_attribute("emulate_tpu") == "1"
    d = so.dump()
    assert d["plugin"] == "ramdisk" and d["size"] == 64 * 1024 * 1024, d
    assert d["attributes"]["emulate_tpu"] == 1, d
finally:
    so.delete()
'
	check_fails "rtslib removed its HBA" sh -c "ls -d $KT_CFS/core/rd_mcp_* 2>/dev/null | grep ."
	check "rmmod ktarget_rd" rmmod ktarget_rd
	check "rmmod ktarget_core" rmmod ktarget_core
}

main "$@"
