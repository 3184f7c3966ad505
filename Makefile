# stripe: userspace toolkit for Linux md RAID arrays.
# make            builds lib/libstripe.a and bin/stripe-*
# make check      installs missing build/test packages (root), runs unit + bats tests,
#                 again under ASan+UBSan, then the fuzzers briefly; ends "N passed, N failed"
# make check-md   compatibility tests against the real md driver (../shared/mdvm)
# make bench      benchmarks (speed targets live here, never in tests)
# make fuzz       libFuzzer targets for FUZZ_SECONDS each
# make demo       create, fill, check, fail, rebuild, bench on image files (no root)

VERSION    := 0.1.0
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
MANDIR     ?= $(PREFIX)/share/man
COMPDIR    ?= $(PREFIX)/share/bash-completion/completions
DESTDIR    ?=
O          ?= .
SAN        ?=
FUZZ_SECONDS ?= 60
V          ?=
Q          := $(if $(V),,@)

CC         ?= cc
CFLAGS     ?= -O2 -g
WARN       := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-unused-parameter
# libblkid and libmount (util-linux) for the safety probes in lib/probe.c;
# libext2fs and libcom_err (e2fsprogs) for stripe-check --files in lib/fsmap.c
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
LDFLAGS    += -fsanitize=address,undefined
endif

LIB_SRC    := $(sort $(wildcard lib/*.c))
BIN_SRC    := $(sort $(wildcard bin/stripe-*.c))
UNIT_SRC   := $(sort $(wildcard tests/unit/test_*.c))
TTOOL_SRC  := $(sort $(wildcard tests/tools/*.c))
BENCH_SRC  := $(sort $(wildcard tests/bench/bench_*.c))
FUZZ_SRC   := $(sort $(wildcard tests/fuzz/fuzz_*.c))

LIB_OBJ    := $(LIB_SRC:%.c=$(O)/%.o)
LIB        := $(O)/lib/libstripe.a
BINS       := $(BIN_SRC:%.c=$(O)/%)
UNITS      := $(UNIT_SRC:%.c=$(O)/%) $(TTOOL_SRC:%.c=$(O)/%)
BENCHES    := $(BENCH_SRC:%.c=$(O)/%)
# helpers the bench scripts run beside the tools (not benchmarks themselves)
BENCH_AIDS := $(O)/tests/bench/fuse_ceiling $(O)/tests/bench/pread_loop
FUZZERS    := $(FUZZ_SRC:%.c=build/%)
# stripe-deps and stripe-demo work from a source tree and are not installed
TOOLS      := $(filter-out tools/stripe-deps tools/stripe-demo,$(sort $(wildcard tools/stripe-*)))
MANPAGES   := $(sort $(wildcard man/*.[1-8]))

.PHONY: all deps check check-md bench fuzz demo install uninstall clean units
all: $(LIB) $(BINS)

$(O)/lib/%.o: lib/%.c $(wildcard lib/*.h)
	@mkdir -p $(@D)
	@$(if $(V),:,echo '  CC      $@')
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -c -o $@ $<

$(LIB): $(LIB_OBJ)
	@mkdir -p $(@D)
	@$(if $(V),:,echo '  AR      $@')
	$(Q)rm -f $@ && ar rcs $@ $^

$(O)/bin/%: bin/%.c $(LIB)
	@mkdir -p $(@D)
	@$(if $(V),:,echo '  LINK    $@')
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

$(O)/tests/unit/%: tests/unit/%.c tests/unit/tap.h $(LIB)
	@mkdir -p $(@D)
	@$(if $(V),:,echo '  LINK    $@')
	$(Q)$(CC) $(CPPFLAGS) -Itests/unit $(CFLAGS) $(WARN) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

$(O)/tests/tools/%: tests/tools/%.c $(LIB)
	@mkdir -p $(@D)
	@$(if $(V),:,echo '  LINK    $@')
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

$(O)/tests/bench/%: tests/bench/%.c $(LIB)
	@mkdir -p $(@D)
	@$(if $(V),:,echo '  LINK    $@')
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -O3 $(WARN) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS) -lisal

$(O)/bin/stripe-map: bin/map_fuse.h
$(O)/bin/stripe-map: private CPPFLAGS += $(FUSE_CFLAGS)
$(O)/bin/stripe-map: private LDLIBS += $(FUSE_LIBS)

$(O)/tests/bench/fuse_ceiling: tests/bench/fuse_ceiling.c bin/map_fuse.h
	@mkdir -p $(@D)
	@$(if $(V),:,echo '  LINK    $@')
	$(Q)$(CC) $(CPPFLAGS) -Ibin $(FUSE_CFLAGS) $(CFLAGS) $(WARN) $(LDFLAGS) -o $@ $< $(FUSE_LIBS)

units: $(UNITS)

deps:
	@tools/stripe-deps

# The test run: normal build, then the same tests under ASan+UBSan, then fuzzers.
check: deps
	@$(MAKE) --no-print-directory all units
	@$(MAKE) --no-print-directory O=build/san SAN=1 all units
	@tests/run-all "$(CURDIR)"

check-md: all units
	@tests/run-md "$(CURDIR)"

bench: deps
	@$(MAKE) --no-print-directory all $(BENCHES) $(BENCH_AIDS)
	@tests/bench/run "$(CURDIR)"

build/tests/fuzz/%: tests/fuzz/%.c $(LIB_SRC) $(wildcard lib/*.h)
	@mkdir -p $(@D)
	@$(if $(V),:,echo '  FUZZ    $@')
	$(Q)clang $(CPPFLAGS) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		$(WARN) -o $@ $< $(LIB_SRC) $(LDLIBS)

fuzz: $(FUZZERS)
	@tests/fuzz/run "$(CURDIR)" $(FUZZ_SECONDS)

demo: deps all
	@tools/stripe-demo

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man7 $(DESTDIR)$(COMPDIR)
	install -m 755 $(BINS) $(DESTDIR)$(BINDIR)/
	for t in $(TOOLS); do install -m 755 $$t $(DESTDIR)$(BINDIR)/; done
	for m in $(MANPAGES); do s=$${m##*.}; install -d $(DESTDIR)$(MANDIR)/man$$s; \
		install -m 644 $$m $(DESTDIR)$(MANDIR)/man$$s/; done
	install -m 644 completion/stripe $(DESTDIR)$(COMPDIR)/stripe
	for b in $(notdir $(BINS) $(TOOLS)); do ln -sf stripe $(DESTDIR)$(COMPDIR)/$$b; done

uninstall:
	for b in $(notdir $(BINS) $(TOOLS)); do rm -f $(DESTDIR)$(BINDIR)/$$b $(DESTDIR)$(COMPDIR)/$$b; done
	for m in $(MANPAGES); do s=$${m##*.}; rm -f $(DESTDIR)$(MANDIR)/man$$s/$$(basename $$m); done
	rm -f $(DESTDIR)$(COMPDIR)/stripe

clean:
	rm -rf build lib/*.o $(LIB) $(BINS) $(UNITS) $(BENCHES)
