# SPDX-License-Identifier: GPL-2.0
#
# trace-cmd-alloc-tag: kernel allocation lifetimes from alloc_tag trace events.
#
#   make [O=dir] [V=1]        build the command, the plugin and the tests (default O=build)
#   make run                  build, then run the main job on the bundled sample trace
#   make check                run the test suite, then again built with ASan+UBSan, then
#                             the two-thread pipeline built with ThreadSanitizer
#   make check-quick          the unit tests and the tiers on generated files: no root,
#                             no tracefs, no browser, under a minute (for contributors)
#   make check-vm             the VM tier: a patched kernel under QEMU (tests/vm/)
#   make fuzz [FUZZ_TIME=60]  build the libFuzzer targets (clang, ASan+UBSan) in build-fuzz/
#                             and run each for FUZZ_TIME seconds (tests/fuzz/; make check
#                             only replays their corpus)
#   make bench                benchmarks (bench/)
#   make bench-html           the HTML report of 2 and 20 M events, drawn in Chromium
#   make demo                 as root: list/enable/record/report on the test doubles
#   make readme               rewrite the README's examples from fresh runs
#   make install [PREFIX=/usr/local] [DESTDIR=] [plugin_dir=]   the command, man pages,
#                             bash completion, the plugin where libtraceevent looks
#   make uninstall            remove them, and the directories install made
#   make deb                  a Debian package (dpkg-buildpackage), in build/deb/
#   make check-package        build the package, lintian, install it, try it, remove it
#   make deps                 install the Debian packages the build and tests need
#   make doc | clean

VERSION		:= 0.1.0

PREFIX		?= /usr/local
prefix		?= $(PREFIX)
bindir		?= $(prefix)/bin
datadir		?= $(prefix)/share
mandir		?= $(datadir)/man
DESTDIR		?=

# The plugin goes where libtraceevent looks for plugins, whatever the prefix: its
# compiled-in directory, libdir/traceevent/plugins of its pkg-config (on Debian
# /usr/lib/<triplet>/traceevent/plugins), or for PREFIX=~/.local the per-user one
# it also searches. Another plugin_dir needs TRACEEVENT_PLUGIN_DIR (install says so).
SYS_PLUGIN_DIR	:= $(shell pkg-config --variable=libdir libtraceevent 2>/dev/null)
SYS_PLUGIN_DIR	:= $(if $(SYS_PLUGIN_DIR),$(SYS_PLUGIN_DIR)/traceevent/plugins)
USER_PLUGIN_DIR	:= $(HOME)/.local/lib/traceevent/plugins
ifeq ($(prefix),$(HOME)/.local)
plugin_dir	?= $(USER_PLUGIN_DIR)
endif
plugin_dir	?= $(or $(SYS_PLUGIN_DIR),$(prefix)/lib/traceevent/plugins)
# bash-completion loads completions from its completionsdir (for a prefix: the
# same path under it, found next to the command)
completionsdir	?= $(or $(shell pkg-config --define-variable=datadir=$(datadir) \
		   --variable=completionsdir bash-completion 2>/dev/null),\
		   $(datadir)/bash-completion/completions)
# the directories make install made, for make uninstall to remove (empty: none kept)
install_manifest ?= $(datadir)/trace-cmd-alloc-tag/installed-dirs

SAN		?=
ifneq ($(SAN),)
O		?= build-asan
# -O1: the sanitizers' usual level; a quarter less compile time than -O2 (make check
# compiles these builds), the tests' runs as fast
CFLAGS		?= -g -O1
SAN_FLAGS	:= -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
endif
# TSAN=1: the programs of the ThreadSanitizer tier (check-tsan), in build-tsan/
TSAN		?=
ifneq ($(TSAN),)
O		?= build-tsan
CFLAGS		?= -g -O1
SAN_FLAGS	:= -fsanitize=thread -fno-omit-frame-pointer
endif
# FUZZ=1: the libFuzzer targets of tests/fuzz/ and the library under them, built by
# clang with ASan+UBSan and coverage for libFuzzer, in build-fuzz/
FUZZ		?=
ifneq ($(FUZZ),)
O		?= build-fuzz
CC		:= clang
SAN_FLAGS	:= -fsanitize=address,undefined,fuzzer-no-link -fno-omit-frame-pointer \
		   -fno-sanitize-recover=undefined
