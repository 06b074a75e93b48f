# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# krdma: build the module (kmod/krdma.ko) and the CLI (tools/krdmactl).
#
#   make               module + CLI, against the newest installed guest kernel
#   make KDIR=<tree>   module against another kernel build tree
#   make deps          install the Debian packages the project needs
#   make check         unit tests, then the two-guest suite
#
# The build machine's own kernel is irrelevant: the module is built for the
# Debian kernel image installed under /boot, which the QEMU guests run.

TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))

# The guest kernel: the newest /boot/vmlinuz-<v> of series $(KSERIES)
# (Debian 12's 6.1 by default; KSERIES=6.12 for bookworm-backports) that
# has a module build tree, of Debian flavour $(KFLAVOUR) (amd64, rt-amd64).
# KVER= or KDIR= override.
KSERIES ?= 6.1
KFLAVOUR ?= amd64
KVER ?= $(shell $(TOP)/scripts/guest-kver.sh $(KSERIES) $(KFLAVOUR))
KDIR ?= /lib/modules/$(KVER)/build

KBUILD_FLAGS := -C $(KDIR) M=$(TOP)
ifneq ($(W),)
KBUILD_FLAGS += W=$(W)
# A warning in the module fails a W=1 build.
KBUILD_FLAGS += KCFLAGS=-Werror
endif
ifneq ($(C),)
KBUILD_FLAGS += C=$(C)
endif

.PHONY: all module tools hostile clean clean-module install deps demo check check-unit check-spec check-pkg check-vm check-iwarp check-debug checkpatch sparse kver

all: module tools

kver:
	@echo $(KVER)

module:
	@if [ ! -d "$(KDIR)" ]; then \
		echo "krdma: no kernel build tree at '$(KDIR)'; run 'make deps' or set KDIR=" >&2; exit 1; fi
	$(MAKE) $(KBUILD_FLAGS) modules

tools:
	$(MAKE) -C tools

clean-module:
	-[ -d "$(KDIR)" ] && $(MAKE) -C $(KDIR) M=$(TOP) clean

clean: clean-module
	$(MAKE) -C tools clean
	$(MAKE) -C tests/unit clean
	$(MAKE) -C tests/hostile clean

# The misbehaving peer of tests/guest/hostile-peer.sh (librdmacm).
hostile:
	$(MAKE) -C tests/hostile

# Installs the module for $(KVER) under updates/ (then depmod), krdmactl,
# its man page and bash completion. DESTDIR and PREFIX are honoured.
PREFIX ?= /usr/local
install: all
	$(MAKE) -C $(KDIR) M=$(TOP) INSTALL_MOD_DIR=updates \
		$(if $(DESTDIR),INSTALL_MOD_PATH=$(DESTDIR)) modules_install
	$(if $(DESTDIR),echo "install: DESTDIR set, run depmod $(KVER) on the target",depmod -a $(KVER))
	install -D -m 0755 tools/krdmactl $(DESTDIR)$(PREFIX)/sbin/krdmactl
	install -D -m 0644 Documentation/krdmactl.8 \
		$(DESTDIR)$(PREFIX)/share/man/man8/krdmactl.8
	install -D -m 0644 tools/completion/krdmactl \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/krdmactl

deps:
	$(TOP)/scripts/install-deps.sh $(DEPS_SERIES)

demo: all
	KERNEL=$(KVER) $(TOP)/tests/demo.sh

check-unit: tools sparse check-spec
	$(TOP)/scripts/checkpatch.sh
	$(MAKE) -C tests/unit check
	$(TOP)/tests/vm/harness-selftest.sh -s

# GUEST_TESTS= picks tests by name (default: all of tests/guest/).
check-vm: all hostile
	KERNEL=$(KVER) $(TOP)/tests/run-guest-suite.sh $(foreach t,$(GUEST_TESTS),$(TOP)/tests/guest/$(t).sh)

# The transfer, several-QP and dead-peer tests over Soft-iWARP (siw0
# instead of rxe0): siw.ko is built for the guest kernel from Debian's
# linux-source (scripts/siw-module.sh, cached). GUEST_TESTS= overrides.
IWARP_TESTS ?= transfer multi-qp peer-death
check-iwarp: all
	KRDMA_RDMA=siw KERNEL=$(KVER) $(TOP)/tests/run-guest-suite.sh \
		$(foreach t,$(or $(GUEST_TESTS),$(IWARP_TESTS)),$(TOP)/tests/guest/$(t).sh)

check-pkg: all
	$(TOP)/tests/pkg/completion.sh
	$(TOP)/tests/pkg/dkms.sh

check: check-unit check-pkg check-vm

# The guest suite under the KASAN + lockdep + kmemleak kernel of
# scripts/debug-kernel.sh (built once; DEBUG_KERNEL=<dir> uses a prebuilt
# one), counts scaled down. GUEST_TESTS= as for check-vm.
check-debug:
	$(TOP)/scripts/ci-kernel.sh debug - $(GUEST_TESTS)

# The YNL spec against the uapi header, netlink.c, the CLI, the man page
# and Documentation/netlink-abi.rst.
check-spec: tools
	$(TOP)/tests/spec/run.sh

checkpatch:
	$(TOP)/scripts/checkpatch.sh

# sparse over every module source; any warning fails.
sparse:
	@$(MAKE) $(KBUILD_FLAGS) C=2 modules 2>&1 | tee $(TOP)/.sparse.log
	@! grep -E 'warning:|error:' $(TOP)/.sparse.log
	@echo "sparse: clean"
