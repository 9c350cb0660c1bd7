# SPDX-License-Identifier: GPL-2.0
#
# ktarget: the one entry point for users and CI.
#
#   make            build every module in one kbuild run
#   make install    install into /lib/modules/$KVER/updates/ktarget, then depmod
#   make deps       install the Debian packages the project needs
#   make deb        the ktarget-dkms Debian package, in .deb/ (DKMS builds it per kernel)
#   make unit       userspace unit tests of drivers/target/proto (ASan + UBSan)
#   make fuzz       long libFuzzer runs of the protocol parsers
#   make fuzz-loop  the stateful iSCSI fuzzer in a guest for an hour, new seed each round
#   make test       deps, build, unit tests, guest test suite; ends "N passed, N failed"
#   make test-6.12  every test file on Debian 12's 6.12 (make test runs a part there)
#   make test-debug the same on the debug kernel of ../shared/kernel (KASAN, kmemleak, lockdep)
#   make test-scale guest tests with thousands of objects, too slow for make test
#   make test-vhost-qemu  QEMU in the guest boots a guest on vhost-scsi-pci
#                   (ktarget's, then LIO's): TCG in TCG, 40 minutes
#   make demo       deps, build, boot a guest and show ktarget working
#   make bench      ktarget against in-tree LIO in one guest, with ratios
#   make powercut   the power-cut test with 20 cuts (CUTS=N, STACK=lio for LIO)
#   make soak       30 minutes of faults, cuts, TMFs and configfs churn, debug kernel
#   make cluster    the two-node scenarios (corosync, dlm_controld, one shared LU)
#   make cluster-bench  cluster mode's cost: IOPS and PR OUT latency, on and off
#   make check      checkpatch and sparse over the tree