# clang's reading of { NULL } (gcc's takes it for a zero initialiser)
CLANG_WARN	:= -Wno-missing-field-initializers
endif
O		?= build

CC		?= gcc
PKG_CONFIG	?= pkg-config
PKGS		:= libtracecmd libtracefs libtraceevent glib-2.0 json-glib-1.0 libprotobuf-c zlib libzstd \
		   fuse3 libdw

ifeq ($(V),1)
Q		:=
quiet		= @true
else
Q		:= @
quiet		= @printf '  %-8s %s\n' $(1) $(2)
endif

PKG_CFLAGS	= $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS	= $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)

WARN		:= -Wall -Wextra -Werror -Wno-unused-parameter -Wshadow -Wformat=2 \
		   -Wno-format-nonliteral -Wstrict-prototypes -Wmissing-prototypes
CFLAGS		?= -g -O2
override CFLAGS += -std=gnu11 -D_GNU_SOURCE -DATAG_VERSION='"$(VERSION)"' $(WARN) \
		   -Iinclude -I$(O)/gen $(PKG_CFLAGS) $(SAN_FLAGS) $(CLANG_WARN) \
		   $(EXTRA_CFLAGS) $(CPPFLAGS)
LDFLAGS		?=
override LDFLAGS += $(SAN_FLAGS)
LIBS		= $(PKG_LIBS) -lm -lpthread

