# memctl — see README.md. Everything is pure Go: CGO_ENABLED=0 everywhere.
export CGO_ENABLED := 0

VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X github.com/memctl/memctl/internal/cli.version=$(VERSION)
BIN     := bin/memctl
GO      ?= go

# MODULES are memctl and its nested modules, each with its own go.mod: test,
# lint and tidy-check run in every one. internal/secrets/gitleakscheck holds
# what imports gitleaks (the rule table's generator and the differential
# test), so that gitleaks' dependency graph stays out of memctl's go.mod.
GITLEAKSCHECK := internal/secrets/gitleakscheck
MODULES       := . $(GITLEAKSCHECK)

.PHONY: all build install test script golden demo bench bench-cli bdcompat fuzz lint tidy-check release-snapshot clean

all: build

## build: the static binary in bin/memctl
build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/memctl

## install: build memctl and copy it to $(PREFIX)/bin if PREFIX is set, else
## to go's install directory (GOBIN, else $(go env GOPATH)/bin); says where,
## and warns when that directory is not on PATH
install: build
	@scripts/install.sh $(BIN) "$(PREFIX)"

## test: the checks CI runs (lint, tidy-check), then every test (unit,
## golden, testscript) of every module, the differential test against
## gitleaks included
test: lint tidy-check
	@set -e; for m in $(MODULES); do echo "($$m) $(GO) test ./..."; (cd $$m && $(GO) test ./...); done

## script: only the testscript suite in testdata/script
script:
	$(GO) test ./cmd/memctl

## golden: rewrite the golden files of the testscripts, of
## internal/cli/testdata, the MCP tools' schemas (internal/mcp/testdata) and
## the normalised texts of internal/runs/signature/testdata (read the diff
## before committing)
golden:
	MEMCTL_UPDATE=1 $(GO) test ./cmd/memctl ./internal/cli ./internal/mcp ./internal/runs/signature

## demo: build memctl and run its main job on the bundled example workspace
demo: build
	./examples/demo.sh $(abspath $(BIN))

## bench: benchmarks into bench/new.txt (compare with benchstat bench/old.txt bench/new.txt),
## then, given the shared benchmark data (MEMCTL_BENCH_DATA, default ../shared/bench),
## the whole-process figures of check and recall and the LoCoMo retrieval scores
bench: build
	@mkdir -p bench
	$(GO) test -run='^$$' -bench=. -benchmem -count=10 ./internal/... | tee bench/new.txt
	cd $(GITLEAKSCHECK) && $(GO) test -run='^$$' -bench=. -benchmem -count=10 ./... | tee -a $(abspath bench/new.txt)
	@if [ -d "$${MEMCTL_BENCH_DATA:-../shared/bench}" ]; then \
		scripts/bench-check.sh $(abspath $(BIN)) && scripts/bench-recall.sh $(abspath $(BIN)); \
	else echo "no benchmark data: set MEMCTL_BENCH_DATA for the whole-process figures"; fi

## fuzz: every fuzz target in turn, FUZZTIME each (default 1m), with
## FUZZPARALLEL workers (default 1); a failing input is written to the
## package's testdata/fuzz/<target>/: fix the bug and commit it as a
## regression seed. Not part of make test, which runs the committed seeds.
## FUZZMINIMIZE bounds the minimisation of each new input (go's default,
## 60s, spends most of a minute on one large seed).
## FUZZ_TARGETS are module:package:target; cmd/memctl's TestFuzzTargetsListed
## checks that every func Fuzz is here.
FUZZTIME     ?= 1m
FUZZPARALLEL ?= 1
FUZZMINIMIZE ?= 5s
FUZZ_TARGETS := \
	.:./internal/tasks:FuzzParseRender \
	.:./internal/tasks:FuzzMerge \
	.:./internal/tasks:FuzzScanAgreesWithEncodingJSON \
	.:./internal/ledger:FuzzEdit \
	.:./internal/proposal:FuzzDecodeEncode \
	.:./internal/runs/transcript:FuzzParse \
	.:./internal/runs/transcript:FuzzFields \
	.:./internal/runs/transcript:FuzzStr \
	.:./internal/config:FuzzParse \
	.:./internal/runs/signature:FuzzNormalize \
	.:./internal/archive:FuzzImport \
	$(GITLEAKSCHECK):.:FuzzScanAgreesWithGitleaks
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		mod=$${t%%:*}; rest=$${t#*:}; pkg=$${rest%%:*}; name=$${rest#*:}; \
		echo "($$mod) $(GO) test $$pkg -fuzz $$name -fuzztime $(FUZZTIME)"; \
		(cd $$mod && $(GO) test $$pkg -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) -parallel $(FUZZPARALLEL)); \
	done

