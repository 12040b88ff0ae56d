# bigquery-mcp. `make test` is what CI runs.
#
# The integration tests run goccy/bigquery-emulator in-process. It embeds
# ZetaSQL (a large C++ library built with cgo): the first build takes about
# 25 minutes on 2 cores; the Go build cache makes later builds take about a
# minute. g++ 12 cannot compile it, so the emulator is built with clang.

GO            ?= go
EMULATOR_ENV  := CGO_ENABLED=1 CC=clang CXX=clang++
VERSION       ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT        ?= $(shell git rev-parse HEAD 2>/dev/null)
# The release build flags. .goreleaser.yaml, .ko.yaml and the Dockerfile pass
# the same ones (cmd/bigquery-mcp's TestReleaseBuildFlagsAgree checks), so
# every artefact holds the same binary: static, no paths, no VCS stamp.
BUILD_FLAGS   := -trimpath -buildvcs=false
LDFLAGS       := -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)

# The real MCP clients the integration tests drive (conformance suite, MCP
# Inspector) and the Node 22 they run on, pinned in integration_test/clients.
CLIENTS_DIR   := integration_test/clients
NODE_BIN      := $(CURDIR)/$(CLIENTS_DIR)/node_modules/node/bin
CLIENT_TESTS  := TestConformanceSuite|TestInspectorCLI|TestProtocolSweep

.PHONY: all build test unit integration clients client-tests demo emulator docs lint bench clean

all: build

build:
	CGO_ENABLED=0 $(GO) build $(BUILD_FLAGS) -ldflags "$(LDFLAGS)" -o bin/bigquery-mcp ./cmd/bigquery-mcp

## test: unit tests, then the emulator-backed integration tests.
test: unit integration

unit:
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...

integration:
	cd integration_test && $(EMULATOR_ENV) $(GO) vet ./...
	cd integration_test && $(EMULATOR_ENV) $(GO) test -count=1 -timeout 30m ./...

## clients: install the pinned clients and Node 22 from the npm registry
## (package-lock.json). Without them the client tests skip, unless
## BQMCP_REQUIRE_CLIENTS=1 (set by .ci/run) makes that a failure.
clients:
	cd $(CLIENTS_DIR) && npm ci --no-audit --no-fund --loglevel=error

## client-tests: only the tests that drive the binary with real clients:
## the conformance suite, the Inspector CLI and the protocol sweep.
client-tests:
	cd integration_test && PATH="$(NODE_BIN):$$PATH" BQMCP_REQUIRE_CLIENTS=1 $(EMULATOR_ENV) \
		$(GO) test -count=1 -timeout 20m -v -run '$(CLIENT_TESTS)' .

## demo: start the emulator with the sample data and drive the real binary
## through a scripted MCP session.
demo:
	cd integration_test && $(EMULATOR_ENV) $(GO) run ./cmd/demo

## docs: regenerate docs/tools.md and the tool snapshots from the tool definitions.
docs:
	$(GO) test ./server -run 'TestToolSnapshots|TestToolReferenceIsCurrent' -update
	$(GO) test ./bqerr -run TestErrorReferenceIsCurrent -update

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet ./...

## bench: the server against the raw Go client on the emulator, side by side
## (integration_test/bench; docs/performance.md records a run), then the
## micro-benchmarks: a tool call's own cost (server), the encoder and the
## executor. CI does not run it; the integration target vets the harness.
bench:
	cd integration_test && $(EMULATOR_ENV) $(GO) run ./bench $(BENCH_FLAGS)
	$(GO) test -run '^$$' -bench . -benchmem ./server ./query/... ./resilience/...

clean:
	rm -rf bin

## emulator: run the emulator with the sample data until interrupted.
emulator:
	cd integration_test && $(EMULATOR_ENV) $(GO) run ./cmd/emulator
