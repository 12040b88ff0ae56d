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
# the same ones (packaging/release's TestReleaseBuildFlagsAgree checks), so
# every artefact holds the same binary: static, no paths, no VCS stamp.
# grpcnotrace leaves out gRPC's golang.org/x/net/trace, whose /debug/requests
# pages (never served: the server has its own mux) link html/template; its
# reflect.Value.MethodByName makes the linker keep every exported method of
# every type stored in an interface, 13 MB of the binary
# (docs/performance.md, "What each dependency costs";
# TestReleaseBinaryKeepsUnusedMethodsOut).
BUILD_FLAGS   := -trimpath -buildvcs=false -tags=grpcnotrace
LDFLAGS       := -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)
# The container image: its platforms, the non-root user (distroless's
# nonroot), and OCI labels; the last label names the server for the MCP
# registry's ownership check.
IMAGE_PLATFORMS ?= linux/amd64,linux/arm64
KO_FLAGS      := --image-user 65532:65532 --image-label org.opencontainers.image.source=https://github.com/bigquery-mcp/bigquery-mcp \
	--image-label org.opencontainers.image.version=$(VERSION) \
	--image-label org.opencontainers.image.revision=$(COMMIT) \
	--image-label org.opencontainers.image.licenses=Apache-2.0 \
	--image-label org.opencontainers.image.title=bigquery-mcp \
	--image-label io.modelcontextprotocol.server.name=io.github.bigquery-mcp/bigquery-mcp

# The real MCP clients the integration tests drive (conformance suite, MCP
# Inspector) and the Node 22 they run on, pinned in integration_test/clients.
CLIENTS_DIR   := integration_test/clients
NODE_BIN      := $(CURDIR)/$(CLIENTS_DIR)/node_modules/node/bin
CLIENT_TESTS  := TestConformanceSuite|TestInspectorCLI|TestProtocolSweep|TestBundle|TestAppInBrowser

