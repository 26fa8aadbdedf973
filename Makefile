# tracepipe — plain Makefile.
#
#   make              build core library, `pipeline` and every plugin into build/
#   make run          install missing Debian packages, build, run the sample pipeline
#   make check        every test, then the same suite under ASan+UBSan
#   make bench        benchmarks on generated big traces (see docs/performance.md)
#   make install PREFIX=/usr/local
#
# VARIANT=release (default) builds into build/, VARIANT=san into build/san/.

.DEFAULT_GOAL := all
VARIANT ?= release
ifeq ($(VARIANT),san)
BUILD ?= build/san
VFLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
VLDFLAGS := -fsanitize=address,undefined
else ifeq ($(VARIANT),fuzz)
# libFuzzer build (make fuzz): clang, coverage + ASan + UBSan everywhere
BUILD ?= build/fuzz
VFLAGS := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer \
          -fno-sanitize-recover=undefined
VLDFLAGS := -fsanitize=address,undefined
else
BUILD ?= build
VFLAGS := -O2 -g
VLDFLAGS :=
endif

CC ?= cc
PREFIX ?= /usr/local
DESTDIR ?=
VERSION := 0.1.0
SONAME := libtracepipe.so.1

PKGS := yaml-0.1 jansson zlib libpcre2-8
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
# PCRE2: the SDK's regex parts (sdk/tp_sdk_regex.c, sdk/tp_sdk_markers.c), the
# plugins that use them (their plugin.mk) and the unit tests; not the core
PCRE2_CFLAGS := $(shell pkg-config --cflags libpcre2-8 2>/dev/null)
PCRE2_LIBS := $(shell pkg-config --libs libpcre2-8 2>/dev/null)

WARN := -Wall -Wextra -Wshadow -Wconversion -Wstrict-prototypes \
        -Wmissing-prototypes -Wformat=2 -Wswitch
CFLAGS_BASE := -std=c11 -D_GNU_SOURCE -fPIC $(WARN) $(VFLAGS) -Iinclude -Icore $(PKG_CFLAGS) $(PCRE2_CFLAGS) \
        -Itests -DTP_VERSION='"$(VERSION)"' -DTP_DEFAULT_PLUGIN_DIR='"$(PREFIX)/lib/tracepipe/plugins"' \
        -DTP_DEFAULT_PIPELINE_DIR='"$(PREFIX)/share/tracepipe/pipelines"' \
        -MMD -MP
override CFLAGS := $(CFLAGS_BASE) $(CFLAGS)
LDFLAGS += $(VLDFLAGS)

