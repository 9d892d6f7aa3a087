# libcrio_pin: build, install, demo, test.
#
#   make demo      build quietly, stage-install, then a tour in numbered sections:
#                  the C and Go examples, the crio-pin tool on sample nodes of
#                  each runtime (make demo-cli: the tool's part alone)
#   make test      every test, stage by stage, each announced and timed
#                  (about 16 minutes from a fresh clone on 2 idle cores): Rust (unit, property,
#                  header drift), the documentation's paths, fold-table
#                  drift, the WebAssembly module's drift, ABI checks, C
#                  tests plain / valgrind / ASan+UBSan / static /
#                  ThreadSanitizer, FFI tests under Miri, fuzz
#                  targets on their corpus (nightly parts say when skipped),
#                  Go package with both backends (vet, race, cgocheck,
#                  conformance, live reload, no silent unpinning) and each
#                  link shape built and run (dynamic, static library,
#                  fully static, no library)
#   make test-cross  the library cross-built for arm64, ppc64le and s390x
#                  (big-endian), its Rust tests and the Go package's cgo
#                  backend, and the Go package without cgo (wasm2go), run
#                  under qemu-user; CI runs it beside make test (too long
#                  to be a stage of it); CROSS_PARTS=nocgo runs only the
#                  latter; installs its tools as root, else prints SKIPPED
#                  and what to install
#   make bench     Rust benchmarks: criterion suite, then every figure beside
#                  its target (docs/BENCHMARKS.md), build/bench/bench.png, the
#                  compile budget of the costliest lists accepted, and the
#                  crio-pin tool's decode and explain times;
#                  BENCH_QUICK=1 or make bench-quick: short criterion runs
#   make bench-go  Go benchmarks: CRI-O's regexp loop and the library, through
#                  cgo and compiled to WebAssembly (wazero, wasm2go), beside
#                  their targets (docs/BENCHMARKS.md, "Go targets")
#   make fuzz      fuzz each target for FUZZ_SECONDS (default 300), growing
#                  build/fuzz-corpus (untracked); make fuzz-cmin folds it
#                  into the committed, minimised fuzz/corpus
#   make install   PREFIX=/usr/local [DESTDIR=] [LIBDIR=$(PREFIX)/lib] [BINDIR=$(PREFIX)/bin]
#                  [MANDIR=$(PREFIX)/share/man] (the crio-pin manual pages, into MANDIR/man1)
#   make uninstall (same variables)
#   make dist      build/dist/crio-pin-VERSION.tar.gz: sources and vendored
#                  crates, builds offline (make test checks it)
#   make rpm / make deb  distribution packages from that tarball, into
#                  build/packages/{rpm,deb}, their contents checked (stages
#                  announced and timed, a line a minute while packages build)
#   make header    regenerate include/crio_pin.h from src/ffi.rs
#   make wasm      rebuild go/criopin/crio_pin.wasm, the module the Go package
#                  runs without cgo, its size in go/README.md, and
#                  go/internal/libcriopin/libcriopin.go, the module built
#                  without SIMD translated to Go by wasm2go
#                  (reproducible: tools/wasm.sh; commit all three)
#   make fold-table  regenerate src/fold_table.rs from the installed Go

PREFIX     ?= /usr/local
LIBDIR     ?= $(PREFIX)/lib
BINDIR     ?= $(PREFIX)/bin
INCLUDEDIR ?= $(PREFIX)/include
DATADIR    ?= $(PREFIX)/share
MANDIR     ?= $(PREFIX)/share/man
# Where each shell looks for completion scripts.
BASH_COMPLETIONS ?= $(DATADIR)/bash-completion/completions
ZSH_COMPLETIONS  ?= $(DATADIR)/zsh/site-functions
FISH_COMPLETIONS ?= $(DATADIR)/fish/vendor_completions.d
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
DESTDIR    ?=

CARGO   ?= cargo
CC      ?= cc
# Installed libraries lose their debug info (keep it: STRIP=true); the
# unstripped ones stay in target/dist.
STRIP   ?= strip
VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
SOMAJOR := 0
# What a static link of a Rust staticlib needs on Linux (rustc
# --print native-static-libs, less -lgcc_s: cc adds the unwinder itself,
# libgcc_s when dynamic, libgcc_eh with -static, which has no libgcc_s.a).
# Checked by the static C test.
NATIVE_STATIC_LIBS := -lutil -lrt -lpthread -lm -ldl -lc

