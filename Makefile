# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# krdma: build the module (kmod/krdma.ko) and the CLI (tools/krdmactl).
#
#   make               module + CLI, for the running kernel
#   make KVER=<v>      module for installed kernel <v> (/lib/modules/<v>/build)
#   make KDIR=<tree>   module against another kernel build tree
#   make guest         module + CLI for the test guests' kernel (see below)
#   make install       module under updates/ (then depmod), CLI, man page,
#                      completion; DESTDIR= and PREFIX= (default /usr/local)
#   make uninstall     removes what install put there
#   make deps          install the Debian packages the project needs
#   make check         unit tests, then the two-guest suite
#
# W=1 adds the kernel's extra warnings and makes every warning an error
# (CI); a plain build never fails on a warning a newer compiler invents.

TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
# The one version of module, CLI, dkms.conf and the packages.
VERSION := $(shell cat $(TOP)/VERSION)

# The test guests' kernel: the newest /boot/vmlinuz-<v> of series
# $(KSERIES) (Debian 12's 6.1 by default; KSERIES=6.12 for
# bookworm-backports) that has a module build tree, of Debian flavour
# $(KFLAVOUR) (amd64, rt-amd64). The targets that boot guests (demo,
# check, check-vm, check-pkg, sparse, kver, guest) always build for it;
# KSERIES= or KFLAVOUR= on a plain make also mean "for the guests".
KSERIES ?= 6.1
KFLAVOUR ?= amd64
GUEST_KVER = $(shell $(TOP)/scripts/guest-kver.sh $(KSERIES) $(KFLAVOUR))
RUNNING_KVER := $(shell uname -r)

ifneq ($(filter command environment,$(origin KSERIES) $(origin KFLAVOUR)),)
KVER ?= $(GUEST_KVER)
endif
# The running kernel when it has a build tree. When it is not installed
# on this machine at all (no /lib/modules/<v>: a container, or a VM
# booted with an outside kernel) no module could be built or loaded for
# it, and a checkout of this project is there to test in guests: build
# for the guests' kernel and say so. Installed but without a build tree:
# the module target names the headers package to install.
ifeq ($(origin KVER)$(origin KDIR),undefinedundefined)
ifeq ($(wildcard /lib/modules/$(RUNNING_KVER)/build/Makefile)$(wildcard /lib/modules/$(RUNNING_KVER)),)
KVER := $(GUEST_KVER)
KVER_WHY := the running kernel $(RUNNING_KVER) is not installed here (no /lib/modules/$(RUNNING_KVER)): building for the test guests' kernel
endif
endif
KVER ?= $(RUNNING_KVER)
KDIR ?= /lib/modules/$(KVER)/build

# Recursive: the guest targets below set KVER for themselves.
KBUILD_FLAGS = -C $(KDIR) M=$(TOP)
ifneq ($(W),)
KBUILD_FLAGS += W=$(W)
# A warning in the module fails a W=1 build.
KBUILD_FLAGS += KCFLAGS=-Werror
endif
ifneq ($(C),)
KBUILD_FLAGS += C=$(C)
endif

.PHONY: all guest module tools hostile clean clean-module install uninstall dkms.conf deb check-pkg-vm deps demo check check-unit check-spec regen check-pkg check-vm check-iwarp check-mesh check-slow check-debug check-mutants check-profiles check-shadow checkpatch sparse kver

all: module tools

kver:
	@echo $(KVER)

