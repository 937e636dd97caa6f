#!/usr/bin/env bash
# Build local stand-ins for the Dockerfile's base images from Debian's own packages, for machines that cannot
# pull python:3.11-slim-bookworm and node:20-bookworm-slim from a container registry:
#
#   localhost/paperlab-bookworm:minbase   debootstrap --variant=minbase bookworm, imported with `podman import`
#   localhost/paperlab-python:bookworm    + python3 (3.11 on bookworm) and python3-venv     (Dockerfile PYTHON_BASE)
#   localhost/paperlab-node:bookworm      + nodejs and npm                                  (Dockerfile NODE_BASE)
#
# Cached: an image is rebuilt only when it is missing or was made by another version of this recipe (a label
# holds the recipe's hash). Prints the two build arguments to pass to `podman build`, one per line.
#
# Environment: DEBIAN_MIRROR (default: the host's own Debian mirror from its apt sources, else debootstrap's
# default); PAPERLAB_BASE_REBUILD=1 forces a rebuild. Needs root (debootstrap) and podman.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=lib.sh
. "$here/lib.sh"

MINBASE=localhost/paperlab-bookworm:minbase
PYTHON_BASE=localhost/paperlab-python:bookworm
NODE_BASE=localhost/paperlab-node:bookworm
RECIPE_LABEL=org.paperlab.base-recipe

current() {  # is image $1 present and made by this recipe?
  [ "${PAPERLAB_BASE_REBUILD:-0}" != 1 ] || return 1
  pm image exists "$1" || return 1
  [ "$(pm image inspect --format "{{ index .Labels \"$RECIPE_LABEL\" }}" "$1" 2>/dev/null)" = "$recipe" ]
}

# The host's mirror for Debian bookworm main, from deb822 (*.sources) or one-line (sources.list) apt sources:
# containers reach the same registries as the host, so the mirror that serves the host serves the image.
host_mirror() {
  local file
  for file in /etc/apt/sources.list.d/*.sources; do
    [ -f "$file" ] || continue
    awk 'BEGIN { RS = ""; FS = "\n" }
         $0 ~ /(^|\n)Suites:[^\n]*[[:space:]]bookworm([[:space:]]|\n|$)/ {
           for (i = 1; i <= NF; i++) if ($i ~ /^URIs:/) { split($i, f, /[[:space:]]+/); print f[2]; exit }
         }' "$file"
  done | head -n 1
  [ -f /etc/apt/sources.list ] && awk '$1 == "deb" && $3 == "bookworm" { print $2; exit }' /etc/apt/sources.list
  return 0
}

build_minbase() {
  [ "$(id -u)" = 0 ] || die "debootstrap needs root (it makes device nodes and chroots)"
  need_apt debootstrap debian-archive-keyring
  local mirror rootfs
  mirror="${DEBIAN_MIRROR:-$(host_mirror | head -n 1)}"
  rootfs="$(mktemp -d "${TMPDIR:-/tmp}/paperlab-rootfs.XXXXXX")"
  # Removed however the script ends; --one-file-system: never into anything debootstrap left mounted there.
  # shellcheck disable=SC2064 # expand now: the trap must remove this run's folder
  trap "rm -rf --one-file-system '$rootfs'" EXIT
  log "debootstrap --variant=minbase bookworm (mirror: ${mirror:-the default of debootstrap})"
  debootstrap --variant=minbase --include=ca-certificates bookworm "$rootfs" ${mirror:+"$mirror"} >&2

  # Slim like Debian's own container images: no documentation, manual pages or translations, no recommended
  # packages, no apt caches (also for everything apt installs later, in the bases and in the Dockerfile).
  cat >"$rootfs/etc/dpkg/dpkg.cfg.d/paperlab-slim" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/lintian/*
EOF
  cat >"$rootfs/etc/apt/apt.conf.d/paperlab-slim" <<'EOF'
APT::Install-Recommends "false";
APT::Install-Suggests "false";
Acquire::Languages "none";
EOF
  find "$rootfs/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
  rm -rf "$rootfs"/usr/share/{man,info,locale,lintian}/*
  # Security and point-release updates as well as the release itself: the host's own list when it is Debian
  # bookworm too (it names the same mirrors), else the release and its updates from the chosen mirror.
  if [ -f /etc/apt/sources.list.d/debian.sources ] && grep -q bookworm /etc/apt/sources.list.d/debian.sources; then
    rm -f "$rootfs/etc/apt/sources.list"
    cp /etc/apt/sources.list.d/debian.sources "$rootfs/etc/apt/sources.list.d/debian.sources"
  elif [ -n "$mirror" ]; then
    printf 'deb %s bookworm main\ndeb %s bookworm-updates main\n' "$mirror" "$mirror" >"$rootfs/etc/apt/sources.list"
  fi
  chroot "$rootfs" apt-get update -qq >&2
  chroot "$rootfs" env DEBIAN_FRONTEND=noninteractive apt-get -y -qq upgrade >&2
  chroot "$rootfs" apt-get clean
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/log/*.log "$rootfs"/tmp/*

  log "importing the root file system as $MINBASE"
  tar -C "$rootfs" --numeric-owner -c . \
    | pm import --change "LABEL $RECIPE_LABEL=$recipe" --change 'CMD ["/bin/bash"]' \
        --change 'ENV LANG=C.UTF-8' - "$MINBASE" >/dev/null
}

# The recipe: what makes the images (not this script's comments or plumbing).
recipe=$({ declare -f host_mirror build_minbase; cat "$here/bases.Containerfile"; } | sha256sum | cut -c1-16)
current "$MINBASE" || build_minbase
for target in python node; do
  image=$PYTHON_BASE
  [ $target = node ] && image=$NODE_BASE
  if ! current "$image"; then
    log "building $image"
    pm_build --quiet --target "$target" --build-arg MINBASE="$MINBASE" --label "$RECIPE_LABEL=$recipe" \
      -t "$image" -f "$here/bases.Containerfile" "$here" >/dev/null
  fi
done
echo "PYTHON_BASE=$PYTHON_BASE"
echo "NODE_BASE=$NODE_BASE"