RELEASE := target/dist
STAGE   := $(CURDIR)/build/stage
STAGE_PC := $(STAGE)/lib/pkgconfig
# A sub-Makefile run against the staged install (they find it through
# pkg-config, tools/pkg.mk).
STAGED  := $(MAKE) --no-print-directory PKG_CONFIG_PATH=$(STAGE_PC) -C

export CARGO_TERM_COLOR ?= never

.PHONY: all build install uninstall stage demo demo-cli demo-cli-run test check-tools test-tools test-docs test-rust test-cli \
        test-fold-table test-wasm test-abi test-c test-tsan test-miri test-fuzz fuzz fuzz-cmin test-go bench-go \
        test-offline test-offline-c dist test-dist test-dist-full rpm deb package-rpm package-deb \
        bench bench-quick \
        test-cross pc header fold-table wasm clean

all: build

# The shared object is linked here from the (LTO-built) archive rather than
# by cargo, because rustc's own version script leaves no room for ours:
# every export carries the version node it was added in, from the one
# list packaging/debian/libcrio-pin0.symbols (tools/version-script.sh).
# LDFLAGS (a distribution's hardening flags) apply to it.
build:
	@sh tools/check-tools.sh build
	$(CARGO) rustc --profile dist --lib --crate-type staticlib
	$(CARGO) build --release -p crio-pin-cli
	@mkdir -p build
	@# crio-pin.1 and crio-pin-SUBCOMMAND.1, made from the tool's own
	@# option definitions (a hidden subcommand); installed uncompressed,
	@# packaging compresses them.
	rm -rf build/man build/completions
	target/release/crio-pin generate-man build/man
	@# Each shell's completion script, from the same definitions.
	mkdir -p build/completions
	target/release/crio-pin completions bash > build/completions/crio-pin
	target/release/crio-pin completions zsh > build/completions/_crio-pin
	target/release/crio-pin completions fish > build/completions/crio-pin.fish
	sh tools/version-script.sh packaging/debian/libcrio-pin0.symbols > build/crio_pin.map
	$(CC) -shared -o $(RELEASE)/libcrio_pin.so -Wl,-soname,libcrio_pin.so.$(SOMAJOR) \
	    -Wl,--version-script=build/crio_pin.map -Wl,--no-undefined-version -Wl,--gc-sections \
	    $(LDFLAGS) -Wl,--whole-archive $(RELEASE)/libcrio_pin.a -Wl,--no-whole-archive \
	    $(NATIVE_STATIC_LIBS)

# Installs what `make` built, and builds nothing: `sudo make install` after
# `make` must not run cargo as root in the tree.
BUILT := target/release/crio-pin $(RELEASE)/libcrio_pin.so $(RELEASE)/libcrio_pin.a build/man/crio-pin.1 \
         build/completions/crio-pin
install:
	@sh tools/check-tools.sh install
	@for f in $(BUILT); do [ -e "$$f" ] || { \
	    echo "make install: $$f is missing: run 'make' first (as yourself, not root)" >&2; exit 1; }; done
	@command -v $(firstword $(STRIP)) >/dev/null || { \
	    echo "make install: $(STRIP) is missing (apt-get install binutils), or install unstripped: STRIP=true" >&2; exit 1; }
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR) \
	    $(DESTDIR)$(DATADIR)/crio_pin $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 target/release/crio-pin $(DESTDIR)$(BINDIR)/crio-pin
	install -m 644 build/man/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -D -m 644 build/completions/crio-pin $(DESTDIR)$(BASH_COMPLETIONS)/crio-pin
	install -D -m 644 build/completions/_crio-pin $(DESTDIR)$(ZSH_COMPLETIONS)/_crio-pin
	install -D -m 644 build/completions/crio-pin.fish $(DESTDIR)$(FISH_COMPLETIONS)/crio-pin.fish
	install -m 755 $(RELEASE)/libcrio_pin.so $(DESTDIR)$(LIBDIR)/libcrio_pin.so.$(VERSION)
	ln -sf libcrio_pin.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libcrio_pin.so.$(SOMAJOR)
	ln -sf libcrio_pin.so.$(SOMAJOR) $(DESTDIR)$(LIBDIR)/libcrio_pin.so
	install -m 644 $(RELEASE)/libcrio_pin.a $(DESTDIR)$(LIBDIR)/libcrio_pin.a
	$(STRIP) --strip-debug $(DESTDIR)$(LIBDIR)/libcrio_pin.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libcrio_pin.a \
	    $(DESTDIR)$(BINDIR)/crio-pin
	install -m 644 include/crio_pin.h $(DESTDIR)$(INCLUDEDIR)/crio_pin.h
	install -m 644 crio_pin.tsan.supp $(DESTDIR)$(DATADIR)/crio_pin/tsan.supp
	$(call write_pc,$(DESTDIR)$(PKGCONFIGDIR)/crio_pin.pc)
	$(call write_alias_pc,$(DESTDIR)$(PKGCONFIGDIR)/crio-pin.pc)