# The kernel built against; make kdir prints it, make kver its release.
#   KDIR=DIR        that build tree
#   KVER=RELEASE    /lib/modules/RELEASE/build (as tools/testing/vm/run.sh --kver)
#   neither         the running kernel's build tree when it has one; else the
#                   one header set installed; else, of several, the kernel the
#                   test guests boot, whatever newer sets are installed beside
#                   it: the one Debian's linux-image-amd64 installs, or the
#                   newest 6.1.0-N-amd64 with a /boot/vmlinuz; else the newest
#                   set. Of several, a note on stderr names the sets found.
# A header set is a /lib/modules/RELEASE/build that holds a Makefile. KDIR is
# chosen when first used, so targets that need no kernel say nothing.
kt_sets = $(patsubst /lib/modules/%/build/Makefile,%,$(wildcard /lib/modules/*/build/Makefile))
kt_newest = $(lastword $(shell printf '%s\n' $(1) | sort -V))
kt_debian = $(shell dpkg-query -W -f '$${Depends}' linux-image-amd64 2>/dev/null | \
	sed -n 's/^linux-image-\([^ ,]*\).*/\1/p')
kt_guest = $(or $(filter $(kt_debian),$(1)),$(call kt_newest,\
	$(foreach r,$(filter 6.1.0-%-amd64,$(1)),$(if $(wildcard /boot/vmlinuz-$(r)),$(r)))))
kt_note = $(shell printf 'ktarget: kernel headers found: %s; building for %s; pass KVER= to choose\n' \
	'$(strip $(1))' '$(2)' >&2)
kt_choose = $(if $(word 2,$(1)),$(call kt_note,$(1),$(2))$(2),$(1))
kt_release = $(if $(wildcard /lib/modules/$(shell uname -r)/build/Makefile),$(shell uname -r),\
	$(call kt_choose,$(kt_sets),$(or $(call kt_guest,$(kt_sets)),$(call kt_newest,$(kt_sets)))))

ifneq ($(KVER),)
KDIR ?= /lib/modules/$(KVER)/build
endif
KDIR ?= $(eval KDIR := $(addprefix /lib/modules/,$(addsuffix /build,$(strip $(kt_release)))))$(KDIR)
KVER ?= $(or $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' \
	$(KDIR)/include/generated/utsrelease.h 2>/dev/null),$(patsubst /lib/modules/%/build,%,\
	$(filter /lib/modules/%/build,$(KDIR))),$(patsubst linux-headers-%,%,$(notdir $(KDIR))))

# a warning fails the build (KT_WERROR=0: it does not; DKMS builds so)
KT_WERROR ?= 1

INSTALL_MOD_DIR ?= updates/ktarget
INSTALL_MOD_PATH ?= $(DESTDIR)
DEPMOD ?= /sbin/depmod

PWD := $(CURDIR)

# The debug kernel has no UIO: tools/testing/vm/debug-extra-modules.sh
# builds the kernel's uio.ko for it under extra/ktdebug, with the symbols
# ktarget_user links against; the user backstore is built when they are
# there (its Kbuild tests CONFIG_UIO).
KT_EXTRA_SYMVERS = $(wildcard /lib/modules/$(KVER)/extra/ktdebug/Module.symvers)
KT_EXTRA_ARGS = $(if $(KT_EXTRA_SYMVERS),KBUILD_EXTRA_SYMBOLS=$(KT_EXTRA_SYMVERS) \
	$(if $(shell grep -s '^CONFIG_UIO=' $(KDIR)/.config),,CONFIG_UIO=m))

.PHONY: all modules install clean deps deb unit fuzz test test-6.12 test-debug test-scale test-vhost-qemu debug-kernel soak demo bench powercut cluster cluster-bench check kver kdir fuzz-loop help

all: modules

modules:
	@test -d "$(KDIR)" || { echo "no kernel build tree$(if $(KDIR), $(KDIR)): run 'make deps' or pass KVER= or KDIR=" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(PWD) KT_WERROR=$(KT_WERROR) $(KT_EXTRA_ARGS) modules

install: modules
	$(MAKE) -C $(KDIR) M=$(PWD) INSTALL_MOD_DIR=$(INSTALL_MOD_DIR) \
		INSTALL_MOD_PATH=$(INSTALL_MOD_PATH) DEPMOD=true modules_install
	$(DEPMOD) -a $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) $(KVER)
	install -D -m 0644 tools/ktarget.modules-load.conf \
		$(INSTALL_MOD_PATH)/usr/share/ktarget/modules-load.d/ktarget.conf
	install -D -m 0644 tools/ktarget-lio-names.modprobe.conf \
		$(INSTALL_MOD_PATH)/usr/share/ktarget/modprobe.d/ktarget-lio-names.conf
	@echo "To load ktarget at boot instead of LIO:"
	@echo "  cp $(INSTALL_MOD_PATH)/usr/share/ktarget/modules-load.d/ktarget.conf /etc/modules-load.d/"
	@echo "To have modprobe load ktarget's modules for LIO's names (tcm_loop, ib_srpt, ...):"
	@echo "  cp $(INSTALL_MOD_PATH)/usr/share/ktarget/modprobe.d/ktarget-lio-names.conf /etc/modprobe.d/"

clean:
	$(MAKE) -C $(KDIR) M=$(PWD) clean
	$(MAKE) -C tools/testing/unit clean
	$(MAKE) -C tools/testing/fuzz clean

deps:
	@tools/deps.sh

# The ktarget-dkms Debian package, in .deb/ (DKMS builds the modules on
# the machine that installs it).
deb: deps
	@tools/packaging/deb.sh

unit:
	$(MAKE) -C tools/testing/unit run

fuzz:
	$(MAKE) -C tools/testing/fuzz run FUZZ_SECONDS=$(or $(FUZZ_SECONDS),600) \
		FUZZ_MAX_LEN=$(or $(FUZZ_MAX_LEN),9000)

test: deps
	@tools/testing/run-all.sh

# Every test file on Debian 12's 6.12 alone (make test runs the files that
# differ between the kernels there, beside the whole suite on 6.1)
KT_612 = $(call kt_newest,$(foreach r,$(filter 6.12.%+deb12-amd64,$(kt_sets)),\
	$(if $(wildcard /boot/vmlinuz-$(r)),$(r))))

test-6.12: deps
	@test -n "$(KT_612)" || { echo "test-6.12: no 6.12 kernel with headers (make deps installs it)" >&2; exit 1; }
	@KVER=$(KT_612) tools/testing/run-all.sh

# The debug kernel: installed from ../shared/kernel when it is not yet; the
# modules its configuration lacks (UIO, vhost, the SRP initiator) built for
# it from linux-source-6.1 (tools/testing/vm/debug-extra-modules.sh).
DEBUG_KVER ?= 6.1.192-ktdebug
DEBUG_DEBS ?= $(wildcard $(CURDIR)/../shared/kernel/linux-*-$(DEBUG_KVER)_*.deb)

# The release name stays 6.1.192-ktdebug across rebuilds: the package
# version (6.1.192-ktdebug2, ...) tells a newer build from the installed one.
DEBUG_PKGVER = $(if $(DEBUG_DEBS),$(shell dpkg-deb -f $(firstword $(DEBUG_DEBS)) Version 2>/dev/null))

debug-kernel: deps
	@have=$$(dpkg-query -W -f '$${Version}' linux-image-$(DEBUG_KVER) 2>/dev/null); \
	if [ -n "$(DEBUG_DEBS)" ] && [ "$$have" != "$(DEBUG_PKGVER)" ]; then \
		echo "test-debug: installing the debug kernel $(DEBUG_PKGVER) (have: $${have:-none})"; \
		dpkg -i $(DEBUG_DEBS) >/dev/null || exit 1; \
	fi; \
	test -e /boot/vmlinuz-$(DEBUG_KVER) -a -d /lib/modules/$(DEBUG_KVER)/build || \
		{ echo "no debug kernel: no packages in ../shared/kernel" >&2; exit 1; }
	@tools/testing/vm/debug-extra-modules.sh $(DEBUG_KVER)

test-debug: debug-kernel
	@KT_FUZZ_SECONDS=1 KDIR=/lib/modules/$(DEBUG_KVER)/build tools/testing/run-all.sh

# Guest tests at a scale make test cannot afford under TCG (thousands of
# LUNs): tools/testing/selftests/scale. KVER= or KDIR= choose the kernel.
test-scale: deps modules
	@tools/testing/vm/run.sh --name scale --quiet \
		$(CURDIR)/tools/testing/selftests/run.sh \
		$(wildcard $(CURDIR)/tools/testing/selftests/scale/*.sh); \
	status=$$?; cat .vm-out/scale/output.log; exit $$status

# A real QEMU on the vhost-scsi fabric: QEMU inside the test guest boots
# the guest's kernel with vhost-scsi-pci, on ktarget_vhost (set up by
# targetcli) and then on LIO's vhost_scsi (by echo); the nested guest
# writes and reads an rd and a fileio LUN. TCG in TCG: a nested guest takes
# about 15 minutes; each file gets VHOST_QEMU_SECONDS (default 2400).
# VHOST_QEMU="10-ktarget" runs one file of tools/testing/selftests/vhost-qemu.
# KVER= or KDIR= choose the kernel. Not in make test.
VHOST_QEMU ?= 10-ktarget 20-lio
VHOST_QEMU_SECONDS ?= 2400

test-vhost-qemu: deps modules
	@KT_FILE_TIMEOUT=$(VHOST_QEMU_SECONDS) tools/testing/vm/run.sh --smp 1 \
		--name vhost-qemu --quiet \
		--timeout $$(( $(words $(VHOST_QEMU)) * $(VHOST_QEMU_SECONDS) + 600 )) \
		$(CURDIR)/tools/testing/selftests/run.sh \
		$(foreach f,$(VHOST_QEMU),$(CURDIR)/tools/testing/selftests/vhost-qemu/$(f).sh); \
	status=$$?; grep -E '^(ok|not ok|#|guest:)' .vm-out/vhost-qemu/output.log; exit $$status

# The soak on the debug kernel: SOAK_SECONDS (default 1800) of rounds of
# tests/52, 57, 55, 47 and 95, two rounds at least; the memory samples are
# in .vm-out/soak/soak-samples.txt. A round takes about 40 minutes under
# TCG, and one may start just before SOAK_SECONDS are up: the guest gets
# SOAK_SECONDS plus two hours.
soak: debug-kernel
	@tools/testing/vm/run.sh --kver $(DEBUG_KVER) --name soak --quiet \
		--timeout $$(( $(or $(SOAK_SECONDS),1800) + 7200 )) \
		tools/testing/soak/soak.sh $(or $(SOAK_SECONDS),1800); \
	status=$$?; grep -E '^(ok|not ok|#)' .vm-out/soak/output.log; exit $$status

demo: deps modules
	@tools/testing/vm/run.sh --name demo tools/testing/demo.sh

# The power-cut test alone, with more cuts: CUTS=N (default 20), STACK=lio
# for the same test on Linux's own target.
powercut: deps modules
	@tools/testing/powercut/run.sh --cuts $(or $(CUTS),20) --stack $(or $(STACK),ktarget)

# BENCH_ARGS: run.sh's options, e.g. "--rounds 3 --lio-submit-type 2";
# KVER= benchmarks on that kernel (LIO's submit_type exists from 6.10)
bench: deps modules
	@tools/testing/bench/run.sh $(BENCH_ARGS) $(if $(filter command line environment,$(origin KVER)),--kver $(KVER))

# The stateful fuzzer in a loop: FUZZ_LOOP_MINUTES (default 60) of rounds
# of tests/95-pdu-fuzz.sh, each with a new seed, after FUZZ_LOOP_PRE (guest
# test files that run first, not counted in the minutes; default the
# suite's files before it; the guest gets two hours more; ddpt is built
# for tests/82-odx). KVER=
# or KDIR= choose the kernel (the debug kernel: KVER=6.1.192-ktdebug).
FUZZ_LOOP_PRE ?= $(abspath $(filter-out %/95-pdu-fuzz.sh,$(wildcard tools/testing/selftests/tests/*.sh)))

fuzz-loop: deps modules
	@case "$(FUZZ_LOOP_PRE)" in *82-odx*) tools/testing/ddpt/build.sh > /dev/null || \
		echo "fuzz-loop: ddpt did not build: tests/82-odx will fail" ;; esac
	@tools/testing/vm/run.sh --name fuzz-loop --quiet \
		--timeout $$(( $(or $(FUZZ_LOOP_MINUTES),60) * 60 + 7200 )) \
		tools/testing/selftests/fuzz-loop.sh $(or $(FUZZ_LOOP_MINUTES),60) \
		$(FUZZ_LOOP_PRE); \
	status=$$?; grep -E '^(ok|not ok|#|fuzz-loop)' .vm-out/fuzz-loop/output.log; \
	[ ! -e .vm-out/fuzz-loop/stuck.txt ] || cat .vm-out/fuzz-loop/hang.txt; exit $$status

# Two guests serve one LU in cluster mode: every scenario of
# tools/testing/cluster/tests (make test runs none: they take 20 minutes).
cluster: deps modules
	@tools/testing/cluster/run.sh tools/testing/cluster/tests/*.sh

cluster-bench: deps modules
	@tools/testing/cluster/run.sh tools/testing/cluster/bench/*.sh

check:
	@tools/check.sh

kver:
	@echo $(KVER)

kdir:
	@echo $(KDIR)

help:
	@sed -n '3,/^$$/p' Makefile
