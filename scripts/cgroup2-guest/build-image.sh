#!/usr/bin/env bash
# Build (or reuse) the cgroup v2 test guest: Debian's own kernel and a Debian 12 minbase root file system with
# Debian's Python 3.11, bubblewrap and a virtualenv holding the project's dependencies (CPU torch included).
# Usage: build-image.sh CACHE_DIR PYTHON   -> prints the image directory (vmlinuz, base.cpio.zst)
#
# The image depends only on this script and the project's dependencies (its code travels in a second, per-run
# archive: run.sh), so it is built once per change of either and reused from CACHE_DIR afterwards.
set -euo pipefail
# The image's path is this script's only output: everything the tools below print goes to stderr (apt-get
# download prints its "Get:1 ..." lines on stdout, which the caller took for the path).
exec 3>&1 1>&2
cache=$1
python=$2
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
mirror=${CGROUP2_GUEST_MIRROR:-http://deb.debian.org/debian}
dependencies=$("$python" -c 'import sys, tomllib; print(tomllib.load(open(sys.argv[1], "rb"))["project"])' \
  "$repo/pyproject.toml")
key=$( (cat "$0"; echo "$dependencies") | sha256sum | cut -c1-16)
image="$cache/image-$key"
if [[ -s "$image/base.cpio.zst" && -s "$image/vmlinuz" ]]; then
  echo "$image" >&3
  exit 0
fi
log() { echo "[build-image] $*" >&2; }
work="$cache/build-$key.tmp"
# debootstrap mounts /proc (and more) inside the tree it builds; a build killed midway leaves them mounted, and
# rm -rf cannot remove a mounted /proc: every later build on the machine failed here. Unmount what lies under the
# work tree, deepest first, before removing it.
clean_work() {
  [[ -d "$work" ]] || return 0
  awk -v root="$work/" 'index($2, root) == 1 {print $2}' /proc/mounts | sort -r | while read -r mounted; do
    umount -l "$mounted" || true
  done
  rm -rf "$work"
}
clean_work
mkdir -p "$work"
trap clean_work EXIT
started=$SECONDS

# Debian's kernel, unpacked only (never installed on the host). The metapackage names the current ABI.
kernel_pkg=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
[[ -n "$kernel_pkg" ]] || { echo "cannot find Debian's linux-image-*-amd64 package (apt-get update?)" >&2; exit 1; }
log "kernel: $kernel_pkg"
(cd "$work" && apt-get download -q "$kernel_pkg" 2>/dev/null)
dpkg-deb -x "$work"/linux-image-*.deb "$work/kernel"

# A minimal Debian 12. debootstrap keeps merged /usr: /bin, /sbin and /lib stay symlinks into /usr, which the
# sandbox's bubblewrap command line (symlinks to usr/*) expects.
log "debootstrap bookworm (minbase)"
root="$work/rootfs"
debootstrap --variant=minbase --include=python3,python3-venv,bubblewrap,iproute2,procps \
  bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 || { tail -20 "$work/debootstrap.log" >&2; exit 1; }

# The project's dependencies as wheels fetched on the host (the guest has no network), then installed by the
# guest's own interpreter in a chroot: the virtualenv is Debian's Python 3.11's, as an operator would make it.
log "wheels for the project's dependencies"
mkdir -p "$root/tmp/wheels" "$root/srv/paperlab"
"$python" -m pip download --quiet --dest "$root/tmp/wheels" "$repo" 'setuptools>=68' wheel \
  'pytest>=8.3,<10' 'pytest-timeout>=2.3,<3' 'httpx>=0.27,<1' \
  'async-timeout>=4.0.3'  # redis needs it on Python < 3.11.3: the host's pip may be newer than Debian's 3.11.2
rm -f "$root"/tmp/wheels/paperlab-*
# An editable install needs the packages' folders; run.sh puts the checkout's files there for every run.
cp "$repo/pyproject.toml" "$repo/README.md" "$root/srv/paperlab/"
mkdir -p "$root/srv/paperlab/grader" "$root/srv/paperlab/app"
touch "$root/srv/paperlab/grader/__init__.py" "$root/srv/paperlab/app/__init__.py"
log "virtualenv /opt/venv in the guest"
env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin /usr/sbin/chroot "$root" /usr/bin/python3 -m venv /opt/venv
env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin /usr/sbin/chroot "$root" /opt/venv/bin/pip install --quiet --no-index --find-links /tmp/wheels -e /srv/paperlab \
  pytest pytest-timeout httpx
rm -rf "$root/tmp/wheels" "$root/srv/paperlab"/* "$root/srv/paperlab"/*.egg-info

# An unprivileged user for the delegated run (uid 1000, like a service's User=).
/usr/sbin/chroot "$root" /usr/sbin/useradd --create-home --uid 1000 --shell /bin/sh paperlab

# Trim what a guest never reads: the archive is unpacked into the guest's RAM at every boot.
rm -rf "$root"/var/cache/apt/* "$root"/var/lib/apt/lists/* "$root"/usr/share/doc "$root"/usr/share/man \
  "$root"/usr/share/locale "$root"/usr/share/info "$root/opt/venv/lib/python3.11/site-packages/torch/include"

log "packing the root file system"
mkdir -p "$image.tmp"
cp "$work"/kernel/boot/vmlinuz-* "$image.tmp/vmlinuz"
(cd "$root" && find . -mindepth 1 -print0 | cpio --null --create --format=newc --quiet) \
  | zstd -q -T0 -3 -o "$image.tmp/base.cpio.zst"
echo "$kernel_pkg" >"$image.tmp/kernel-package"
rm -rf "$image"
mv "$image.tmp" "$image"
log "image built in $((SECONDS - started)) s: $(du -sh "$image" | cut -f1)"
echo "$image" >&3