# lib/ by concern: util (shared helpers), read (trace.dat), stitch (the stitcher and its
# aggregates), queue (between the reading and stitching threads), report (the engine that
# runs files into a report, and diffs), render, kernel (allocinfo, recording), live (top);
# bufstat is an archive of its own. tests/t-layers.sh checks the order.
LIB_DIRS	:= util read stitch queue report render kernel live
LIB_SRCS	:= $(sort $(foreach d,$(LIB_DIRS),$(wildcard lib/$(d)/*.c)))
BUFSTAT_SRCS	:= $(sort $(wildcard lib/bufstat/*.c))
UTIL_SRCS	:= $(sort $(wildcard utils/*.c))
UTEST_SRCS	:= $(sort $(wildcard tests/*-utest.c)) tests/atag-utest.c
ifneq ($(TSAN),)
# under ThreadSanitizer, the suites of what runs on two threads
UTEST_SRCS	:= tests/pipe-utest.c tests/atag-utest.c
endif
FIXTURE_LIB	:= $(sort $(wildcard tests/fixture/tracedat-*.c))
TESTPROG_SRCS	:= $(sort $(wildcard tests/progs/*.c))
PRELOAD_SRCS	:= $(sort $(wildcard tests/preload/*.c))
BENCH_SRCS	:= $(sort $(wildcard bench/*.c))
FUZZ_SRCS	:= $(filter-out tests/fuzz/fuzz-seeds.c,$(sort $(wildcard tests/fuzz/fuzz-*.c)))
PROTO_SRCS	:= $(sort $(wildcard lib/render/*.proto))

PROTO_GEN	:= $(patsubst lib/render/%.proto,$(O)/gen/%.pb-c.c,$(PROTO_SRCS))
# report -f html embeds d3 (Debian's node-d3) and its own page, script and style
HTML_D3		?= /usr/share/nodejs/d3/dist/d3.min.js
HTML_ASSETS	:= page=lib/render/html/page.html css=lib/render/html/page.css \
		   js=lib/render/html/page.js
LIB_OBJS	:= $(patsubst %.c,$(O)/%.o,$(LIB_SRCS)) $(PROTO_GEN:.c=.o) $(O)/gen/html-assets.o
BUFSTAT_OBJS	:= $(patsubst %.c,$(O)/%.o,$(BUFSTAT_SRCS))
UTIL_OBJS	:= $(patsubst %.c,$(O)/%.o,$(UTIL_SRCS))
UTEST_OBJS	:= $(patsubst %.c,$(O)/%.o,$(UTEST_SRCS))
FIXTURE_OBJS	:= $(patsubst %.c,$(O)/%.o,$(FIXTURE_LIB)) $(O)/gen/fixture-formats.o
FIXTURE_FORMATS	:= $(shell find tests/fixture/formats -type f)

LIBATAG		:= $(O)/lib/libatag.a
LIBBUFSTAT	:= $(O)/lib/libatag-bufstat.a
CMD		:= $(O)/trace-cmd-alloc-tag
PLUGIN		:= $(O)/plugins/plugin_alloc_tag.so
UTEST		:= $(O)/tests/atag-utest
MKFIXTURE	:= $(O)/tests/atag-mkfixture
TESTPROGS	:= $(patsubst tests/progs/%.c,$(O)/tests/progs/%,$(TESTPROG_SRCS))
PRELOADS	:= $(patsubst tests/preload/%.c,$(O)/tests/preload/%.so,$(PRELOAD_SRCS))
BENCHPROGS	:= $(patsubst bench/%.c,$(O)/bench/%,$(BENCH_SRCS))
FUZZPROGS	:= $(patsubst tests/fuzz/%.c,$(O)/tests/fuzz/%,$(FUZZ_SRCS))
FUZZ_TIME	?= 60

ALL_TARGETS	:= $(CMD) $(PLUGIN) $(UTEST) $(MKFIXTURE) $(TESTPROGS) $(PRELOADS) $(BENCHPROGS)
# the ASan+UBSan build also links each fuzz target with a main of its own that
# replays the corpus (tests/fuzz/replay.c): make check's fuzz tier, without clang
REPLAYPROGS	:= $(patsubst tests/fuzz/fuzz-%.c,$(O)/tests/fuzz/replay-%,$(FUZZ_SRCS))
ifneq ($(SAN),)
ALL_TARGETS	+= $(REPLAYPROGS) $(O)/tests/fuzz/fuzz-seeds
endif

.PHONY: all deps run check check-quick check-vm check-one check-tsan bench install uninstall doc clean help
.PHONY: programs deb check-package sanitizer-builds
.PHONY: demo readme bench-html
.PHONY: fuzz fuzz-build
.DEFAULT_GOAL := all

# The builds use every CPU unless make was given its own -j.
NPROC		:= $(shell nproc 2>/dev/null || echo 1)
PAR		= $(if $(filter -j% j%,$(MAKEFLAGS))$(findstring jobserver,$(MAKEFLAGS)),,-j$(NPROC))

all: deps
	$(Q)$(MAKE) --no-print-directory $(PAR) build-all

.PHONY: build-all
build-all: $(ALL_TARGETS)

# what is installed: the command and the plugin
programs: $(CMD) $(PLUGIN)

deps:
	$(Q)scripts/deps.sh

$(O)/gen/%.pb-c.c $(O)/gen/%.pb-c.h: lib/render/%.proto
	$(call quiet,PROTOC,$<)
	$(Q)mkdir -p $(O)/gen
	$(Q)protoc-c --proto_path=lib/render --c_out=$(O)/gen $<

# Keep the generated code: as an intermediate file make would delete it, and then
# regenerate it (and so rebuild every object) whenever any one source changes.
# keep intermediate files (generated code, objects of programs): no needless rebuilds
.SECONDARY:

$(O)/gen/fixture-formats.c: tests/fixture/embed-formats.sh $(FIXTURE_FORMATS)
	$(call quiet,GEN,$@)
	$(Q)mkdir -p $(O)/gen
	$(Q)tests/fixture/embed-formats.sh tests/fixture/formats > $@

$(HTML_D3):
	@echo "$@ is missing: report -f html embeds d3 from Debian's node-d3" \
		"(apt-get install node-d3, or scripts/deps.sh; HTML_D3=PATH for another copy)" >&2
	@exit 1

html_name	= $(firstword $(subst =, ,$(1)))
html_file	= $(lastword $(subst =, ,$(1)))
$(O)/gen/html-assets.S: lib/render/html/embed.sh $(HTML_D3) \
		$(foreach a,$(HTML_ASSETS),$(call html_file,$(a)))
	$(call quiet,GEN,$@)
	$(Q)mkdir -p $(O)/gen
	$(Q)lib/render/html/embed.sh d3=$(abspath $(HTML_D3)) \
		$(foreach a,$(HTML_ASSETS),$(call html_name,$(a))=$(abspath $(call html_file,$(a)))) \
		> $@.tmp
	$(Q)mv $@.tmp $@

$(O)/gen/html-assets.o: $(O)/gen/html-assets.S
	$(call quiet,AS,$@)
	$(Q)$(CC) -c -o $@ $<

$(O)/gen/%.o: $(O)/gen/%.c
	$(call quiet,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Itests/fixture -Wno-missing-prototypes -c -o $@ $<

$(O)/%.o: %.c $(PROTO_GEN)
	$(call quiet,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

# lib/: a part's internal headers sit beside its files; the parts below it may be
# included (tests/t-layers.sh checks that only those are).
$(O)/lib/%.o: lib/%.c $(PROTO_GEN)
	$(call quiet,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(LIB_DIRS:%=-Ilib/%) -MMD -MP -c -o $@ $<

# The unit tests are white-box: they may include a part's internal headers.
$(O)/tests/%.o: tests/%.c $(PROTO_GEN)
	$(call quiet,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(LIB_DIRS:%=-Ilib/%) -MMD -MP -c -o $@ $<

$(LIBATAG): $(LIB_OBJS)
	$(call quiet,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(LIBBUFSTAT): $(BUFSTAT_OBJS)
	$(call quiet,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(CMD): $(UTIL_OBJS) $(LIBBUFSTAT) $(LIBATAG)
	$(call quiet,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

# Like libtraceevent's plugins: one .c, -fPIC, symbols resolved from the host process.
$(PLUGIN): plugins/plugin_alloc_tag.c
	$(call quiet,PLUGIN,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -fPIC -shared -MMD -MP $(LDFLAGS) -o $@ $<

$(UTEST): $(UTEST_OBJS) $(FIXTURE_OBJS) $(LIBBUFSTAT) $(LIBATAG)
	$(call quiet,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIBS) -lcunit -ldl

$(MKFIXTURE): $(O)/tests/fixture/atag-mkfixture.o $(FIXTURE_OBJS) $(LIBATAG)
	$(call quiet,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

# Libraries the tests preload into stock programs (tests/preload/): no sanitizer, whose
# runtime would have to come first in the program they go into.
$(O)/tests/preload/%.so: tests/preload/%.c
	$(call quiet,PRELOAD,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) -g -O2 -Wall -Wextra -Werror -fPIC -shared -o $@ $< -ldl

$(O)/tests/progs/%: $(O)/tests/progs/%.o $(LIBATAG)
	$(call quiet,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

$(O)/bench/%: $(O)/bench/%.o $(FIXTURE_OBJS) $(LIBATAG)
	$(call quiet,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

# The fuzz targets: libFuzzer's main, the library in-process (FUZZ=1 only)
$(O)/tests/fuzz/%.o: tests/fuzz/%.c $(PROTO_GEN)
	$(call quiet,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -Itests $(LIB_DIRS:%=-Ilib/%) -MMD -MP -c -o $@ $<

$(O)/tests/fuzz/fuzz-seeds: $(O)/tests/fuzz/fuzz-seeds.o $(FIXTURE_OBJS)
	$(call quiet,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

$(O)/tests/fuzz/fuzz-%: $(O)/tests/fuzz/fuzz-%.o $(FIXTURE_OBJS) $(LIBBUFSTAT) $(LIBATAG)
	$(call quiet,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -fsanitize=fuzzer -o $@ $^ $(LIBS)

$(O)/tests/fuzz/replay-%: $(O)/tests/fuzz/fuzz-%.o $(O)/tests/fuzz/replay.o $(FIXTURE_OBJS) \
			  $(LIBBUFSTAT) $(LIBATAG)
	$(call quiet,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

fuzz-build: $(FUZZPROGS) $(O)/tests/fuzz/fuzz-seeds $(MKFIXTURE)

# Build the fuzz targets in $(O)-fuzz/ and run each for FUZZ_TIME seconds; the last
# line sums them ("fuzz: N passed, N failed": .ci/run counts it).
fuzz:
	$(Q)scripts/deps.sh
	$(Q)$(MAKE) --no-print-directory FUZZ=1 O=$(O)-fuzz fuzz-build
	$(Q)rm -f $(O)-fuzz/check-results; \
	tests/fuzz/run-fuzz.sh $(O)-fuzz $(FUZZ_TIME); rc=$$?; \
	tests/summarize.sh $(O)-fuzz/check-results | sed 's/^check:/fuzz:/'; exit $$rc

# ------------------------------------------------------------------ running
SAMPLE		:= tests/data/sample.dat

run: all
	$(Q)scripts/run-sample.sh $(O) $(SAMPLE)

# The whole suite, then the same suite built with ASan+UBSan in build-asan/, then
# the ThreadSanitizer tier in build-tsan/, then the fuzz targets' corpus (seeds and
# regression files) replayed by the ASan+UBSan build (make fuzz fuzzes; .ci/run
# does both). The summary line ends with the wall time of the whole run (builds
# included). The sanitizer builds compile while the normal build's tests run
# (those mostly wait), at the lowest priority: the tests' time goes first, the
# compiler takes what they leave (from a fresh clone, t-record took 107 s beside
# a compile at the same priority, 72 s beside a niced one).
check: all
	$(Q)start=$$(date +%s); \
	rm -f $(O)/check-results $(O)-asan/check-results $(O)-tsan/check-results; \
	rm -f $(O)-asan/fuzz-results; \
	ATAG_AFTER_ALONE="nice -n 19 $(MAKE) --no-print-directory sanitizer-builds > $(O)/sanitizer-builds.log 2>&1" \
		$(MAKE) --no-print-directory check-one || true; \
	cat $(O)/sanitizer-builds.log; \
	$(MAKE) --no-print-directory SAN=1 O=$(O)-asan check-one || true; \
	$(MAKE) --no-print-directory TSAN=1 O=$(O)-tsan check-tsan || true; \
	echo "== fuzz targets: their corpus replayed (ASan+UBSan)"; \
	tests/fuzz/run-fuzz.sh --replay $(O)-asan || true; \
	tests/summarize.sh --since $$start $(O)/check-results $(O)-asan/check-results \
		$(O)-tsan/check-results $(O)-asan/fuzz-results

# the builds make check runs its sanitizer passes on (compiled while the normal
# build's tiers run, once its timing tiers are done)
sanitizer-builds:
	$(Q)$(MAKE) --no-print-directory $(PAR) SAN=1 O=$(O)-asan build-all && \
	$(MAKE) --no-print-directory $(PAR) TSAN=1 O=$(O)-tsan $(O)-tsan/trace-cmd-alloc-tag \
		$(O)-tsan/tests/atag-utest $(O)-tsan/tests/atag-mkfixture

check-one: build-all
	$(Q)tests/run-tests.sh $(O) $(if $(SAN),asan)

# The unit tests and the tiers on generated trace.dat files ("# tier: quick"): no root,
# no tracefs; what a contributor runs between edits. make check runs them too.
check-quick: all
	$(Q)start=$$(date +%s); rm -f $(O)/check-results; \
	tests/run-tests.sh $(O) quick; \
	tests/summarize.sh --since $$start $(O)/check-results

# The two-thread pipeline under ThreadSanitizer: the pipe's unit tests and threaded
# reports (tests/tsan-*.sh); run with TSAN=1.
check-tsan: $(CMD) $(UTEST) $(MKFIXTURE)
	$(Q)tests/run-tests.sh $(O) tsan

check-vm: all
	$(Q)scripts/deps.sh --vm
	$(Q)tests/vm/run-vm-tests.sh $(O)

bench: all
	$(Q)bench/run-bench.sh $(O)

# the HTML report of 2 and 20 million events: memory, and drawing in Chromium
bench-html: all
	$(Q)bench/html-bench.sh $(O)

# The test-double workflow (scripts/demo.sh), and the README's examples rewritten
# from fresh runs (tests/t-readme.sh --update; the demo's too when run as root).
demo: all
	$(Q)scripts/demo.sh $(O)

readme: all
	$(Q)ATAG_BUILD=$(abspath $(O)) tests/t-readme.sh --update

# ------------------------------------------------------------------ docs and install
DOC_TXT		:= $(sort $(wildcard Documentation/*.[1-9].txt))
DOC_MAN		:= $(patsubst Documentation/%.txt,$(O)/Documentation/%,$(DOC_TXT))

doc: $(DOC_MAN)

$(O)/Documentation/%: Documentation/%.txt Documentation/asciidoc.conf
	$(call quiet,ASCIIDOC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)PATH=/usr/bin:$$PATH asciidoc -f Documentation/asciidoc.conf -a atag_version=$(VERSION) -b docbook \
		-d manpage -o $@.xml $<
	$(Q)xmlto --skip-validation --stringparam man.th.title.max.length=40 \
		--stringparam man.output.quietly=1 -o $(dir $@) man $@.xml >$@.log 2>&1 \
		|| { cat $@.log; exit 1; }
	$(Q)rm -f $@.log
	$(Q)rm -f $@.xml

INSTALL_ENV	= DESTDIR="$(DESTDIR)" bindir="$(bindir)" plugin_dir="$(plugin_dir)" \
		  mandir="$(mandir)" completionsdir="$(completionsdir)" \
		  install_manifest="$(install_manifest)"

install: programs doc
	$(Q)$(INSTALL_ENV) CMD=$(CMD) PLUGIN=$(PLUGIN) COMPLETION=completion/trace-cmd-alloc-tag.bash \
		MANPAGES="$(wildcard $(O)/Documentation/*.[1-9])" scripts/install.sh install
	@echo "installed: $(bindir)/trace-cmd-alloc-tag, $(plugin_dir)/plugin_alloc_tag.so,"
	@echo "  man pages in $(mandir), completion in $(completionsdir)"
	$(if $(filter $(plugin_dir),$(SYS_PLUGIN_DIR) $(USER_PLUGIN_DIR)),,\
		@echo "libtraceevent does not look in $(plugin_dir); for trace-cmd report to load it:"; \
		echo "  export TRACEEVENT_PLUGIN_DIR=$(plugin_dir)")

uninstall:
	$(Q)$(INSTALL_ENV) scripts/install.sh uninstall

# ------------------------------------------------------------------ Debian package
# Built by dpkg-buildpackage from a copy of the tracked files in $(O)/deb/; the
# .deb lands there.
deb:
	$(Q)scripts/deps.sh --package
	$(Q)scripts/build-deb.sh $(O)/deb

# Not part of check (it compiles the tree again, and lintian is slow).
check-package: deb
	$(Q)ATAG_SRC=$(CURDIR) ATAG_DEB_DIR=$(CURDIR)/$(O)/deb tests/package/t-package.sh

clean:
	rm -rf $(O) $(O)-asan $(O)-tsan $(O)-fuzz build build-asan build-tsan build-fuzz

help:
	@sed -n '3,22p' Makefile | sed 's/^# \{0,1\}//'

-include $(shell find $(O) -name '*.d' 2>/dev/null)