# $(call write_pc,FILE): crio_pin.pc for PREFIX, LIBDIR, INCLUDEDIR; `make pc
# PC=FILE` writes one for a build that is not installed (tools/cross.sh:
# each architecture's libraries).
pc_values = -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' \
	    -e 's|@DATADIR@|$(DATADIR)|' \
	    -e 's|@NATIVE_STATIC_LIBS@|$(NATIVE_STATIC_LIBS)|'
write_pc = sed $(pc_values) crio_pin.pc.in > $(1) && chmod 644 $(1)
# $(call write_alias_pc,FILE): crio-pin.pc, the alias: every variable of
# crio_pin.pc.in (a Requires: does not carry them over: pkg-config
# --variable=libdir crio-pin would be empty), then crio-pin.pc.in's fields.
write_alias_pc = { sed -n $(pc_values) -e '/^[a-z_]*=/p' crio_pin.pc.in; \
	    sed $(pc_values) crio-pin.pc.in; } > $(1) && chmod 644 $(1)
pc:
	@[ -n "$(PC)" ] || { echo "make pc: say where: make pc PC=FILE [PREFIX= LIBDIR= INCLUDEDIR=]" >&2; exit 1; }
	@$(call write_pc,$(PC))

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libcrio_pin.so.$(VERSION) \
	      $(DESTDIR)$(LIBDIR)/libcrio_pin.so.$(SOMAJOR) \
	      $(DESTDIR)$(LIBDIR)/libcrio_pin.so \
	      $(DESTDIR)$(LIBDIR)/libcrio_pin.a \
	      $(DESTDIR)$(INCLUDEDIR)/crio_pin.h \
	      $(DESTDIR)$(DATADIR)/crio_pin/tsan.supp \
	      $(DESTDIR)$(PKGCONFIGDIR)/crio_pin.pc $(DESTDIR)$(PKGCONFIGDIR)/crio-pin.pc \
	      $(DESTDIR)$(BINDIR)/crio-pin \
	      $(DESTDIR)$(MANDIR)/man1/crio-pin.1 $(DESTDIR)$(MANDIR)/man1/crio-pin-*.1 \
	      $(DESTDIR)$(BASH_COMPLETIONS)/crio-pin $(DESTDIR)$(ZSH_COMPLETIONS)/_crio-pin \
	      $(DESTDIR)$(FISH_COMPLETIONS)/crio-pin.fish
	rmdir $(DESTDIR)$(DATADIR)/crio_pin 2>/dev/null || true

# A private install for the demo and the tests (its file list is not
# echoed: a person reading the demo's output wants the demo).
stage: build
	@$(MAKE) -s --no-print-directory install PREFIX=$(STAGE) DESTDIR=
	@echo "staged: $(STAGE)"

