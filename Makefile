# stripe: userspace toolkit for Linux md RAID arrays.
# make            builds lib/libstripe.a and bin/stripe-*, and the nbdkit plugin
#                 plugin/nbdkit-stripe-plugin.so on the same (position-independent) library
# make check      installs missing build/test packages (root), builds the plain, the
#                 ASan+UBSan and the fuzzing trees side by side, then runs the unit tests,
#                 the bats specs of both builds and a short fuzz at once (tests/run-all);
#                 ends "N passed, N failed, N skipped"
# make check-full the same with every exhaustive sweep whole (make check samples them)
# make check-md   compatibility tests against the real md driver (../shared/mdvm)
# make check-md-full the same with every array of the sampled spec files
# make check-probe stripe-probe's full acceptance matrix (tests/probe/matrix; long)
# make bench      benchmarks (speed targets live here, never in tests)
# make fuzz       libFuzzer targets for FUZZ_SECONDS each
# make demo       create, fill, check, fail, rebuild, bench on image files (no root)

VERSION    := 0.1.0
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
MANDIR     ?= $(PREFIX)/share/man
COMPDIR    ?= $(PREFIX)/share/bash-completion/completions
# nbdkit loads "nbdkit stripe" from its own plugin directory
NBDKIT_PLUGINDIR ?= $(shell nbdkit --dump-config 2>/dev/null | sed -n 's/^plugindir=//p')
# what the runbook scripts source (tools/lib): they look for it in
# ../lib/stripe from where they are installed
SHLIBDIR   := $(PREFIX)/lib/stripe
# systemd's units (stripe-verify@.service and .timer), the tools' directory
# written into them
SYSTEMDDIR ?= $(PREFIX)/lib/systemd/system
UNITFILES  := $(sort $(wildcard systemd/*.service systemd/*.timer))
DESTDIR    ?=
O          ?= .
SAN        ?=
FUZZ_SECONDS ?= 60
V          ?=
Q          := $(if $(V),,@)
# make check's parallelism: builds and test jobs (tests/run-all)
NPROC      := $(shell nproc 2>/dev/null || echo 2)

CC         ?= cc
CFLAGS     ?= -O2 -g
WARN       := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-unused-parameter
# every object and program records the headers it includes (FILE.d beside it),
# so touching a header rebuilds only what includes it
DEPFLAGS   := -MMD -MP
# libblkid and libmount (util-linux) for the safety probes in lib/io/probe.c;
# libext2fs and libcom_err (e2fsprogs) for stripe-check --files in lib/raid/fsmap.c
PKG_CFLAGS := $(shell pkg-config --cflags blkid mount 2>/dev/null || echo -I/usr/include/blkid -I/usr/include/libmount) \
	      $(shell pkg-config --cflags ext2fs com_err 2>/dev/null || echo -I/usr/include/ext2fs -I/usr/include/et)
PKG_LIBS   := $(shell pkg-config --libs blkid mount 2>/dev/null || echo -lblkid -lmount) \
	      $(shell pkg-config --libs ext2fs com_err 2>/dev/null || echo -lext2fs -lcom_err)
# libfuse3 for stripe-map alone (target-specific below): the other tools stay free of it
FUSE_CFLAGS := $(shell pkg-config --cflags fuse3 2>/dev/null || echo -I/usr/include/fuse3)
FUSE_LIBS  := $(shell pkg-config --libs fuse3 2>/dev/null || echo -lfuse3)
CPPFLAGS   += -Ilib -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -DSTRIPE_VERSION='"$(VERSION)"' $(PKG_CFLAGS)
LDLIBS     += $(PKG_LIBS) -lpthread
ifeq ($(SAN),1)
CFLAGS     += -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
# UBSan's runtime linked in: as a shared library its 6 MB of untouched
# globals are scanned page by page by LeakSanitizer at every exit (some
# 35 ms a process, and the sanitized specs start thousands)
LDFLAGS    += -fsanitize=address,undefined -static-libubsan
endif
# SAN=fuzz: the library built once by clang with libFuzzer's coverage hooks
# (fuzzer-no-link), which each fuzzer then links with libFuzzer's main
ifeq ($(SAN),fuzz)
CC         := clang
CFLAGS     := -g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
LDFLAGS    += -fsanitize=fuzzer,address,undefined
endif

LIB_SRC    := $(sort $(wildcard lib/*/*.c))
BIN_SRC    := $(sort $(wildcard bin/stripe-*.c))
UNIT_SRC   := $(sort $(wildcard tests/unit/test_*.c))
TTOOL_SRC  := $(sort $(wildcard tests/tools/*.c))
BENCH_SRC  := $(sort $(wildcard tests/bench/bench_*.c))
FUZZ_SRC   := $(sort $(wildcard tests/fuzz/fuzz_*.c))

LIB_OBJ    := $(LIB_SRC:%.c=$(O)/%.o)
LIB        := $(O)/lib/libstripe.a
# one library for the tools and the shared object (the plugin), so it is
# built position-independent, once: -fno-semantic-interposition keeps the
# inlining and direct calls that -fPIC alone would give up
LIB_CFLAGS := -fPIC -fno-semantic-interposition
PLUGIN_SRC := $(sort $(wildcard plugin/*.c))
PLUGIN_OBJ := $(PLUGIN_SRC:%.c=$(O)/%.o)
PLUGIN     := $(O)/plugin/nbdkit-stripe-plugin.so
BINS       := $(BIN_SRC:%.c=$(O)/%)
UNITS      := $(UNIT_SRC:%.c=$(O)/%) $(TTOOL_SRC:%.c=$(O)/%)
BENCHES    := $(BENCH_SRC:%.c=$(O)/%)
# helpers the bench scripts run beside the tools (not benchmarks themselves)
BENCH_AIDS := $(O)/tests/bench/fuse_ceiling $(O)/tests/bench/pread_loop
FUZZERS    := $(FUZZ_SRC:%.c=$(O)/%)
# stripe-deps and stripe-demo work from a source tree and are not installed
TOOLS      := $(filter-out tools/stripe-deps tools/stripe-demo,$(sort $(wildcard tools/stripe-*)))
MANPAGES   := $(sort $(wildcard man/*.[1-8]))

.PHONY: FORCE all deps check check-full check-md check-md-full check-probe check-build bench fuzz fuzzers demo install \
	uninstall clean units build-plain build-san build-fuzz
all: $(LIB) $(BINS) $(PLUGIN)

# the library's objects are made again when the flags that made them change
# (a tree built before they were position-independent cannot link the plugin)
FLAGS_STAMP := $(O)/lib/.flags
FLAGS_NOW  := $(CC) $(CPPFLAGS) $(CFLAGS) $(LIB_CFLAGS)
$(FLAGS_STAMP): FORCE
	@mkdir -p $(@D)
	@echo '$(FLAGS_NOW)' | cmp -s - $@ || echo '$(FLAGS_NOW)' > $@
FORCE:

$(O)/lib/%.o: lib/%.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	@$(if $(V),:,echo '  CC      $@')
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(LIB_CFLAGS) $(WARN) $(DEPFLAGS) -c -o $@ $<

$(LIB): $(LIB_OBJ)
	@mkdir -p $(@D)
	@$(if $(V),:,echo '  AR      $@')
	$(Q)rm -f $@ && ar rcs $@ $^

# a shared object: the sanitizers' runtimes stay shared too (nbdkit is
# started with libasan preloaded in the sanitized specs)
$(O)/plugin/%.o: plugin/%.c
	@mkdir -p $(@D)
	@$(if $(V),:,echo '  CC      $@')
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC $(WARN) $(DEPFLAGS) -c -o $@ $<

$(PLUGIN): $(PLUGIN_OBJ) $(LIB)
	@mkdir -p $(@D)
	@$(if $(V),:,echo '  LINK    $@')
	$(Q)$(CC) -shared $(filter-out -static-libubsan,$(LDFLAGS)) -o $@ $(PLUGIN_OBJ) $(LIB) $(LDLIBS)

$(O)/bin/%: bin/%.c $(LIB)
	@mkdir -p $(@D)
	@$(if $(V),:,echo '  LINK    $@')
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(DEPFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

$(O)/tests/unit/%: tests/unit/%.c $(LIB)
	@mkdir -p $(@D)
	@$(if $(V),:,echo '  LINK    $@')
	$(Q)$(CC) $(CPPFLAGS) -Itests/unit $(CFLAGS) $(WARN) $(DEPFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

$(O)/tests/tools/%: tests/tools/%.c $(LIB)
	@mkdir -p $(@D)
	@$(if $(V),:,echo '  LINK    $@')
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(DEPFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

$(O)/tests/bench/%: tests/bench/%.c $(LIB)
	@mkdir -p $(@D)
	@$(if $(V),:,echo '  LINK    $@')
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -O3 $(WARN) $(DEPFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS) -lisal

# the fuzzers share the member sets they start from and the edits on them
FUZZ_AID   := $(O)/tests/fuzz/memberset.o
$(FUZZ_AID): tests/fuzz/memberset.c
	@mkdir -p $(@D)
	@$(if $(V),:,echo '  CC      $@')
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(DEPFLAGS) -c -o $@ $<

$(O)/tests/fuzz/%: tests/fuzz/%.c $(FUZZ_AID) $(LIB)
	@mkdir -p $(@D)
	@$(if $(V),:,echo '  FUZZ    $@')
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(DEPFLAGS) $(LDFLAGS) -o $@ $< $(FUZZ_AID) $(LIB) $(LDLIBS)

$(O)/bin/stripe-map: private CPPFLAGS += $(FUSE_CFLAGS)
$(O)/bin/stripe-map: private LDLIBS += $(FUSE_LIBS)

$(O)/tests/bench/fuse_ceiling: tests/bench/fuse_ceiling.c
	@mkdir -p $(@D)
	@$(if $(V),:,echo '  LINK    $@')
	$(Q)$(CC) $(CPPFLAGS) -Ibin $(FUSE_CFLAGS) $(CFLAGS) $(WARN) $(DEPFLAGS) $(LDFLAGS) -o $@ $< $(FUSE_LIBS)

units: $(UNITS)
fuzzers: $(FUZZERS)

deps:
	@tools/stripe-deps

# The three trees make check tests, built side by side under one job server
build-plain:
	@$(MAKE) --no-print-directory all units
build-san:
	@$(MAKE) --no-print-directory O=build/san SAN=1 all units
build-fuzz:
	@if command -v clang >/dev/null; then $(MAKE) --no-print-directory O=build/fuzz SAN=fuzz fuzzers; fi
check-build:
	@$(MAKE) --no-print-directory -j$(NPROC) build-plain build-san build-fuzz

# The test run: every job of both builds and the fuzzers at once (tests/run-all)
check: deps
	@$(MAKE) --no-print-directory check-build
	@tests/run-all "$(CURDIR)"

check-full: deps
	@$(MAKE) --no-print-directory check-build
	@STRIPE_FULL=1 tests/run-all "$(CURDIR)"

check-md: deps
	@$(MAKE) --no-print-directory -j$(NPROC) all units
	@tests/run-md "$(CURDIR)"

check-md-full: deps
	@$(MAKE) --no-print-directory -j$(NPROC) all units
	@STRIPE_FULL=1 tests/run-md "$(CURDIR)"

check-probe: deps
	@$(MAKE) --no-print-directory -j$(NPROC) all
	@tests/probe/matrix

bench: deps
	@tools/stripe-deps bench
	@$(MAKE) --no-print-directory all $(BENCHES) $(BENCH_AIDS)
	@tests/bench/run "$(CURDIR)"

fuzz:
	@$(MAKE) --no-print-directory O=build/fuzz SAN=fuzz fuzzers
	@tests/fuzz/run "$(CURDIR)" $(FUZZ_SECONDS)

demo: deps all
	@tools/stripe-demo

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man7 $(DESTDIR)$(COMPDIR)
	install -m 755 $(BINS) $(DESTDIR)$(BINDIR)/
	for t in $(TOOLS); do install -m 755 $$t $(DESTDIR)$(BINDIR)/; done
	install -d $(DESTDIR)$(SHLIBDIR)
	install -m 644 tools/lib/*.bash $(DESTDIR)$(SHLIBDIR)/
	install -d $(DESTDIR)$(SYSTEMDDIR)
	for u in $(UNITFILES); do sed 's|@BINDIR@|$(BINDIR)|g' $$u > $(DESTDIR)$(SYSTEMDDIR)/$${u##*/} && \
		chmod 644 $(DESTDIR)$(SYSTEMDDIR)/$${u##*/} || exit 1; done
	for m in $(MANPAGES); do s=$${m##*.}; install -d $(DESTDIR)$(MANDIR)/man$$s; \
		install -m 644 $$m $(DESTDIR)$(MANDIR)/man$$s/; done
	install -m 644 completion/stripe $(DESTDIR)$(COMPDIR)/stripe
	for b in $(notdir $(BINS) $(TOOLS)); do ln -sf stripe $(DESTDIR)$(COMPDIR)/$$b; done
	install -d $(DESTDIR)$(NBDKIT_PLUGINDIR)
	install -m 755 $(PLUGIN) $(DESTDIR)$(NBDKIT_PLUGINDIR)/

uninstall:
	for b in $(notdir $(BINS) $(TOOLS)); do rm -f $(DESTDIR)$(BINDIR)/$$b $(DESTDIR)$(COMPDIR)/$$b; done
	for m in $(MANPAGES); do s=$${m##*.}; rm -f $(DESTDIR)$(MANDIR)/man$$s/$$(basename $$m); done
	rm -f $(DESTDIR)$(COMPDIR)/stripe
	for f in tools/lib/*.bash; do rm -f $(DESTDIR)$(SHLIBDIR)/$${f##*/}; done
	for u in $(UNITFILES); do rm -f $(DESTDIR)$(SYSTEMDDIR)/$${u##*/}; done
	rm -f $(DESTDIR)$(NBDKIT_PLUGINDIR)/$(notdir $(PLUGIN))
	-rmdir $(DESTDIR)$(SHLIBDIR)

# everything the builds make: build/ holds the sanitized, fuzzing and test
# trees; the plain tree sits beside the sources
BUILT      := $(LIB_OBJ) $(LIB) $(FLAGS_STAMP) $(PLUGIN_OBJ) $(PLUGIN) $(BINS) $(UNITS) $(BENCHES) $(BENCH_AIDS)
DEPFILES   := $(LIB_OBJ:%.o=%.d) $(PLUGIN_OBJ:%.o=%.d) $(BINS:%=%.d) $(UNITS:%=%.d) $(BENCHES:%=%.d) $(BENCH_AIDS:%=%.d)
clean:
	rm -rf build
	rm -f $(BUILT) $(DEPFILES)

-include $(DEPFILES) $(FUZZERS:%=%.d) $(FUZZ_AID:.o=.d)
