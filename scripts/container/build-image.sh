#!/usr/bin/env bash
# Build the PaperLab image with podman: `scripts/container/build-image.sh [extra podman build arguments]`.
#
# - Base images: by default the local Debian bookworm stand-ins of build-base.sh (built once, then cached), for
#   machines that cannot pull from a container registry; PAPERLAB_BASES=official uses the Dockerfile's defaults
#   (python:3.11-slim-bookworm, node:20-bookworm-slim) instead.
# - torch: the CPU wheel of the version pyproject.toml pins, taken from TORCH_WHEEL (a .whl file) or else from the
#   find-links folders of this machine's pip configuration (`pip config list`), and linked into the build
#   context's scripts/container/wheels/. Without one, set TORCH_INDEX_URL to PyTorch's CPU wheel index.
#
# - Downloads (npm, pip) trust the CA bundle PAPERLAB_BUILD_CA (default: PIP_CERT, else the system bundle), passed
#   as the build secret `ca`: where the network re-signs TLS, the image's own bundle would not do.
#
# PAPERLAB_IMAGE names the image (default localhost/paperlab:latest). Prints the image name on stdout.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
# shellcheck source=lib.sh
. "$here/lib.sh"

IMAGE=${PAPERLAB_IMAGE:-localhost/paperlab:latest}
WHEELS_DIR="$here/wheels"

torch_version() {
  sed -n 's/^[[:space:]]*"torch==\([^"]*\)".*/\1/p' "$repo/pyproject.toml" | head -n 1
}

# Folders pip looks in for wheels on this machine: PIP_FIND_LINKS and every *find-links key of `pip config list`.
pip_find_links() {
  local pip_cmd=(pip)
  command -v pip >/dev/null || pip_cmd=(python3 -m pip)
  {
    printf '%s\n' ${PIP_FIND_LINKS:-}
    "${pip_cmd[@]}" config list 2>/dev/null | sed -n "s/^[^=]*find-links='\(.*\)'$/\1/p" | tr ' ' '\n'
  } | sed 's#^file://##' | awk 'NF && !seen[$0]++'
}

find_torch_wheel() {
  local version=$1 dir wheel
  if [ -n "${TORCH_WHEEL:-}" ]; then
    [ -f "$TORCH_WHEEL" ] || die "TORCH_WHEEL=$TORCH_WHEEL is not a file"
    echo "$TORCH_WHEEL"
    return
  fi
  while read -r dir; do
    [ -d "$dir" ] || continue
    for wheel in "$dir"/torch-"$version"+cpu-cp311-cp311-*x86_64.whl; do
      [ -f "$wheel" ] && { echo "$wheel"; return; }
    done
  done < <(pip_find_links)
  return 0
}

command -v podman >/dev/null || need_apt podman runc
cd "$repo"
version="$(torch_version)"
[ -n "$version" ] || die "no exact torch pin (\"torch==X\") in pyproject.toml"

torch_args=()
if [ -n "${TORCH_INDEX_URL:-}" ]; then
  torch_args=(--build-arg "TORCH_INDEX_URL=$TORCH_INDEX_URL")
else
  wheel="$(find_torch_wheel "$version")"
  [ -n "$wheel" ] || die "no CPU wheel of torch $version (torch-$version+cpu-cp311-*.whl) in TORCH_WHEEL or in pip's \
find-links folders ($(pip_find_links | tr '\n' ' ')); set TORCH_WHEEL=/path/to/it or TORCH_INDEX_URL=<PyTorch's CPU index>"
  # Only the wheel of this build in the context: stale wheels would be sent along for nothing.
  find "$WHEELS_DIR" -maxdepth 1 -name '*.whl' ! -name "$(basename "$wheel")" -delete
  [ -f "$WHEELS_DIR/$(basename "$wheel")" ] || ln -f "$wheel" "$WHEELS_DIR/" 2>/dev/null || cp "$wheel" "$WHEELS_DIR/"
  torch_args=(--build-arg TORCH_FIND_LINKS=/wheels)
  log "torch: $(basename "$wheel")"
fi

base_args=()
if [ "${PAPERLAB_BASES:-local}" != official ]; then
  while IFS= read -r line; do
    base_args+=(--build-arg "$line")
  done < <("$here/build-base.sh")
fi

ca_args=()
ca_file=${PAPERLAB_BUILD_CA:-${PIP_CERT:-/etc/ssl/certs/ca-certificates.crt}}
[ -f "$ca_file" ] && ca_args=(--secret "id=ca,src=$ca_file")

log "building $IMAGE"
pm_build --layers "${base_args[@]}" "${torch_args[@]}" "${ca_args[@]}" --build-arg "TORCH_VERSION=$version" \
  -t "$IMAGE" -f Dockerfile "$@" . >&2
echo "$IMAGE"
