#!/usr/bin/env bash
# make image-check: builds the container image (.ko.yaml, make image) offline
# and has packaging/release's TestReleaseImageDist check it: entrypoint,
# non-root user, no shell, labels, and the image's binary answers --version
# and serves http by default.
#
# ko normally pulls gcr.io/distroless/static-debian12:nonroot, which this
# machine and CI cannot reach. Here it builds on a stand-in served by an
# in-memory registry on localhost: an image with distroless's /etc/passwd
# and nothing else (no shell, like distroless). The release itself (make
# image-publish) uses the real base; everything this checks comes from
# .ko.yaml and the Makefile, not from the base.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
GGCR=github.com/google/go-containerregistry@v0.21.7

work=$(mktemp -d)
registry_pid=
cleanup() { [ -n "$registry_pid" ] && kill "$registry_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

GOBIN="$work/bin" $GO install "${GGCR%@*}/cmd/crane@${GGCR#*@}" "${GGCR%@*}/cmd/registry@${GGCR#*@}"
crane="$work/bin/crane"

"$work/bin/registry" -port 0 2>"$work/registry.log" &
registry_pid=$!
port=
for _ in $(seq 1 100); do
  port=$(sed -n 's/.*serving on port \([0-9]*\).*/\1/p' "$work/registry.log")
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { echo "the local registry did not start:"; cat "$work/registry.log"; exit 1; }
base="localhost:$port/distroless-standin"

mkdir -p "$work/root/etc" "$work/root/home/nonroot" "$work/root/tmp"
printf 'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' > "$work/root/etc/passwd"
printf 'root:x:0:\nnobody:x:65534:\nnonroot:x:65532:\n' > "$work/root/etc/group"
tar --owner=0 --group=0 --mtime=@0 -C "$work/root" -cf "$work/base.tar" etc home tmp

"$crane" append --oci-empty-base -f "$work/base.tar" -t "$base:layer" >/dev/null
"$crane" mutate "$base:layer" --set-platform linux/amd64 --user 65532:65532 -t "$base:amd64" >/dev/null
"$crane" index append -m "$base:amd64" -t "$base:nonroot" >/dev/null

# Twice: the same commit gives the same image (ko stamps the commit time).
rm -rf dist/image
KO_DEFAULTBASEIMAGE="$base:nonroot" make --no-print-directory image IMAGE_PLATFORMS=linux/amd64
mv dist/image "$work/image-first"
KO_DEFAULTBASEIMAGE="$base:nonroot" make --no-print-directory image IMAGE_PLATFORMS=linux/amd64
cmp "$work/image-first/index.json" dist/image/index.json ||
  { echo "two image builds of one commit differ: not reproducible"; exit 1; }
BQMCP_RELEASE_IMAGE="$PWD/dist/image" $GO test -count=1 -run 'TestReleaseImageDist' ./packaging/release