# The build first, quietly (its output in build/demo-build.log, shown when
# it fails), then the tour: numbered sections, each saying why it is there,
# the commands shown as a reader would type them, then what to try next.
demo:
	@sh tools/check-tools.sh demo
	@mkdir -p build
	@echo "make demo: building the library, the crio-pin tool and the C and Go examples"
	@echo "(about 3 CPU minutes the first time: 4 minutes on 2 idle cores, 15 or more on a busy machine;"
	@echo " a line a minute while it builds; output in build/demo-build.log)"
	@start=$$(date +%s); \
	sh tools/logged.sh build/demo-build.log sh -c '$(MAKE) --no-print-directory stage && \
	  $(STAGED) examples/c crio-pin-check && $(STAGED) examples/go build' || { \
	    tail -n 40 build/demo-build.log; echo "make demo: the build failed (log: build/demo-build.log)" >&2; exit 1; }; \
	echo "built in $$(( $$(date +%s) - start )) s; installed into build/stage"
	@echo
	@$(STAGED) examples/c run SECTION=1
	@echo
	@$(STAGED) go demo SECTION=3
	@echo
	@$(MAKE) --no-print-directory demo-cli-run SECTION=6
	@echo
	@echo "== What you saw"
	@echo "   1-2  libcrio_pin from C: CRI-O's answers in one pass, the opt-in modes, refused lists"
	@echo "   3-5  from Go: a drop-in for CRI-O with SIGHUP reloads, both backends agreeing,"
	@echo "        listings never torn by a reload"
	@echo "   6-7  crio-pin on a CRI-O node: a list silently replaced, three traps, a drop-in's"
	@echo "        effect before it ships"
	@echo "   8-9  one list under three runtimes' rules; containerd's and cri-dockerd's traps,"
	@echo "        a list carried from one runtime to another, pins by label (k3s's, containerd's)"
	@echo "   10   crio-pin check: the node against a saved listing of its CRI-O (not reloaded), summary first"
	@echo "   11   the kubelet's credential check: a pinned image it would pull again, and the secret"
	@echo "        its pull record asks of a pod (lint and check take --kubelet-config too)"
	@echo "   12   after a reload: check --wait, and the check as OpenMetrics for the cluster"
	@echo "== Next"
	@echo "   on a node:  sudo crio-pin check (the list, lint and each image against the running"
	@echo "               runtime, read from its socket: one exit status); or crio-pin config;"
	@echo "               crio-pin lint; crictl images -o json | crio-pin explain --images - --check"
	@echo "   read:       README.md (where to start), docs/tool.md and man crio-pin, docs/runtimes.md,"
	@echo "               docs/c.md, go/README.md, docs/cri-o.md"
	@echo "   check:      make test (the whole suite, about 16 minutes on 2 idle cores)"

# crio-pin on a sample node: an OpenShift-style drop-in overridden by a
# local one; then one list under each runtime's rules; then a containerd and a
# cri-dockerd node. Each command is shown as typed, with the staged tool
# on PATH; the CRI-O node's files come from CRI-O's own variables.
demo-cli: stage
	@$(MAKE) --no-print-directory demo-cli-run

SECTION ?= 6
CRIO_NODE := CONTAINER_CONFIG=examples/crio/crio.conf CONTAINER_CONFIG_DIR=examples/crio/crio.conf.d
# $(call tool,ARGS[,ENV]): show `crio-pin ARGS`, run it. tool_1 also takes
# exit status 1 (findings: a diff or translation that changes pins) as the
# answer shown, not as a failure.
tool = @sh tools/show-command.sh "crio-pin $(1)"; $(2) PATH="$(STAGE)/bin:$$PATH" crio-pin $(1)
tool_1 = $(call tool,$(1),$(2)) || [ $$? -eq 1 ]
IMAGES := --images examples/data/node-images.txt

ONE_LIST := --patterns examples/data/one-list.txt explain $(IMAGES)
KUBELET := --kubelet-config examples/kubelet/config.yaml