# ---------------------------------------------------------------- core
CORE_SRC := $(filter-out core/main.c,$(wildcard core/*.c)) $(wildcard core/batch/*.c)
# the SDK's JSON access is also the core's (host json_find), its safe text
# the core's diagnostics (tp_diag.c), its vocabulary rules the validation of
# `vocabulary:` (tp_vocabulary.c), its serving presets the markers of
# `iterations: preset:` (tp_iterations.c), its digest a batch's hand-off file
# (tp_trace_handoff.c): one implementation each
CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/sdk/tp_sdk_json.o $(BUILD)/obj/sdk/tp_sdk_vocab_rule.o \
            $(BUILD)/obj/sdk/tp_sdk_text.o $(BUILD)/obj/sdk/tp_sdk_serving.o $(BUILD)/obj/sdk/tp_sdk_digest.o
LIB := $(BUILD)/$(SONAME)
BIN := $(BUILD)/pipeline
CORE_LIBS := $(PKG_LIBS) -ldl -lpthread -lm

# ---------------------------------------------------------------- plugin SDK
# sdk/*.c -> libtracepipe-sdk.a: helpers every plugin links in (see
# include/tracepipe/tp_sdk.h), compiled like plugin code (public headers
# only, hidden visibility) so nothing of it is exported from a plugin.
# tp_sdk_regex.c and tp_sdk_markers.c use PCRE2: a plugin that calls them
# links -lpcre2-8 (tracepipe.pc's Libs.private); the archive's other
# objects do not pull it in.
SDK_SRC := $(wildcard sdk/*.c)
SDK_OBJ := $(SDK_SRC:%.c=$(BUILD)/obj/%.o)
SDK_LIB := $(BUILD)/libtracepipe-sdk.a

# ---------------------------------------------------------------- plugins
# Every folder plugins/<kind>/<name>/ becomes $(BUILD)/plugins/<name>.so.
# An optional plugins/<kind>/<name>/plugin.mk sets LIBS_<name> (extra -l flags).
PLUGIN_DIRS := $(patsubst %/,%,$(sort $(dir $(wildcard plugins/*/*/*.c))))
PLUGIN_NAMES := $(notdir $(PLUGIN_DIRS))
PLUGINS := $(PLUGIN_NAMES:%=$(BUILD)/plugins/%.so)
-include $(wildcard plugins/*/*/plugin.mk)

# Plugins see the public headers only: -Iinclude, never -Icore.
PLUGIN_CFLAGS = $(filter-out -Icore -Itests,$(CFLAGS)) -fvisibility=hidden
PLUGIN_LDFLAGS = -shared -Wl,--no-undefined $(LDFLAGS)
# what the SDK's objects may need (PCRE2: regexes, markers, iterations),
# linked only where a plugin pulls such an object in
SDK_LIBS := -Wl,--as-needed $(shell pkg-config --libs libpcre2-8) -Wl,--no-as-needed
ifeq ($(VARIANT),fuzz)
# clang links the sanitizer runtimes into the fuzz executable only; plugins
# resolve them from it when dlopen'ed.
PLUGIN_LDFLAGS += -Wl,-z,undefs
endif

define plugin_rules
$(BUILD)/plugins/$(notdir $(1)).so: $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard $(1)/*.c)) $(SDK_LIB)
	@mkdir -p $$(@D)
	$$(CC) $$(PLUGIN_LDFLAGS) -o $$@.tmp $$^ $$(LIBS_$(notdir $(1))) $$(SDK_LIBS) -lm && mv $$@.tmp $$@
$(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard $(1)/*.c)): $(BUILD)/obj/$(1)/%.o: $(1)/%.c
	@mkdir -p $$(@D)
	$$(CC) $$(PLUGIN_CFLAGS) $$(CFLAGS_$(notdir $(1))) -c -o $$@ $$<
endef
$(foreach d,$(PLUGIN_DIRS),$(eval $(call plugin_rules,$(d))))

$(SDK_OBJ): $(BUILD)/obj/sdk/%.o: sdk/%.c
	@mkdir -p $(@D)
	$(CC) $(PLUGIN_CFLAGS) -c -o $@ $<
$(SDK_LIB): $(SDK_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

# ---------------------------------------------------------------- Python module
# `import tracepipe` (python/, docs/python.md): the package python/tracepipe/
# and its C half _tracepipe (the core's objects and the SDK linked in, over
# the embedding API core/tp_api.h), built into build/python/ against
# Debian's python3-dev (/usr/bin/python3: its headers, its extension
# suffix).  Not in sanitizer builds: an ASan module cannot load into python3.
PYTHON ?= $(firstword $(wildcard /usr/bin/python3) python3)
PY_INCLUDES := $(if $(filter release,$(VARIANT)),$(shell $(PYTHON)-config --includes 2>/dev/null))
PY_EXT := $(shell $(PYTHON)-config --extension-suffix 2>/dev/null)
PY_VERSION := $(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
PYTHON_SITE ?= $(PREFIX)/lib/python$(PY_VERSION)/dist-packages
PYPKG_DIR := $(BUILD)/python/tracepipe
ifneq ($(PY_INCLUDES),)
PYMOD := $(PYPKG_DIR)/_tracepipe$(PY_EXT)
PYPKG := $(patsubst python/tracepipe/%,$(PYPKG_DIR)/%,$(wildcard python/tracepipe/*.py)) $(PYMOD)
endif
$(PYMOD): $(BUILD)/obj/python/_tracepipe.o $(CORE_OBJ) $(SDK_LIB)
	@mkdir -p $(@D)
	$(CC) -shared $(LDFLAGS) -o $@.tmp $^ $(CORE_LIBS) $(SDK_LIBS) && mv $@.tmp $@
$(BUILD)/obj/python/_tracepipe.o: python/_tracepipe.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(PY_INCLUDES:-I%=-isystem %) -c -o $@ $<
$(PYPKG_DIR)/%.py: python/tracepipe/%.py
	@mkdir -p $(@D)
	cp $< $@

# ---------------------------------------------------------------- tests
UNIT_SRC := $(wildcard tests/unit/*.c) tests/tp_test.c
UNIT_BIN := $(BUILD)/tests/unit_tests
PLUGTEST_SRC := $(wildcard tests/plugins/*.c) tests/tp_test.c
PLUGTEST_BIN := $(BUILD)/tests/plugin_tests
TESTPLUGIN_SRC := $(wildcard tests/testplugins/*.c)
BADPLUGIN_SRC := $(wildcard tests/testplugins/bad/*.c)
TESTPLUGINS := $(TESTPLUGIN_SRC:tests/testplugins/%.c=$(BUILD)/testplugins/%.so) \
               $(BADPLUGIN_SRC:tests/testplugins/bad/%.c=$(BUILD)/testplugins/bad/%.so)
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null)

.PHONY: check-install check-cluster check-python check-report report-screenshot all run check check-suite check-unit check-plugins check-pipelines check-headers \
        check-exports check-layout check-san check-warnings deps deps-run install uninstall bench clean fuzz fuzz-build check-valgrind
all: $(LIB) $(BIN) $(SDK_LIB) $(PLUGINS) $(PYPKG)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c -o $@ $<

$(LIB): $(CORE_OBJ) core/libtracepipe.map
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=core/libtracepipe.map $(LDFLAGS) \
	  -o $@ $(CORE_OBJ) $(CORE_LIBS)
	ln -sf $(SONAME) $(BUILD)/libtracepipe.so

$(BIN): $(BUILD)/obj/core/main.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $< -L$(BUILD) -ltracepipe -Wl,-rpath,'$$ORIGIN:$$ORIGIN/../lib' $(CORE_LIBS)

$(UNIT_BIN): $(UNIT_SRC:%.c=$(BUILD)/obj/%.o) $(CORE_OBJ) $(SDK_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(PCRE2_LIBS) $(CORE_LIBS)

# predict's models (check_predict.c) read the SDK's device presets
$(PLUGTEST_BIN): $(PLUGTEST_SRC:%.c=$(BUILD)/obj/%.o) $(CORE_OBJ) $(SDK_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(CORE_LIBS)

$(BUILD)/testplugins/%.so: tests/testplugins/%.c $(wildcard include/tracepipe/*.h) $(SDK_LIB)
	@mkdir -p $(@D)
	$(CC) $(PLUGIN_CFLAGS) $(PLUGIN_LDFLAGS) -o $@.tmp $< $(SDK_LIB) && mv $@.tmp $@
$(BUILD)/testplugins/bad/%.so: tests/testplugins/bad/%.c $(wildcard include/tracepipe/*.h)
	@mkdir -p $(@D)
	$(CC) $(PLUGIN_CFLAGS) $(PLUGIN_LDFLAGS) -o $@.tmp $< && mv $@.tmp $@

# ---------------------------------------------------------------- entry points
# What building and running need (make run), and what the tests add (make check):
# Check, a second compiler, valgrind, Python for the independent checks, and
# the SVG/HTML checkers.
RUN_PACKAGES := gcc make pkg-config libyaml-dev libjansson-dev zlib1g-dev libisal-dev libpcre2-dev \
                libsqlite3-dev
TEST_PACKAGES := check clang valgrind python3 python3-yaml python3-dev python3-numpy python3-pandas libxml2-utils librsvg2-bin chromium
# a one-node Slurm cluster for make check-cluster (started in a scratch folder, stopped after)
CLUSTER_PACKAGES := slurm-wlm munge
deps-run:
	@sh tests/tools/install-deps.sh $(RUN_PACKAGES)
deps:
	@sh tests/tools/install-deps.sh $(RUN_PACKAGES) $(TEST_PACKAGES)

run: deps-run
	$(MAKE) all
	$(BIN) run pipelines/dlrm_breakdown.yaml
	@echo "make run: open build/out/dlrm_breakdown/report.html (the charts and tables of the run)"

# A PNG of the report as headless Chromium draws it (Debian chromium).
report-screenshot: all
	$(BIN) run pipelines/dlrm_breakdown.yaml -q
	chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars --window-size=1280,2400 \
	    --user-data-dir=$(BUILD)/chromium-profile \
	    --screenshot=$(CURDIR)/build/out/dlrm_breakdown/report.png \
	    file://$(CURDIR)/build/out/dlrm_breakdown/report.html
	@echo "report-screenshot: build/out/dlrm_breakdown/report.png"

check: deps
	$(MAKE) check-suite
	$(MAKE) VARIANT=san check-suite
	$(MAKE) check-valgrind
	$(MAKE) check-cluster
	@echo "make check: all suites passed (release, sanitizer, valgrind and the Slurm cluster)"

CHECK_SUITE := all check-headers check-exports check-layout check-unit check-plugins check-pipelines
ifeq ($(VARIANT),release)
CHECK_SUITE += check-install check-warnings check-report check-python
endif
check-suite: $(CHECK_SUITE)

# install into a scratch prefix and build the example plugin out of tree
check-install: all
	sh tests/tools/out_of_tree.sh $(BUILD)

check-unit: $(UNIT_BIN) $(TESTPLUGINS) $(PLUGINS)
	TP_BUILD=$(BUILD) TP_TESTPLUGIN_DIR=$(BUILD)/testplugins $(UNIT_BIN)

check-plugins: $(PLUGTEST_BIN) $(PLUGINS) $(TESTPLUGINS)
	TP_BUILD=$(BUILD) TRACEPIPE_PLUGIN_PATH= $(PLUGTEST_BIN)

# unit + plugin suites and a few pipeline runs under valgrind memcheck (~2-3 min)
check-valgrind: all $(UNIT_BIN) $(PLUGTEST_BIN) $(TESTPLUGINS)
	sh tests/tools/valgrind.sh $(BUILD)

check-pipelines: all $(TESTPLUGINS)
	sh tests/e2e/run.sh $(BUILD)
	sh tests/e2e/outputs.sh $(BUILD)
	sh tests/e2e/batch.sh $(BUILD)
	sh tests/e2e/slurm.sh $(BUILD)
	sh tests/e2e/bundled.sh $(BUILD)
	sh tests/bad/run.sh $(BUILD)
	sh tests/e2e/advice_memkinds.sh $(BUILD)

# pipeline slurm --submit on a real one-node Slurm cluster (issue 34): skipped,
# with the reason, where the daemons cannot run (not root, no packages)
check-cluster: all
	@sh tests/tools/install-deps.sh $(CLUSTER_PACKAGES) || echo "check-cluster: could not install $(CLUSTER_PACKAGES)"
	sh tests/e2e/cluster.sh $(BUILD)

# `import tracepipe` (issue 33): tests/python/test_tracepipe.py with Debian's python3
check-python: all $(TESTPLUGINS)
	sh tests/python/run.sh $(BUILD)

# the HTML report in headless Chromium (release only: under ASan it would test Chromium)
check-report: all
	sh tests/e2e/report_chromium.sh $(BUILD)
	sh tests/e2e/report_layout.sh $(BUILD)

# issue 23's layout: sources by concept, each under 800 lines; the core and the
# SDK never include plugin code
check-layout:
	@big=$$(find core sdk plugins include -name '*.[ch]' -exec wc -l {} + | awk '$$2 != "total" && $$1 >= 800'); \
	if [ -n "$$big" ]; then echo "check-layout: files of 800 lines or more:"; echo "$$big"; exit 1; fi; \
	if grep -rln '#include.*plugins/' core sdk include; then echo "check-layout: core/sdk include plugin code"; exit 1; fi; \
	echo "check-layout: every source under 800 lines; core and SDK include no plugin code"

check-headers:
	@mkdir -p $(BUILD)/tests
	@for h in include/tracepipe/*.h; do \
	  printf '#include "%s"\nint tp__header_check(void);\nint tp__header_check(void) { return 0; }\n' "$${h#include/}" \
	    | $(CC) -std=c99 -pedantic -Werror -Wall -Wextra -Iinclude -x c -c -o /dev/null - || exit 1; \
	done; echo "check-headers: public headers compile with -std=c99 -pedantic -Werror"

check-exports: $(PLUGINS) $(LIB) $(BIN)
	@for p in $(PLUGINS); do \
	  syms=$$(nm -D --defined-only $$p | awk '{print $$3}' | grep -v '^_' | sort | tr '\n' ' '); \
	  if [ "$$syms" != "tp_plugin_descriptor " ]; then echo "check-exports: $$p exports: $$syms"; exit 1; fi; \
	done; echo "check-exports: every plugin exports only tp_plugin_descriptor"
	@# the core library: exactly core/libtracepipe.map's list, which is
	@# exactly what the pipeline program takes from it
	@want=$$(sed -n 's/^ *\(tp_[a-z0-9_]*\);$$/\1/p' core/libtracepipe.map | sort | tr '\n' ' '); \
	have=$$(nm -D --defined-only $(LIB) | awk '$$2 ~ /^[TDBR]$$/ {print $$3}' | grep -v '^_' | sort | tr '\n' ' '); \
	used=$$(nm -u $(BUILD)/obj/core/main.o | awk '{print $$2}' | grep '^tp_' | sort | tr '\n' ' '); \
	if [ "$$have" != "$$want" ]; then echo "check-exports: $(LIB) exports: $$have; core/libtracepipe.map lists: $$want"; exit 1; fi; \
	if [ "$$used" != "$$want" ]; then echo "check-exports: main.c uses: $$used; core/libtracepipe.map lists: $$want"; exit 1; fi; \
	echo "check-exports: $(LIB) exports only the $$(echo $$want | wc -w) functions the pipeline program uses"

# every source warning-free under both compilers (separate build dirs)
check-warnings:
	$(MAKE) -s BUILD=build/clang CC=clang CFLAGS=-Werror all build/clang/tests/unit_tests \
	  build/clang/tests/plugin_tests $(TESTPLUGINS:$(BUILD)/%=build/clang/%)
	$(MAKE) -s BUILD=build/gccw CC=gcc CFLAGS=-Werror all build/gccw/tests/unit_tests \
	  build/gccw/tests/plugin_tests $(TESTPLUGINS:$(BUILD)/%=build/gccw/%)
	@echo 'check-warnings: no warnings under gcc and clang'

bench: all
	sh tests/tools/bench.sh $(BUILD)

# libFuzzer targets (tests/fuzz/, docs/robustness.md): each runs FUZZ_SECONDS;
# the corpus grows in build/fuzz/corpus/<target>, crashes land in build/fuzz/artifacts/.
FUZZ_SECONDS ?= 60
FUZZ_DIR := build/fuzz
FUZZ_TARGETS ?= kineto yaml validate nsys nsys_json dvdt_prof tfprof csv_table
FUZZ_MAXLEN_kineto := 65536
FUZZ_MAXLEN_yaml := 4096
FUZZ_MAXLEN_validate := 4096
FUZZ_SEEDS_kineto := tests/data/hand tests/data/kineto tests/data/producers tests/bad
FUZZ_SEEDS_yaml := tests/pipelines pipelines docs/examples
FUZZ_SEEDS_validate := tests/fuzz/validate_seeds tests/pipelines pipelines
# the other readers (tests/fuzz/fuzz_reader.h): 64 KiB inputs unless said
FUZZ_SEEDS_nsys := tests/fuzz/seeds/nsys tests/bad/nsys_truncated tests/bad/nsys_not_export
FUZZ_SEEDS_nsys_json := tests/fuzz/seeds/nsys_json tests/bad/nsys_json_truncated_line
FUZZ_SEEDS_dvdt_prof := tests/fuzz/seeds/dvdt_prof tests/bad/dvdt_truncated tests/bad/dvdt_damaged_rows
FUZZ_SEEDS_tfprof := tests/fuzz/seeds/tfprof tests/bad/tfprof_no_report tests/bad/tfprof_damaged_values
FUZZ_SEEDS_csv_table := tests/fuzz/seeds/csv_table
fuzz:
	$(MAKE) VARIANT=fuzz CC=clang fuzz-build
	@mkdir -p $(FUZZ_DIR)/artifacts
	@set -e; $(foreach t,$(FUZZ_TARGETS), \
	  mkdir -p $(FUZZ_DIR)/corpus/$(t); echo "fuzz: $(t) for $(FUZZ_SECONDS)s"; \
	  TP_BUILD=$(FUZZ_DIR) $(FUZZ_DIR)/fuzz_$(t) -max_total_time=$(FUZZ_SECONDS) \
	    -max_len=$(or $(FUZZ_MAXLEN_$(t)),65536) -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	    $(if $(wildcard tests/fuzz/$(t).dict),-dict=tests/fuzz/$(t).dict) \
	    -artifact_prefix=$(FUZZ_DIR)/artifacts/$(t)- $(FUZZ_DIR)/corpus/$(t) $(FUZZ_SEEDS_$(t));)
ifeq ($(VARIANT),fuzz)
fuzz-build: $(PLUGINS) $(FUZZ_TARGETS:%=$(BUILD)/fuzz_%)
.PRECIOUS: $(BUILD)/obj/tests/fuzz/%.o
$(BUILD)/fuzz_%: $(BUILD)/obj/tests/fuzz/fuzz_%.o $(CORE_OBJ)
	$(CC) $(LDFLAGS) -fsanitize=fuzzer -o $@ $^ $(CORE_LIBS)
endif

# ---------------------------------------------------------------- install
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/tracepipe/plugins \
	  $(DESTDIR)$(PREFIX)/include/tracepipe $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	  $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/tracepipe/pipelines
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/pipeline
	install -m 644 pipelines/*.yaml $(DESTDIR)$(PREFIX)/share/tracepipe/pipelines/
	install -d $(DESTDIR)$(PREFIX)/share/tracepipe/pipelines/data
	install -m 644 pipelines/data/* $(DESTDIR)$(PREFIX)/share/tracepipe/pipelines/data/
	install -m 755 $(LIB) $(DESTDIR)$(PREFIX)/lib/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(PREFIX)/lib/libtracepipe.so
	install -m 755 $(PLUGINS) $(DESTDIR)$(PREFIX)/lib/tracepipe/plugins/
	install -m 644 include/tracepipe/*.h $(DESTDIR)$(PREFIX)/include/tracepipe/
	install -m 644 $(SDK_LIB) $(DESTDIR)$(PREFIX)/lib/libtracepipe-sdk.a
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' docs/tracepipe.pc.in \
	  > $(DESTDIR)$(PREFIX)/lib/pkgconfig/tracepipe.pc
	install -m 644 docs/pipeline.1 $(DESTDIR)$(PREFIX)/share/man/man1/pipeline.1
ifneq ($(PYMOD),)
	install -d $(DESTDIR)$(PYTHON_SITE)/tracepipe
	install -m 644 $(filter %.py,$(PYPKG)) $(DESTDIR)$(PYTHON_SITE)/tracepipe/
	install -m 755 $(PYMOD) $(DESTDIR)$(PYTHON_SITE)/tracepipe/
endif

uninstall:
	rm -rf $(DESTDIR)$(PREFIX)/bin/pipeline $(DESTDIR)$(PREFIX)/lib/$(SONAME) \
	  $(DESTDIR)$(PREFIX)/lib/libtracepipe.so $(DESTDIR)$(PREFIX)/lib/libtracepipe-sdk.a \
	  $(DESTDIR)$(PREFIX)/lib/tracepipe \
	  $(DESTDIR)$(PREFIX)/include/tracepipe $(DESTDIR)$(PREFIX)/lib/pkgconfig/tracepipe.pc \
	  $(DESTDIR)$(PREFIX)/share/man/man1/pipeline.1 $(DESTDIR)$(PREFIX)/share/tracepipe \
	  $(DESTDIR)$(PYTHON_SITE)/tracepipe

clean:
	rm -rf build

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
