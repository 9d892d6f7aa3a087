# libcrio_pin: build, install, demo, test.
#
#   make demo      build, stage-install, run the C and Go examples on bundled data
#   make test      every test: Rust (unit, property, header drift), fold-table
#                  drift, ABI checks, C tests plain / valgrind / ASan+UBSan /
#                  static / ThreadSanitizer, FFI tests under Miri, fuzz
#                  targets on their corpus (nightly parts say when skipped),
#                  Go package with both backends (vet, race, cgocheck,
#                  conformance, live reload, no silent unpinning) and each
#                  link shape built and run (dynamic, static library,
#                  fully static, no library)
#   make bench     Rust benchmarks (criterion suite, then the summary table with
#                  the reference engine beside, and build/bench/bench.png);
#                  BENCH_QUICK=1 or make bench-quick: the table only
#   make bench-docs  copy the last full run into docs/ and the README
#   make bench-go  Go benchmarks: CRI-O's regexp loop, the pure-Go backend and
#                  the library
#   make fuzz      fuzz each target for FUZZ_SECONDS (default 300)
#   make install   PREFIX=/usr/local [DESTDIR=] [LIBDIR=$(PREFIX)/lib]
#   make uninstall (same variables)
#   make header    regenerate include/crio_pin.h from src/ffi.rs
#   make fold-table  regenerate src/fold_table.rs from the installed Go

PREFIX     ?= /usr/local
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
DESTDIR    ?=

CARGO   ?= cargo
CC      ?= cc
VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
SOMAJOR := 0
# What a static link of a Rust staticlib needs on Linux (rustc
# --print native-static-libs, less -lgcc_s: cc adds the unwinder itself,
# libgcc_s when dynamic, libgcc_eh with -static, which has no libgcc_s.a).
# Checked by the static C test.
NATIVE_STATIC_LIBS := -lutil -lrt -lpthread -lm -ldl -lc

RELEASE := target/release
STAGE   := $(CURDIR)/build/stage
STAGE_PC := $(STAGE)/lib/pkgconfig

export CARGO_TERM_COLOR ?= never

.PHONY: all build install uninstall stage demo test check-tools test-rust \
        test-fold-table test-abi test-c test-tsan test-miri test-fuzz fuzz test-go bench-go \
        bench bench-quick bench-docs \
        header fold-table clean

all: build

build:
	$(CARGO) build --release --lib

install: build
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR)
	install -m 755 $(RELEASE)/libcrio_pin.so $(DESTDIR)$(LIBDIR)/libcrio_pin.so.$(VERSION)
	ln -sf libcrio_pin.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libcrio_pin.so.$(SOMAJOR)
	ln -sf libcrio_pin.so.$(SOMAJOR) $(DESTDIR)$(LIBDIR)/libcrio_pin.so
	install -m 644 $(RELEASE)/libcrio_pin.a $(DESTDIR)$(LIBDIR)/libcrio_pin.a
	install -m 644 include/crio_pin.h $(DESTDIR)$(INCLUDEDIR)/crio_pin.h
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' \
	    -e 's|@NATIVE_STATIC_LIBS@|$(NATIVE_STATIC_LIBS)|' \
	    crio_pin.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/crio_pin.pc
	chmod 644 $(DESTDIR)$(PKGCONFIGDIR)/crio_pin.pc

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libcrio_pin.so.$(VERSION) \
	      $(DESTDIR)$(LIBDIR)/libcrio_pin.so.$(SOMAJOR) \
	      $(DESTDIR)$(LIBDIR)/libcrio_pin.so \
	      $(DESTDIR)$(LIBDIR)/libcrio_pin.a \
	      $(DESTDIR)$(INCLUDEDIR)/crio_pin.h \
	      $(DESTDIR)$(PKGCONFIGDIR)/crio_pin.pc

# A private install for the demo and the tests.
stage:
	$(MAKE) --no-print-directory install PREFIX=$(STAGE) DESTDIR=

demo: check-tools stage
	$(MAKE) --no-print-directory -C examples/c PKG_CONFIG_PATH=$(STAGE_PC) run
	$(MAKE) --no-print-directory -C go PKG_CONFIG_PATH=$(STAGE_PC) demo

test: check-tools test-rust test-fold-table stage test-abi test-c test-go test-tsan test-miri test-fuzz
	@echo "make test: all suites passed"

check-tools:
	@sh tools/check-tools.sh

test-rust:
	$(CARGO) test --release
	@# The benchmark harness's quick agreement check: keeps the benches building.
	$(CARGO) test --release --bench table

test-fold-table:
	@mkdir -p build
	@go run tools/genfold/main.go > build/fold_table.rs.new
	@cmp -s build/fold_table.rs.new src/fold_table.rs || { \
	    echo "src/fold_table.rs differs from what this Go ($$(go version)) generates:"; \
	    echo "run 'make fold-table', review the change and commit it"; exit 1; }
	@echo "fold table: matches $$(go version | cut -d' ' -f3)"

test-abi: stage
	@sh tools/check-abi.sh $(STAGE) $(VERSION) $(SOMAJOR)

test-c: stage
	$(MAKE) --no-print-directory -C ctest PKG_CONFIG_PATH=$(STAGE_PC) test

test-go: stage
	$(MAKE) --no-print-directory -C go PKG_CONFIG_PATH=$(STAGE_PC) test

bench-go: stage
	$(MAKE) --no-print-directory -C go PKG_CONFIG_PATH=$(STAGE_PC) bench

bench:
	@CARGO=$(CARGO) sh tools/bench/run.sh

bench-quick:
	@CARGO=$(CARGO) BENCH_QUICK=1 sh tools/bench/run.sh

bench-docs:
	@sh tools/bench/publish.sh

# ThreadSanitizer on the multi-threaded C test, with the library built
# instrumented (nightly).
test-tsan:
	@sh tools/tsan.sh

# The FFI layer's Rust tests under Miri (nightly).
test-miri:
	@sh tools/miri.sh

# Each fuzz target replays its committed corpus, then fuzzes briefly.
test-fuzz:
	@sh tools/fuzz.sh quick

fuzz:
	@sh tools/fuzz.sh long

header:
	CRIO_PIN_BLESS=1 $(CARGO) test --release --test header

fold-table:
	go run tools/genfold/main.go > src/fold_table.rs

clean:
	$(CARGO) clean
	rm -rf build
	$(MAKE) -C ctest clean
	$(MAKE) -C examples/c clean
	$(MAKE) -C go clean