demo-cli-run:
	@echo "== $(SECTION). crio-pin on a CRI-O node: which list is in force, and its traps"
	@echo "   Why: drop-ins replace the list without a word; a local file here dropped OKD's pins."
	@echo "\$$ export $(CRIO_NODE)"
	$(call tool,config,$(CRIO_NODE))
	$(call tool,lint,$(CRIO_NODE))
	@echo
	@echo "== $$(($(SECTION) + 1)). What the node's images get, and what a proposed drop-in would change"
	@echo "   Why: see every pin and its pattern before a change ships, not after an image is collected."
	$(call tool,explain $(IMAGES),$(CRIO_NODE))
	$(call tool_1,diff $(IMAGES) --dropin examples/crio/proposed/99-local.conf,$(CRIO_NODE))
	@echo
	@echo "== $$(($(SECTION) + 2)). One list, three runtimes' rules, the same node's images"
	@echo "   Why: the same five lines pin different images under CRI-O, containerd and cri-dockerd."
	@for runtime in crio containerd cri-dockerd; do \
	    sh tools/show-command.sh "crio-pin --runtime $$runtime $(ONE_LIST)"; \
	    $(STAGE)/bin/crio-pin --runtime $$runtime $(ONE_LIST) || exit 1; \
	    $(STAGE)/bin/crio-pin --runtime $$runtime $(ONE_LIST) --json | grep -o '"pinned": *true' | wc -l \
	        > build/demo-pinned-$$runtime || exit 1; done
	@echo "one list (examples/data/one-list.txt), images pinned of $$(grep -c . examples/data/node-images.txt):" \
	    "CRI-O $$(cat build/demo-pinned-crio), containerd $$(cat build/demo-pinned-containerd)," \
	    "cri-dockerd $$(cat build/demo-pinned-cri-dockerd)"
	@echo
	@echo "== $$(($(SECTION) + 3)). A containerd node and a cri-dockerd list: their own traps, a list carried over"
	@echo "   Why: each runtime fails silently in its own way; translate says what a move would change."
	$(call tool,--runtime containerd --config examples/containerd/config.toml lint)
	$(call tool_1,--runtime containerd --config examples/containerd/config.toml translate --to crio $(IMAGES))
	$(call tool,--runtime containerd --config examples/containerd/config.toml explain --images cli/tests/data/labels/ctr-images.txt)
	$(call tool,--runtime cri-dockerd --patterns examples/cri-dockerd/pinned-images.txt lint)
	@echo
	@echo "== $$(($(SECTION) + 4)). The CRI-O node checked against what its CRI-O listed, one exit status"
	@echo "   Why: a monitoring job needs one answer; this CRI-O still pins by the list before 99-local.conf."
	@echo "   The images are a listing saved from it (crictl images -o json); on a node, check asks the"
	@echo "   running CRI-O over its socket instead."
	$(call tool_1,check --images examples/data/node-images.json,$(CRIO_NODE))
	@echo
	@echo "== $$(($(SECTION) + 5)). The kubelet's own list: pinned images it pulls again before a pod runs"
	@echo "   Why: a pinned image outside the kubelet's allowlist fails its pod on a node cut off from"
	@echo "   the registry; here the allowlist names the platform registry without its port. The"
	@echo "   kubelet's pull records (under its --root-dir) say which secret a pod then needs."
	$(call tool,explain --images examples/kubelet/platform-images.json $(KUBELET) --kubelet-root-dir examples/kubelet/root,$(CRIO_NODE))
	@echo
	@echo "== $$(($(SECTION) + 6)). After a reload: wait for the runtime, and tell the cluster"
	@echo "   Why: systemctl reload crio returns before the new list applies; on a node, run"
	@echo "   systemctl reload crio && crio-pin check --wait 60s (it asks the socket until the flags agree:"
	@echo "   exit 0 then, 1 with the last reading when the time runs out). A metrics collector reads"
	@echo "   the same check as counts (examples/metrics: a systemd timer for node_exporter's textfile):"
	$(call tool_1,check --images examples/data/node-images.json --format openmetrics,$(CRIO_NODE))


# The stages of make test, in order, each announced and timed
# (tools/stages.sh); every one is also a target of its own.
TEST_STAGES := check-tools test-tools test-docs test-rust test-cli test-fold-table test-wasm stage test-abi test-c test-go \
               test-tsan test-miri test-fuzz test-dist

test:
	@MAKE="$(MAKE)" sh tools/stages.sh "make test" $(TEST_STAGES)
	@echo "make test: all suites passed"

check-tools:
	@sh tools/check-tools.sh test

# The tool checks themselves: each target names what it lacks, and the
# minimum Rust and Go versions they read agree with every copy packaging
# must keep (tools/versions.sh).
test-tools:
	@sh tools/check-tools-test.sh
	@sh tools/versions.sh check

# Every repository path and section the Markdown files name exists (and
# the check itself fails on a missing one).
test-docs:
	@sh tools/check-docs.sh --self-test
	@sh tools/check-docs.sh

# Go is one of the project's tools (check-tools): the tests that ask Go's
# own libraries for the answers (cli/tests/go: path/filepath for
# go_filepath.rs, containers/image's parser for images::qualify) must run,
# not skip.
test-rust test-cli: export CRIO_PIN_REQUIRE_GO = 1

test-rust:
	@# One style (rustfmt.toml) for the workspace, the fuzz targets and the
	@# plot tool: `cargo fmt` in each fixes what this reports; then clippy,
	@# warnings as errors, over every target of the workspace.
	$(CARGO) fmt --all --check
	$(CARGO) fmt --check --manifest-path fuzz/Cargo.toml
	$(CARGO) fmt --check --manifest-path tools/bench/plot/Cargo.toml
	$(CARGO) clippy --release --workspace --all-targets -- -D warnings
	$(CARGO) test --release
	@# The engine's tests again with the portable DFA step (no x86-64
	@# assembly): what other architectures run.
	RUSTFLAGS="--cfg crio_pin_portable" $(CARGO) test --release --lib --test semantics --test equivalence \
	    --target-dir target/portable
	@# The benchmark harnesses' quick checks (engines agree, the budget's
	@# lists compile at a hundredth of their size, targets parse): keeps
	@# the benches building.
	$(CARGO) test --release --bench table --bench peers --bench budget