# Release tooling, pinned and run from the module proxy (docs/release.md).
# GoReleaser drops the whole git state (the commit, and the commit time that
# makes builds reproducible) when the clone has no remote: name one then.
GIT_REMOTE_ENV := $(if $(shell git remote 2>/dev/null),,GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.url \
	GIT_CONFIG_VALUE_0=https://github.com/bigquery-mcp/bigquery-mcp.git)
GORELEASER    := $(GIT_REMOTE_ENV) $(GO) run github.com/goreleaser/goreleaser/v2@v2.15.1
KO            := $(GO) run github.com/google/ko@v0.19.1
# The image's home; the MCP registry's name for the server.
IMAGE_REPO    ?= ghcr.io/bigquery-mcp/bigquery-mcp

.PHONY: all build test unit unit-clock integration clients ui client-tests demo emulator docs lint bench clean \
	release-check release-snapshot bundle server-json image image-check image-publish

all: build

build:
	CGO_ENABLED=0 $(GO) build $(BUILD_FLAGS) -ldflags "$(LDFLAGS)" -o bin/bigquery-mcp ./cmd/bigquery-mcp

## test: unit tests, the release checks, then the emulator-backed integration tests.
test: unit unit-clock release-check integration

unit:
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...

## unit-clock: the tests whose fake clocks start at redistest.Today, run
## again as though 400 days had passed since they were written (and 400
## days early): a test that needs its fake clock to agree with a real one
## (Redis's, the process's) fails here on the day it is written.
CLOCK_PKGS = $(sort $(dir $(shell git grep -l 'redistest\.Today' -- '*_test.go')))
CLOCK_PKGS := $(addprefix ./,$(CLOCK_PKGS))
unit-clock:
	BQMCP_TEST_CLOCK_DAYS=-400 $(GO) test -count=1 $(CLOCK_PKGS)
	BQMCP_TEST_CLOCK_DAYS=400 $(GO) test -count=1 $(CLOCK_PKGS)

integration:
	cd integration_test && $(EMULATOR_ENV) $(GO) vet ./...
	cd integration_test && $(EMULATOR_ENV) $(GO) test -count=1 -timeout 30m ./...

## clients: install the pinned clients and Node 22 from the npm registry
## (package-lock.json). Without them the client tests skip, unless
## BQMCP_REQUIRE_CLIENTS=1 (set by .ci/run) makes that a failure.
clients:
	cd $(CLIENTS_DIR) && npm ci --no-audit --no-fund --loglevel=error
	cd ui && PATH="$(NODE_BIN):$$PATH" npm ci --no-audit --no-fund --loglevel=error

## ui: rebuild the MCP App (ui/src -> ui/app.html, embedded in the binary)
## with the pinned esbuild (`make clients` first). Commit ui/app.html:
## ui's TestBundleIsCurrent fails when it is not a fresh build.
ui:
	cd ui && PATH="$(NODE_BIN):$$PATH" node build.mjs

## client-tests: only the tests that drive the binary with real clients:
## the conformance suite, the Inspector CLI, the protocol sweep and the
## MCP Bundle through the mcpb CLI.
client-tests:
	cd integration_test && PATH="$(NODE_BIN):$$PATH" BQMCP_REQUIRE_CLIENTS=1 $(EMULATOR_ENV) \
		$(GO) test -count=1 -timeout 20m -v -run '$(CLIENT_TESTS)' .

## demo: start the emulator with the sample data and drive the real binary
## through a scripted MCP session.
demo:
	cd integration_test && $(EMULATOR_ENV) $(GO) run ./cmd/demo

## docs: regenerate docs/tools.md, the tool snapshots and the app's result types
## (ui/src/results.ts; then `make ui` rebuilds app.html) from the tool definitions.
docs:
	$(GO) test ./server -run 'TestToolSnapshots|TestToolReferenceIsCurrent|TestAppResultTypes' -update
	$(GO) test ./bqerr -run TestErrorReferenceIsCurrent -update

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet ./...

## bench: the server against the raw Go client on the emulator, side by side
## (integration_test/bench; docs/performance.md records a run), and against
## the floor (integration_test/bench/floor: only the design card's packages,
## one tool) for start, memory at start and size, both built with
## BUILD_FLAGS and stripped; then the micro-benchmarks: a tool call's own
## cost (server), a round trip through the stdio transport, the encoder, the
## executor and the SQL reader on the inputs
## an attacker would choose (sqltext). CI does not run it; the integration
## target vets the harness.
bench:
	cd integration_test && $(EMULATOR_ENV) $(GO) run ./bench -build-flags '$(BUILD_FLAGS)' $(BENCH_FLAGS)
	$(GO) test -run '^$$' -bench . -benchmem ./server ./query/... ./resilience/... ./governance/... ./export/... ./sqltext/ ./semantic/ ./stdio/
	@echo "the MCP App: bundle size (as served, and its script unpacked), and 10,000 rows x 10 columns rendered in headless Chromium"
	cd ui && PATH="$(NODE_BIN):$$PATH" node build.mjs --check
	cd integration_test && PATH="$(NODE_BIN):$$PATH" $(EMULATOR_ENV) $(GO) test -count=1 -run 'TestAppInBrowser/10000_rows' -v . | grep -E '10,000 rows|^(ok|FAIL|---)'
	@echo "every BigQuery type exported as JSON Lines, CSV and Parquet: 20,000 rows (CI exports 3,000)"
	cd integration_test && BQMCP_EVERY_TYPE_ROWS=20000 $(EMULATOR_ENV) $(GO) test -count=1 -timeout 30m -run 'TestExportEveryType' -v . | grep -E 'rows|^(ok|FAIL|---)'

clean:
	rm -rf bin dist

## release-snapshot: every artefact into dist/ without publishing: the
## archives for six platforms with checksums.txt (GoReleaser), one .mcpb
## bundle per archive and server.json. Versioned like the next patch
## release, "-snapshot+<commit>". `make image` builds the container image.
release-snapshot:
	$(GORELEASER) release --snapshot --clean
	$(MAKE) bundle server-json

## bundle: an MCP Bundle (.mcpb) per release archive in dist/, packed and
## validated by the pinned @anthropic-ai/mcpb CLI (`make clients` first).
bundle:
	$(GO) run ./packaging/release bundle -dist dist -clients $(CLIENTS_DIR)

## server-json: dist/server.json for the MCP registry, with the release's
## version, image and bundle digests, checked against the schema in
## packaging/registry.
server-json:
	$(GO) run ./packaging/release server-json -dist dist -image $(IMAGE_REPO)

## release-check: what CI proves about the release without the network:
## the GoReleaser config is valid, and two snapshot builds of one platform
## (linux/amd64), the second from an empty build cache, give byte-identical
## archives whose contents, bundle and server.json packaging/release's tests
## check; then image-check.
release-check:
	$(GORELEASER) check
	sed -e 's/^    goos: .*/    goos: [linux]/' -e 's/^    goarch: .*/    goarch: [amd64]/' .goreleaser.yaml > dist-one.goreleaser.yaml
	sed -e 's|^      - CGO_ENABLED=0|&\n      - GOCACHE=$(CURDIR)/dist-one.gocache|' dist-one.goreleaser.yaml > dist-one-cold.goreleaser.yaml
	$(GORELEASER) release --snapshot --clean --config dist-one.goreleaser.yaml
	cp dist/checksums.txt dist-one.checksums.txt
	@echo "the second build compiles everything again, in an empty build cache (about 2 minutes)"
	rm -rf dist-one.gocache
	$(GORELEASER) release --snapshot --clean --config dist-one-cold.goreleaser.yaml
	rm -rf dist-one.gocache
	cmp dist-one.checksums.txt dist/checksums.txt || { echo "the two snapshot builds differ: not reproducible"; diff dist-one.checksums.txt dist/checksums.txt; exit 1; }
	@cat dist/checksums.txt
	rm -f dist-one.goreleaser.yaml dist-one-cold.goreleaser.yaml dist-one.checksums.txt
	$(MAKE) bundle server-json
	BQMCP_RELEASE_DIST=$(CURDIR)/dist $(GO) test -count=1 -run 'TestRelease' ./packaging/release
	$(MAKE) image-check

KO_ENV        = VERSION=$(VERSION) COMMIT=$(COMMIT) KO_DOCKER_REPO=$(IMAGE_REPO) \
	SOURCE_DATE_EPOCH=$$(git log -1 --format=%ct) KO_DATA_DATE_EPOCH=$$(git log -1 --format=%ct)

## image: the container image (.ko.yaml) for linux/amd64 and arm64 as an
## OCI layout in dist/image, without a Docker engine and without pushing.
## ko pulls the distroless base image, so this needs the network.
image:
	$(KO_ENV) $(KO) build ./cmd/bigquery-mcp --platform $(IMAGE_PLATFORMS) \
		--bare --push=false --oci-layout-path dist/image --sbom none $(KO_FLAGS)

## image-check: `make image` offline on a stand-in for the distroless base,
## then packaging/release's TestReleaseImageDist checks the image.
image-check:
	GO=$(GO) packaging/image-check.sh

## image-publish: the same image pushed to $(IMAGE_REPO), tagged with the version.
image-publish:
	$(KO_ENV) $(KO) build ./cmd/bigquery-mcp --platform $(IMAGE_PLATFORMS) \
		--bare --tags $(VERSION),latest --sbom none $(KO_FLAGS)

## emulator: run the emulator with the sample data until interrupted.
emulator:
	cd integration_test && $(EMULATOR_ENV) $(GO) run ./cmd/emulator
