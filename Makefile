# opcert. The two commands of the README:
#   make demo   every built-in scenario on the reference, then the slow operator failing STALE-007
#   make test   lint, unit and envtest tests (race detector on the simulator)
# Both build kube-apiserver and etcd from the Go module proxy on first use
# (about 10 minutes on 2 cores) and reuse the cache after that.

SHELL := /bin/bash
GO ?= go
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
FUZZTIME ?= 30s

.PHONY: all build envtest demo test lint bench fuzz fuzz-seeds selftest perturb docs release-check e2e-kind clean

all: build

# opcert version shows the commit and its date (and the tag when HEAD has
# one); a release stamps the same three through .goreleaser.yaml.
STAMP := -X main.version=$(shell git describe --tags --exact-match 2>/dev/null) \
	-X main.commit=$(shell git rev-parse HEAD 2>/dev/null) \
	-X main.date=$(shell TZ=UTC git log -1 --date=format-local:%Y-%m-%dT%H:%M:%SZ --format=%cd 2>/dev/null)

build:
	$(GO) build -ldflags "$(STAMP)" -o bin/opcert ./cmd/opcert

# Builds (or finds in ~/.cache/opcert/envtest) the API server binaries.
envtest:
	@bash hack/envtest/build.sh >/dev/null

demo: build envtest
	@echo "== every built-in scenario against the reference"
	bin/opcert run --out opcert-report
	@echo
	@echo "== the slow operator (answers challenges after 45s) against the 30s invariant"
	@bin/opcert run --subject operator=slow --scenario stale-healthy-answer --out opcert-report-slow; code=$$?; \
	if [ $$code -ne 1 ]; then echo "demo: the slow operator should fail (exit 1), got exit $$code"; exit 1; fi
	@echo
	@awk '/^### STALE-007/{p=1} p{print; if (/^```$$/ && ++f==2) exit}' opcert-report-slow/report.md
	@echo
	@echo "demo: the reference passes every rule; the slow operator fails STALE-007 (reports in opcert-report/ and opcert-report-slow/)"

# cmd/opcert runs opcert as a process against real API servers (signals,
# clusters, process mode): about 11 minutes on 2 cores, over go test's
# default 10-minute limit per package.
test: envtest lint
	$(GO) test -race ./sim/... ./apiserver/...
	$(GO) test -timeout 30m ./...

# The release builds darwin too: lint vets the module for it, so that a
# linux-only call cannot come back unnoticed.
lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...
	GOOS=darwin GOARCH=arm64 $(GO) vet ./...

# The references generated from the code (CLI pages, rules, capability
# table) into docs/reference; make test fails when they are out of date.
docs:
	$(GO) run ./cmd/opcert docs docs/reference

# Every broken subject of every mechanism against the rules (docs/concepts/selftest.md).
# SHARDS=N plays it as N shards side by side and merges them
# (hack/shards.sh, docs/guides/sharding.md): CI plays 2 on its 2 cores.
SHARDS ?= 1
selftest: build envtest
	bash hack/shards.sh $(SHARDS) opcert-selftest bin/opcert selftest

# Perturbations of every built-in estimated at 2000 API calls or fewer,
# PERTURB_BUDGET points each, with the reference and with every faithful
# variant (docs/concepts/perturbation.md): a faithful subject survives
# every perturbation, so any failure fails the target, its replay and
# minimal scenario files left in opcert-perturb/.
PERTURB_BUDGET ?= 2
perturb: build envtest
	bash hack/shards.sh $(SHARDS) opcert-perturb bin/opcert perturb --faithful --budget $(PERTURB_BUDGET) --max-calls 2000 --shrink-runs 20

# Random fault schedules on the reference, a bounded number of seeds per
# mechanism (docs/concepts/selftest.md): a failure fails the target and leaves the
# replay and minimal scenario files in opcert-fuzz-<mechanism>/.
FUZZ_DRAW ?= 1
FUZZ_RUNS ?= 20
FUZZ_DURATION ?= 6h
FUZZ_MECHANISMS ?= stale staticpod
fuzz-seeds: build envtest
	@set -e; for m in $(FUZZ_MECHANISMS); do \
		echo "== opcert fuzz --mechanism $$m --draw $(FUZZ_DRAW) --runs $(FUZZ_RUNS) --duration $(FUZZ_DURATION)"; \
		bin/opcert fuzz --mechanism $$m --draw $(FUZZ_DRAW) --runs $(FUZZ_RUNS) --duration $(FUZZ_DURATION) --out opcert-fuzz-$$m; \
	done

# Figures for docs/concepts/performance.md: virtual-s/s, API calls, floor, detector writes.
bench: envtest
	$(GO) test -run '^$$' -bench . -benchtime 1x ./conformance/

# Every fuzz target of the module, FUZZTIME each (go test fuzzes one target
# at a time). They are found in the test files, so a new one is not left out.
# Fuzzing runs on Go 1.27 (fetched by the go command from the module proxy,
# about 10 s once): Go 1.26's fuzz coordinator can fail a target with a bare
# "context deadline exceeded" when -fuzztime ends while a worker is busy, no
# crasher written (golang/go#75804, fixed in 1.27). The module itself stays
# on Go 1.26.
FUZZ_TOOLCHAIN ?= go1.27.3
fuzz: export GOTOOLCHAIN = $(FUZZ_TOOLCHAIN)
fuzz:
	@set -eo pipefail; \
	$(GO) list -f '{{range .TestGoFiles}}{{$$.ImportPath}} {{$$.Dir}}/{{.}}{{"\n"}}{{end}}{{range .XTestGoFiles}}{{$$.ImportPath}} {{$$.Dir}}/{{.}}{{"\n"}}{{end}}' ./... | \
	while read -r pkg file; do \
		for target in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$$file"); do \
			echo "== $$target ($$pkg)"; \
			$(GO) test -run '^$$' -fuzz "^$$target\$$" -fuzztime $(FUZZTIME) "$$pkg" </dev/null; \
		done; \
	done

# What a release gives a user, built and tried (docs/install.md): the
# goreleaser snapshot of .goreleaser.yaml into dist/, go install at a version
# from a clean module cache, the container image to dist/opcert-image.tar.
GORELEASER ?= github.com/goreleaser/goreleaser/v2@v2.15.1
release-check: envtest
	GO=$(GO) GORELEASER=$(GORELEASER) bash hack/release/check.sh

# The nightly workflow (examples/kind-nightly/nightly.yaml) run for real on
# kind clusters of a node image built here (hack/kind; as root: it may
# install docker.io and debootstrap, start a Docker engine, build the image
# once into opcert's cache), torn down on every exit.
e2e-kind: envtest
	bash hack/kind/e2e.sh

clean:
	rm -rf bin dist opcert-report opcert-report-slow opcert-selftest
