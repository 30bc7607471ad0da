# SPDX-License-Identifier: Apache-2.0
# uehw: generators, regression and reports. Run `make help`.
SHELL := /bin/bash
MVN ?= mvn -B -q
BUILD := build
# The project version, read from pom.xml (the jar, the manifest and the VERSION CSR carry the same).
VERSION := $(shell sed -n "s:^  <version>\(.*\)</version>:\1:p" pom.xml | head -1)
# The hwgen jar (module uehw-tools, sim/tools/) with its dependencies in lib/ beside it.
JAR := $(BUILD)/maven/uehw-tools/uehw-tools-$(VERSION).jar
HWGEN := java -jar $(JAR)
# The blocks and the variants `make rtl` lints come from the registry (uehw.hw.Blocks): `hwgen list
# --names` and `hwgen list --variants`, read in the recipes (a failing hwgen fails them).
LINT_WAIVERS := hw/lint/spinal-waivers.vlt
SUREFIRE := $(BUILD)/maven/uehw-testbench/surefire-reports
DEB_TOOLS := verilator yosys nextpnr-ice40 fpga-icestorm iverilog
# Node and npm run YoWASP; installed from Debian only where the machine has none of its own.
DEB_NODE := nodejs npm
# YoWASP Yosys 0.55 (WebAssembly under Node), pinned by sim/tools/yowasp/package-lock.json: the
# UltraScale+ synthesis and sta of the reports.
YOWASP := $(BUILD)/yowasp
YOWASP_STAMP := $(YOWASP)/node_modules/@yowasp/yosys/package.json

.PHONY: help tools yowasp rtl lint test test-fast doc-tables consumer soak clean cli reports reports-full reports-jar experiments mutants

help:
	@echo "make rtl    - generate every block with its default parameters into build/rtl/, then lint"
	@echo "make test   - the full regression (Verilator cycle simulations against the Java models)"
	@echo "make test-fast - the tests that need no HDL tool (models, network simulator, generation, CLI): under a minute"
	@echo "make lint   - verilator --lint-only -Wall on every generated top (fails on any warning)"
	@echo "make consumer - mvn install, then docs/examples/consumer built offline against it (uehw brings SpinalHDL alone)"
	@echo "make soak   - only the randomized tests, UEHW_SCALE (10) times longer; prints each test it ran"
	@echo "make reports - every block's default configuration (and SMaRTT, Swift at N = 4096): UltraScale+ cells and critical path (ns), iCE40 Fmax,"
	@echo "               next to the reference designs -> build/reports/ (REPORT_BLOCKS=a,b runs only those again)"
	@echo "make reports-full - every configuration of every block's sweep, and docs/resources.md"
	@echo "make mutants - the mutation score: each RTL mutant of hw/**/*.mutants.txt against its block's tests"
	@echo "               (about 75 min; MUTANTS=block[/id],... runs only those) -> build/mutants/report.md"
	@echo "make cli    - build the hwgen jar: java -jar $(JAR) --help"
	@echo "make doc-tables - rewrite each block page's parameter table from the block registry"
	@echo "make experiments - the network experiments (fat-tree incasts, a failed link, DASR, Swift next to SMaRTT, IOFD): CSVs and plots -> build/experiments/"
	@echo "make clean  - remove build/"

# Installs missing Debian tools when root, otherwise prints the exact command.
tools:
	@missing=""; \
	pkgs=""; \
	for t in verilator yosys nextpnr-ice40 icepack iverilog; do command -v $$t >/dev/null || missing="$$missing $$t"; done; \
	[ -z "$$missing" ] || pkgs="$(DEB_TOOLS)"; \
	for t in node npm; do command -v $$t >/dev/null || { missing="$$missing $$t"; pkgs="$$pkgs $(DEB_NODE)"; }; done; \
	fc-list 2>/dev/null | grep -q . || { missing="$$missing fonts"; pkgs="$$pkgs fontconfig fonts-dejavu-core"; }; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "tools: installing $$pkgs"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$pkgs >/dev/null; \
	  else \
	    echo "tools: missing:$$missing. Install with: sudo apt-get install -y $$pkgs"; exit 1; \
	  fi; \
	fi; \
	command -v java >/dev/null && command -v mvn >/dev/null || { echo "tools: a JDK 17 and Maven are required"; exit 1; }