test-fold-table:
	@mkdir -p build
	@go run tools/genfold/main.go > build/fold_table.rs.new
	@cmp -s build/fold_table.rs.new src/fold_table.rs || { \
	    echo "src/fold_table.rs differs from what this Go ($$(go version)) generates:"; \
	    echo "run 'make fold-table', review the change and commit it"; exit 1; }
	@echo "fold table: matches $$(go version | cut -d' ' -f3)"

# The committed WebAssembly module is what this tree builds (the Go
# package's wazero backend embeds it), and go/README.md states its size;
# the committed Go translation (the wasm2go backend's) is what wasm2go
# makes of the module built without SIMD.
test-wasm:
	@sh tools/wasm.sh check

test-abi: stage
	@sh tools/check-abi.sh $(STAGE) $(VERSION) $(SOMAJOR)

test-cli:
	$(CARGO) test --release -p crio-pin-cli

test-c: stage
	$(STAGED) ctest test

test-go: stage
	$(STAGED) go test

bench-go: stage
	$(STAGED) go bench

bench:
	@CARGO=$(CARGO) sh tools/bench/run.sh

bench-quick:
	@CARGO=$(CARGO) BENCH_QUICK=1 sh tools/bench/run.sh

# The library cross-built for arm64, ppc64le and s390x (big-endian), its
# tests and the Go package's cgo backend run under qemu-user; installs its
# tools as root, else says SKIPPED and what to install (tools/cross.sh).
test-cross:
	@MAKE="$(MAKE)" sh tools/cross.sh

# ThreadSanitizer on the multi-threaded C test, with the library built
# instrumented (nightly).
test-tsan:
	@sh tools/tsan.sh

# The FFI layer's Rust tests under Miri (nightly).
test-miri:
	@sh tools/miri.sh

# Each fuzz target replays its committed corpus and regressions, then
# fuzzes briefly.
test-fuzz:
	@sh tools/fuzz.sh quick

fuzz:
	@sh tools/fuzz.sh long

fuzz-cmin:
	@sh tools/fuzz.sh cmin

header:
	CRIO_PIN_BLESS=1 $(CARGO) test --release --test header

fold-table:
	go run tools/genfold/main.go > src/fold_table.rs

wasm:
	@sh tools/wasm.sh build

# What a package build runs (no network, no nightly, no Go): the C tests
# against a staged install (test-offline-c), then the Rust tests of the
# library and the CLI.
test-offline: test-offline-c
	$(CARGO) test --release --workspace

test-offline-c: stage
	$(STAGED) ctest test-plain test-static

dist:
	@sh tools/dist.sh $(VERSION)

# The tarball builds and installs with no network, and its C tests pass
# against that build (make test's stage). Its Rust tests are the tree's,
# which make test has run by then; a second build of them took 3 of make
# test's minutes, so they run from the tarball in test-dist-full and in
# the packages' own test step (make rpm, make deb: CI runs both).
test-dist: dist
	@sh tools/dist-check.sh build/dist/crio-pin-$(VERSION).tar.gz test-offline-c

# The tarball passes test-offline, the Rust tests included, with no network.
test-dist-full: dist
	@sh tools/dist-check.sh build/dist/crio-pin-$(VERSION).tar.gz test-offline

# The packaging tools are checked before the minute the tarball takes.
rpm:
	@sh tools/check-tools.sh rpm
	@MAKE="$(MAKE)" sh tools/stages.sh "make rpm" dist package-rpm

deb:
	@sh tools/check-tools.sh deb
	@MAKE="$(MAKE)" sh tools/stages.sh "make deb" dist package-deb

# The packages from the tarball make dist wrote (make rpm / make deb run
# both).
package-rpm package-deb:
	@sh tools/package.sh $(@:package-%=%) $(VERSION)

# Leaves fuzz/artifacts (inputs that made a target fail) alone.
clean:
	$(CARGO) clean
	rm -rf build fuzz/target fuzz/coverage
	$(MAKE) --no-print-directory -C ctest clean
	$(MAKE) --no-print-directory -C examples/c clean
	$(MAKE) --no-print-directory -C go clean