# Where the build tree is missing: what to install, by distribution.
define no_tree
{ echo "krdma: no kernel build tree at '$(KDIR)'."; \
  if [ "$(KVER)" = "$(RUNNING_KVER)" ] && [ "$(origin KDIR)" = file ]; then \
    echo "krdma: install the headers of the running kernel $(KVER):"; \
    echo "    Debian, Ubuntu:    apt install linux-headers-$(KVER)"; \
    echo "    Fedora, RHEL:      dnf install kernel-devel-$(KVER)"; \
  fi; \
  trees=$$(for d in /lib/modules/*/build; do [ -d "$$d" ] && basename "$${d%/build}"; done); \
  [ -z "$$trees" ] || echo "krdma: kernels with a build tree here:" $$trees "(make KVER=<v>)"; \
  echo "krdma: 'make guest' builds for the test guests' kernel (make deps installs it)."; } >&2
endef

module:
	@if [ -z "$(KVER)" ] && [ "$(origin KDIR)" = file ]; then \
		echo "krdma: no guest kernel of series $(KSERIES) $(KFLAVOUR) with a build tree: run 'make deps'" >&2; exit 1; fi
	@if [ ! -f "$(KDIR)/Makefile" ]; then $(no_tree); exit 1; fi
	$(if $(KVER_WHY),@echo "krdma: $(KVER_WHY) $(KVER)" >&2)
	$(MAKE) $(KBUILD_FLAGS) modules

# The module and CLI for the test guests' kernel (what the guest suite
# loads), whatever the host runs.
guest:
	$(MAKE) -C $(TOP) all KVER=$(GUEST_KVER)

tools:
	$(MAKE) -C tools VERSION=$(VERSION)

clean-module:
	-[ -d "$(KDIR)" ] && $(MAKE) -C $(KDIR) M=$(TOP) clean

clean: clean-module
	$(MAKE) -C tools clean
	$(MAKE) -C tests/unit clean
	$(MAKE) -C tests/hostile clean

# The misbehaving peer of tests/guest/hostile-peer.sh (librdmacm).
hostile:
	$(MAKE) -C tests/hostile

# Installs the module for $(KVER) under updates/ (then depmod, on a live
# install), krdmactl, its man page and bash completion. DESTDIR and
# PREFIX are honoured; a staged install (DESTDIR) leaves depmod to the
# target system. It installs what "make" built and builds nothing: as
# root, with other flags, it would build something else.
PREFIX ?= /usr/local
MODDIR = $(DESTDIR)/lib/modules/$(KVER)/updates
BINDIR = $(DESTDIR)$(PREFIX)/sbin
MANDIR = $(DESTDIR)$(PREFIX)/share/man/man8
COMPDIR = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
install:
	@[ -f kmod/krdma.ko ] && [ -f tools/krdmactl ] || \
		{ echo "krdma: nothing built to install: run 'make' first" >&2; exit 1; }
	@built=$$(modinfo -F vermagic kmod/krdma.ko | cut -d' ' -f1); [ "$$built" = "$(KVER)" ] || \
		{ echo "krdma: kmod/krdma.ko is built for $$built, not $(KVER): make KVER=$(KVER), or make install KVER=$$built" >&2; exit 1; }
	install -D -m 0644 kmod/krdma.ko $(MODDIR)/krdma.ko
	$(if $(DESTDIR),@echo "krdma: staged in $(DESTDIR): run 'depmod $(KVER)' on the target",depmod -a $(KVER))
	install -D -m 0755 tools/krdmactl $(BINDIR)/krdmactl
	install -D -m 0644 Documentation/krdmactl.8 $(MANDIR)/krdmactl.8
	install -D -m 0644 tools/completion/krdmactl $(COMPDIR)/krdmactl

# No build needed: what install put in place, for $(KVER).
uninstall:
	rm -f $(MODDIR)/krdma.ko
	[ ! -d $(MODDIR) ] || rmdir --ignore-fail-on-non-empty $(MODDIR)
	$(if $(DESTDIR),,depmod -a $(KVER))
	rm -f $(BINDIR)/krdmactl $(MANDIR)/krdmactl.8 $(COMPDIR)/krdmactl

# dkms.conf for this version (debian/rules and tests/pkg/dkms.sh).
dkms.conf: dkms.conf.in VERSION
	sed 's/@VERSION@/$(VERSION)/' $< >$@

# The Debian packages krdma-dkms and krdmactl (debian/), built from a clean
# copy of the tree and checked with lintian, into dist/.
deb:
	$(TOP)/tests/pkg/deb.sh $(TOP)/dist

deps:
	$(TOP)/scripts/install-deps.sh $(DEPS_SERIES)

# The targets that boot guests, and what they build, are for the guests'
# kernel (a KVER= or KDIR= on the command line still wins).
demo check check-vm check-unit check-pkg check-pkg-vm check-mutants sparse kver: KVER = $(GUEST_KVER)
demo check check-vm check-unit check-pkg check-pkg-vm check-mutants sparse kver: KVER_WHY =

demo: all
	KERNEL=$(KVER) $(TOP)/tests/demo.sh

check-unit: tools sparse check-spec
	$(TOP)/scripts/checkpatch.sh
	$(MAKE) -C tests/unit check
	$(TOP)/tests/lib/test_krdma_json.py
	timeout 300 $(TOP)/tests/lib/test-pyeval.sh
	KERNEL=$(KVER) $(TOP)/tests/vm/harness-selftest.sh
	$(TOP)/tests/bench/test_plot.py
	$(TOP)/tests/bench/test_host.sh
	$(TOP)/tests/mutants/run.sh --applies

# GUEST_TESTS= picks tests by name (default: all of tests/guest/ but
# the slow ones, which check-slow runs, so that make check stays within
# half an hour on CI; .ci/run runs both).
SLOW_GUEST_TESTS := hostile-peer scale cycles
FAST_GUEST_TESTS := $(filter-out $(SLOW_GUEST_TESTS),$(sort $(basename $(notdir $(wildcard $(TOP)/tests/guest/*.sh)))))
check-vm: all hostile
	KERNEL=$(KVER) $(TOP)/tests/run-guest-suite.sh $(foreach t,$(or $(GUEST_TESTS),$(FAST_GUEST_TESTS)),$(TOP)/tests/guest/$(t).sh)

check-slow: all hostile
	KERNEL=$(KVER) $(TOP)/tests/run-guest-suite.sh $(foreach t,$(SLOW_GUEST_TESTS),$(TOP)/tests/guest/$(t).sh)

# The transfer, several-QP and dead-peer tests over Soft-iWARP (siw0
# instead of rxe0): siw.ko is built for the guest kernel from Debian's
# linux-source (scripts/siw-module.sh, cached). GUEST_TESTS= overrides.
IWARP_TESTS ?= transfer multi-qp peer-death
check-iwarp: all
	KRDMA_RDMA=siw KERNEL=$(KVER) $(TOP)/tests/run-guest-suite.sh \
		$(foreach t,$(or $(GUEST_TESTS),$(IWARP_TESTS)),$(TOP)/tests/guest/$(t).sh)

# More than two hosts: MESH_NODES guests (4) of one vCPU on one vde_switch
# (vde2), every pair with a session, all of them running bw both ways at
# once and then check mode; node 1 prints the per-node totals.
MESH_NODES ?= 4
check-mesh: all
	KRDMA_WIRE=vde KRDMA_MODPARAMS=debug_dma=1 KERNEL=$(KVER) \
		$(TOP)/tests/vm/run.sh -n $(MESH_NODES) -c 1 -m 768 -t 2400 \
		$(TOP)/tests/guest-mesh/mesh.sh

check-pkg: all
	$(TOP)/tests/pkg/completion.sh
	$(TOP)/tests/pkg/install.sh
	$(TOP)/tests/pkg/dkms.sh
	$(TOP)/tests/pkg/deb.sh $(TOP)/dist

# In a guest: make install / modprobe / uninstall on one node, the .debs
# (DKMS building the module in the guest) / modprobe / purge on the other,
# a transfer between the two. DKMS's compile alone took more than 20 min
# under TCG on a loaded 2-core host: an hour for the whole.
check-pkg-vm: check-pkg
	KERNEL=$(KVER) KRDMA_SUITE_TIMEOUT=$${KRDMA_SUITE_TIMEOUT:-3600} \
		$(TOP)/tests/run-guest-suite.sh $(TOP)/tests/guest-pkg/packages.sh

check: check-unit check-pkg check-vm

# The guest suite under the KASAN + lockdep + kmemleak kernel of
# scripts/debug-kernel.sh (built once; DEBUG_KERNEL=<dir> uses a prebuilt
# one), counts scaled down. GUEST_TESTS= as for check-vm.
check-debug:
	$(TOP)/scripts/ci-kernel.sh debug - $(GUEST_TESTS)

# Seeded defects (tests/mutants/*.diff), each built into a copy of the
# tree and run against the guest tests that must notice it; a mutant they
# all pass fails the target. MUTANTS= picks them by name. Not in CI (a
# build and a boot each): by hand, after changing a test or the code a
# mutant breaks.
check-mutants:
	KERNEL=$(KVER) KVER=$(KVER) $(TOP)/tests/mutants/run.sh $(MUTANTS)

# The guest tests with every device seen as a hardware NIC's
# (caps_profile, kmod/caps.c), each test in a boot of its own (chained,
# smoke's listener would take transfer's port). PROFILE_KERNEL="debug -"
# runs them under the debug kernel.
PROFILES ?= mlx5 irdma bnxt_re cxgb4
PROFILE_TESTS ?= smoke transfer multi-qp
PROFILE_KERNEL ?= 6.1 amd64
# ... and with every buffer a bounce buffer (shadow_dma, kmod/mem.c): a
# sync left out or too short is stale data there. Not in CI (a boot a
# test); dma-checker.sh's shadow session runs in make check.
SHADOW_TESTS ?= transfer perf multi-qp
check-shadow:
	KRDMA_MODPARAMS="shadow_dma=1" KRDMA_CI_WORK=/var/tmp/krdma-shadow \
		$(TOP)/scripts/ci-kernel.sh $(PROFILE_KERNEL) $(SHADOW_TESTS)

check-profiles:
	rc=0; for p in $(PROFILES); do \
		echo "== caps_profile=$$p"; \
		KRDMA_MODPARAMS="caps_profile=$$p" KRDMA_CI_WORK=/var/tmp/krdma-profiles/$$p \
			$(TOP)/scripts/ci-kernel.sh $(PROFILE_KERNEL) $(PROFILE_TESTS) || rc=1; \
	done; exit $$rc

# The files generated from the YNL spec (scripts/spec-regen.sh --list) are
# what the generators make of it, netlink.c, the CLI and the man page agree
# with it.
check-spec: tools
	$(TOP)/tests/spec/run.sh

# Rewrite the files generated from the YNL spec after a change to it.
regen:
	$(TOP)/scripts/spec-regen.sh

checkpatch:
	$(TOP)/scripts/checkpatch.sh

# sparse over every module source; any warning fails.
sparse:
	@$(MAKE) $(KBUILD_FLAGS) C=2 modules 2>&1 | tee $(TOP)/.sparse.log
	@! grep -E 'warning:|error:' $(TOP)/.sparse.log
	@echo "sparse: clean"
