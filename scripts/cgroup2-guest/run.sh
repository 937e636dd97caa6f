#!/usr/bin/env bash
# make test-cgroup2: prove the sandbox on the unified cgroup v2 hierarchy, in a Debian 12 guest under QEMU.
#
# Builds (once, then cached) a guest of Debian's own kernel and a minbase root file system with the project's
# dependencies (build-image.sh), adds this checkout's files as a second initramfs archive, boots it with cgroup
# v1 disabled, and collects the guest's result lines from the serial console (summarise.py). Fails on any
# failed, skipped, missing or timed-out test. Software emulation (TCG): KVM guests fail on these hosts (nested
# KVM: with -cpu host QEMU aborts setting MSR 0x10a; without that MSR, or with -cpu kvm64, the guest hangs
# before the kernel prints its first line).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
python=${PYTHON:-python3}
cache=${PAPERLAB_CGROUP2_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paperlab-cgroup2-guest}
guest_timeout_s=${CGROUP2_GUEST_TIMEOUT_S:-1140}  # 19 min: the target must stay under 20 with a cached image
memory_mb=${CGROUP2_GUEST_MEMORY_MB:-6144}  # the root file system (1.3 GB) lives in RAM; the pool needs two templates
modes=${CGROUP2_GUEST_MODES:-}  # e.g. "delegated,container": only those runs (debugging; the summary then fails)
artifacts="$repo/test-artifacts"
started=$SECONDS

skip_or_fail() {
  if [[ "${CI:-}" == true ]]; then
    echo "test-cgroup2: FAILED: $*" >&2
    exit 1
  fi
  echo "test-cgroup2: SKIPPED: $*" >&2
  exit 0
}

tools=(qemu-system-x86_64 debootstrap zstd cpio dpkg-deb apt-get)
missing=()
for tool in "${tools[@]}"; do command -v "$tool" >/dev/null || missing+=("$tool"); done
if ((${#missing[@]})); then
  if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
    echo "test-cgroup2: installing qemu-system-x86 debootstrap zstd cpio (missing: ${missing[*]})" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      qemu-system-x86 debootstrap zstd cpio >/dev/null
  else
    skip_or_fail "missing ${missing[*]} and cannot install them (needs root and apt-get)"
  fi
fi
[[ $(id -u) == 0 ]] || skip_or_fail "building the guest's root file system (debootstrap, chroot) needs root"
qemu-system-x86_64 -accel help 2>/dev/null | grep -qx tcg || skip_or_fail "QEMU cannot emulate here (no TCG)"

mkdir -p "$cache" "$artifacts"
image=$("$here/build-image.sh" "$cache" "$python")
echo "test-cgroup2: guest image $image ($(cat "$image/kernel-package"); built or reused in $((SECONDS - started)) s)"

# This checkout's files (what git tracks or would track) as the guest's /srv/paperlab, compiled on the host
# (same Python minor version) so the guest does not compile them under emulation.
run=$(mktemp -d "$cache/run.XXXXXX")
trap 'rm -rf "$run"' EXIT
mkdir -p "$run/overlay/srv/paperlab"
(cd "$repo" && git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' file; do
  [[ -f "$file" && ! -L "$file" ]] && printf '%s\0' "$file"
done | cpio --null --pass-through --make-directories --preserve-modification-time --quiet "$run/overlay/srv/paperlab")
cp "$here/init" "$run/overlay/init"
"$python" -m compileall -q -j 0 "$run/overlay/srv/paperlab/grader" "$run/overlay/srv/paperlab/tests" \
  "$run/overlay/srv/paperlab/problems" >/dev/null || true
(cd "$run/overlay" && find . -mindepth 1 -print0 | cpio --null --create --format=newc --owner=0:0 --quiet) \
  | zstd -q -1 -o "$run/project.cpio.zst"
cat "$image/base.cpio.zst" "$run/project.cpio.zst" >"$run/initrd"

log=${CGROUP2_GUEST_LOG:-$artifacts/cgroup2-guest.log}
echo "test-cgroup2: booting the guest (TCG, -smp 2, ${memory_mb} MiB, at most ${guest_timeout_s} s); serial log: $log"
boot_started=$SECONDS
set +e
timeout --kill-after=10 "$guest_timeout_s" qemu-system-x86_64 \
  -machine pc -accel tcg,thread=multi -cpu max -smp 2 -m "$memory_mb" \
  -nographic -no-reboot -nic none -monitor none -serial stdio \
  -kernel "$image/vmlinuz" -initrd "$run/initrd" \
  -append "console=ttyS0 rdinit=/init panic=-1 loglevel=4 systemd.unified_cgroup_hierarchy=1 cgroup_no_v1=all${modes:+ paperlab.modes=$modes}" \
  </dev/null >"$log" 2>&1 &
qemu=$!
# Show the guest's own lines as they come, not the kernel's.
tail -n +1 -f --pid=$qemu "$log" 2>/dev/null | awk '{sub(/\r$/, "")} /^----/ {show = !show; print; fflush(); next} show || /^CGROUP2-/ {print; fflush()}' &
wait $qemu
qemu_status=$?
set -e
sleep 1
echo "test-cgroup2: guest ran $((SECONDS - boot_started)) s (QEMU exit $qemu_status); whole target $((SECONDS - started)) s"
"$python" "$here/summarise.py" "$log" --qemu-status "$qemu_status" --wall-s "$((SECONDS - boot_started))"