$(YOWASP_STAMP): sim/tools/yowasp/package.json sim/tools/yowasp/package-lock.json sim/tools/yowasp/yosys.mjs
	mkdir -p $(YOWASP) && cp sim/tools/yowasp/package.json sim/tools/yowasp/package-lock.json sim/tools/yowasp/yosys.mjs $(YOWASP)/
	cd $(YOWASP) && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

yowasp: tools $(YOWASP_STAMP)

# docs/resources.md is in the jar: hwgen --clock-mhz warns from its figures
$(JAR): $(wildcard pom.xml */pom.xml sim/*/pom.xml) docs/resources.md $(shell find hw sim -type f 2>/dev/null)
	$(MVN) package -DskipTests

cli: $(JAR)

rtl: tools $(JAR)
	@blocks="$$($(HWGEN) list --names)" && [ -n "$$blocks" ] || { echo "rtl: hwgen list --names failed or listed no block"; exit 1; }; \
	for b in $$blocks; do \
	  echo "rtl: $$b -> $(BUILD)/rtl/$$b"; \
	  $(HWGEN) generate $$b --out $(BUILD)/rtl/$$b > $(BUILD)/rtl-$$b.log 2>&1 || { cat $(BUILD)/rtl-$$b.log; exit 1; }; \
	done
	@variants="$$($(HWGEN) list --variants)" || { echo "rtl: hwgen list --variants failed"; exit 1; }; \
	while read -r v b args; do \
	  echo "rtl: variant $$v -> $(BUILD)/rtl/variants/$$v"; \
	  $(HWGEN) generate $$b $$args --out $(BUILD)/rtl/variants/$$v > $(BUILD)/rtl-$$v.log 2>&1 \
	  || { cat $(BUILD)/rtl-$$v.log; exit 1; }; \
	done <<< "$$variants"
	@$(MAKE) --no-print-directory lint

lint: $(JAR)
	@blocks="$$($(HWGEN) list --names)" && [ -n "$$blocks" ] || { echo "lint: hwgen list --names failed or listed no block"; exit 1; }; \
	status=0; for d in $$(printf '$(BUILD)/rtl/%s ' $$blocks) $(wildcard $(BUILD)/rtl/variants/*); do \
	  for v in $$d/*.v; do \
	    case $$v in *_inst.v) continue;; esac; \
	    if verilator --lint-only -Wall $(LINT_WAIVERS) $$v; then echo "lint: $$v clean"; else status=1; fi; \
	  done; \
	done; exit $$status

test: tools $(YOWASP_STAMP)
	mvn -B test
	@$(MAKE) --no-print-directory consumer

# The tests that need no HDL tool (JUnit tags model, netsim, tools; docs/architecture.md): the models,
# the network simulator on them, generation and the CLI. The loop while changing a model.
test-fast:
	@rm -rf $(SUREFIRE); start=$$(date +%s); mvn -B -q test -Pfast; status=$$?; \
	n=0; for x in $(SUREFIRE)/TEST-*.xml; do [ -f "$$x" ] && n=$$((n + $$(grep -c '<testcase ' "$$x"))); done; \
	echo "test-fast: $$n tests in $$(( $$(date +%s) - start )) s"; exit $$status

# The parameter tables of the block pages, rewritten from the registry (HwgenTest checks them).
doc-tables: $(JAR)
	java -cp "$(JAR):$(dir $(JAR))lib/*" uehw.cli.ParamTable docs

# The library route (docs/integration.md): install uehw into the local Maven repository, build the
# consumer example offline against it, elaborate its top (two uehw blocks inside) and check that
# uehw brought SpinalHDL (with SpinalHDL's own dependencies) and the Scala library only.
CONSUMER := docs/examples/consumer
consumer: tools
	mvn -B -q install -DskipTests
	cd $(CONSUMER) && mvn -B -q -o compile dependency:build-classpath -Dmdep.outputFile=target/classpath.txt \
	  dependency:list -DoutputFile=target/dependencies.txt -DincludeScope=runtime
	@if grep -Eiq 'picocli|xchart|jackson|junit|pdfbox|vectorgraphics|gif-lib' $(CONSUMER)/target/dependencies.txt; then \
	  echo "consumer: uehw brought more than SpinalHDL:"; cat $(CONSUMER)/target/dependencies.txt; exit 1; fi
	cd $(CONSUMER) && java -cp "target/classes:$$(cat target/classpath.txt)" example.SwitchPort target/rtl > target/elaborate.log 2>&1 \
	  || { cat $(CONSUMER)/target/elaborate.log; exit 1; }
	@grep -c '^module' $(CONSUMER)/target/rtl/SwitchPort.v | xargs echo "consumer: SwitchPort.v elaborated offline, modules:"
	@echo "consumer: uehw's dependencies:"; grep -E ':(compile|runtime)' $(CONSUMER)/target/dependencies.txt | sed 's/^ */  /'

# The randomized tests (JUnit tag "soak") UEHW_SCALE times longer; then what ran, from Surefire's reports.
soak: tools $(YOWASP_STAMP)
	@scale=$${UEHW_SCALE:-10}; echo "soak: the randomized tests, $$scale times their regression length"; \
	rm -rf $(SUREFIRE); \
	mvn -B test -Psoak -Duehw.scale=$$scale; status=$$?; \
	echo "soak: ran (scale $$scale):"; \
	n=0; for x in $(SUREFIRE)/TEST-*.xml; do \
	  [ -f "$$x" ] || continue; \
	  grep -o '<testcase name="[^"]*" classname="[^"]*" time="[^"]*"' "$$x" \
	    | sed -E 's/<testcase name="([^"]*)" classname="uehw.tb.([^"]*)" time="([^"]*)"/  \2 \1: \3 s/'; \
	  n=$$((n + $$(grep -c '<testcase ' "$$x"))); \
	done; echo "soak: $$n randomized tests"; \
	[ $$n -gt 0 ] || { echo "soak: no test ran"; exit 1; }; exit $$status

# The reports run from a copy of the jar, so a rebuild during a long run does not pull classes from under it.
REPORTS_CP = $(BUILD)/reports-jar/uehw.jar:$(BUILD)/reports-jar/lib/*
reports-jar: $(JAR)
	@rm -rf $(BUILD)/reports-jar && mkdir -p $(BUILD)/reports-jar && cp $(JAR) $(BUILD)/reports-jar/uehw.jar \
	  && cp -r $(dir $(JAR))lib $(BUILD)/reports-jar/lib

reports: tools $(YOWASP_STAMP) reports-jar
	java -cp "$(REPORTS_CP)" uehw.report.Reports $(BUILD)/reports - "$(REPORT_BLOCKS)"

reports-full: tools $(YOWASP_STAMP) reports-jar
	java -cp "$(REPORTS_CP)" uehw.report.Reports $(BUILD)/reports-full docs/resources.md "$(REPORT_BLOCKS)" sweep

# Not part of `make test` (it takes long): see docs/verification.md.
mutants: tools
	mvn -B -q test-compile dependency:build-classpath -pl testbench -am -Dmdep.outputFile=$(CURDIR)/$(BUILD)/mutants-classpath.txt -Dmdep.includeScope=test
	java -cp "$(BUILD)/maven/uehw-testbench/test-classes:$$(cat $(BUILD)/mutants-classpath.txt)" -Duehw.root=. \
	  uehw.tb.mutation.MutationRun $(if $(MUTANTS),--only $(MUTANTS)) $(MUTANTS_ARGS)

experiments: $(JAR)
	$(HWGEN) experiment fat-tree-incast --out $(BUILD)/experiments/fat-tree-incast
	$(HWGEN) experiment link-failure --out $(BUILD)/experiments/link-failure
	$(HWGEN) experiment dasr-incast --out $(BUILD)/experiments/dasr-incast
	$(HWGEN) experiment swift-vs-smartt --out $(BUILD)/experiments/swift-vs-smartt
	$(HWGEN) experiment deflection --out $(BUILD)/experiments/deflection
	$(HWGEN) experiment uet-reference --out $(BUILD)/experiments/uet-reference
	$(HWGEN) experiment engine-incast --out $(BUILD)/experiments/engine-incast

clean:
	rm -rf $(BUILD)
