# pkg-config's answers about crio_pin, for every Makefile that builds against
# an installed libcrio_pin (ctest/, examples/c/, go/, examples/go/): include
# it and use CRIO_PIN_CFLAGS, CRIO_PIN_LIBS, CRIO_PIN_STATIC (pkg-config
# --static flags) and CRIO_PIN_LIBDIR; make `check-crio-pin` a prerequisite
# of what needs them.
#
# PKG_CONFIG_PATH comes from make's command line (the root Makefile passes
# its staged install's). Before GNU make 4.4, $(shell) does not see variables
# that make exports, so it is handed to pkg-config explicitly, here and only
# here. The answers are empty when pkg-config cannot find crio_pin (make
# clean needs none).
PKG_CONFIG ?= pkg-config
export PKG_CONFIG_PATH
# Including this file must not change the includer's default goal.
crio_pin_default_goal := $(.DEFAULT_GOAL)
crio_pin_pc = $(shell PKG_CONFIG_PATH='$(PKG_CONFIG_PATH)' $(PKG_CONFIG) $(1) crio_pin 2>/dev/null)
CRIO_PIN_CFLAGS := $(call crio_pin_pc,--cflags)
CRIO_PIN_LIBS   := $(call crio_pin_pc,--libs)
CRIO_PIN_STATIC := $(call crio_pin_pc,--static --cflags --libs)
CRIO_PIN_LIBDIR := $(call crio_pin_pc,--variable=libdir)
CRIO_PIN_TSAN_SUPP := $(call crio_pin_pc,--variable=tsan_suppressions)
# The installed files: programs built from them are rebuilt when they change.
CRIO_PIN_FILES := $(wildcard $(call crio_pin_pc,--variable=includedir)/crio_pin.h \
                             $(CRIO_PIN_LIBDIR)/libcrio_pin.so $(CRIO_PIN_LIBDIR)/libcrio_pin.a)

.PHONY: check-crio-pin
check-crio-pin:
	@$(PKG_CONFIG) --exists crio_pin || { \
	    echo "pkg-config cannot find crio_pin (PKG_CONFIG_PATH=$(PKG_CONFIG_PATH)): run 'make stage'" \
	         "at the top and pass PKG_CONFIG_PATH=<top>/build/stage/lib/pkgconfig (make demo and" \
	         "make test do)"; exit 1; }
.DEFAULT_GOAL := $(crio_pin_default_goal)
