# bigquery-mcp for Cloud Run: a static binary on distroless, running as nonroot.
#   docker build -t bigquery-mcp .        (or: gcloud run deploy --source .)
# The image serves streamable HTTP on $PORT (Cloud Run sets it; 8080 otherwise).

FROM golang:1.26 AS build
WORKDIR /src
# Modules first, so code edits do not re-download them.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
ARG COMMIT=
# Static and reproducible: no cgo, no paths or VCS stamps in the binary; no
# gRPC request tracing pages (grpcnotrace: the Makefile says why). The
# same flags as the Makefile, .goreleaser.yaml and .ko.yaml (checked by
# packaging/release's TestReleaseBuildFlagsAgree), so the image built here and
# the released one hold the same binary.
RUN CGO_ENABLED=0 GOOS=linux go build -trimpath -buildvcs=false -tags=grpcnotrace \
      -ldflags "-s -w -X main.version=${VERSION} -X main.commit=${COMMIT}" \
      -o /out/bigquery-mcp ./cmd/bigquery-mcp

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/bigquery-mcp /bigquery-mcp
COPY --from=build /src/LICENSE /LICENSE
USER nonroot:nonroot
EXPOSE 8080
ENTRYPOINT ["/bigquery-mcp", "http"]