## bench-cli: the agent-facing commands timed as whole processes on
## generated graphs of 1k, 10k and 50k issues (docs/performance.md), beside
## a Go hello-world and, given BD049=path to bd 0.49.6 and BD=path to bd
## 1.0.5, real bd; needs the shared benchmark data (MEMCTL_BENCH_DATA,
## default ../shared/bench) and python3. SIZES, RUNS and BDSIZES override
## the defaults; the report goes to bench/cli.md.
SIZES   ?= 1000,10000,50000
RUNS    ?= 10
BDSIZES ?= 1000
bench-cli: build
	@mkdir -p bench
	$(GO) run ./scripts/benchcli -memctl $(BIN) -sizes $(SIZES) -runs $(RUNS) -bd-sizes $(BDSIZES) -o bench/cli.md \
		$(if $(BD049),-bd049 $(abspath $(BD049))) $(if $(BD),-bd $(abspath $(BD)))

## bdcompat: the differential harness against real bd (docs/beads.md):
## BD=path to bd 1.0.5, BD049=path to bd 0.49.6 (optional); the report goes
## to bench/bdcompat.md. ../shared/bench/beads/build_bd.sh builds both.
bdcompat:
	@test -n "$(BD)" || { echo "set BD=/path/to/bd-1.0.5 (and BD049=/path/to/bd-0.49.6)"; exit 2; }
	@mkdir -p bench
	MEMCTL_BD=$(abspath $(BD)) MEMCTL_BD049=$(if $(BD049),$(abspath $(BD049))) MEMCTL_BD_REPORT=$(abspath bench/bdcompat.md) \
		$(GO) test ./cmd/memctl -run '^TestBdCompat$$' -count=1 -v

## lint: gofmt, then vet and staticcheck in every module (2026.2.2, pinned; go
## run fetches it from the module proxy without adding it to go.mod)
STATICCHECK_VERSION ?= v0.8.2
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	@set -e; for m in $(MODULES); do echo "($$m) $(GO) vet ./..."; (cd $$m && $(GO) vet ./...); done
	@set -e; for m in $(MODULES); do echo "($$m) staticcheck ./..."; (cd $$m && $(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...); done

## tidy-check: go.mod and go.sum are tidy in every module
tidy-check:
	@set -e; for m in $(MODULES); do echo "($$m) $(GO) mod tidy -diff"; (cd $$m && $(GO) mod tidy -diff); done

## release-snapshot: every archive, deb/rpm package, the Homebrew cask,
## checksums and (with syft on PATH) SBOMs into dist/, offline, without
## publishing or signing; then the release content test reads dist/
comma := ,
GORELEASER_VERSION ?= v2.15.1
release-snapshot:
	@command -v goreleaser >/dev/null || { echo "goreleaser not found: go install github.com/goreleaser/goreleaser/v2@$(GORELEASER_VERSION)" >&2; exit 2; }
	goreleaser release --snapshot --clean --skip=sign$(if $(shell command -v syft),,$(comma)sbom)
	MEMCTL_RELEASE_DIST=$(abspath dist) $(GO) test ./scripts/release -run TestReleaseSnapshotContents -count=1 -v

clean:
	rm -rf bin dist completions manpages
