# Shared by the scripts in scripts/container/ (sourced, not run): how podman is called here.
#
# PAPERLAB_PODMAN_RUNTIME: the OCI runtime. runc by default when it is installed: crun (podman's usual default)
#   refuses hosts with a hybrid cgroup layout (v1 controllers beside a v2 mount), which some VMs have.
# PAPERLAB_CONTAINER_ULIMITS: resource limits every container gets. Stated explicitly because podman's defaults
#   (the hard limits of its own process) can exceed what a VM lets a container set, and then nothing starts.

PAPERLAB_CONTAINER_ULIMITS=${PAPERLAB_CONTAINER_ULIMITS:---ulimit nofile=4096:4096 --ulimit nproc=1024:1024}
if [ -z "${PAPERLAB_PODMAN_RUNTIME:-}" ] && command -v runc >/dev/null 2>&1; then
  PAPERLAB_PODMAN_RUNTIME=runc
fi

# podman with the runtime chosen above; every call in these scripts goes through it.
pm() {
  podman ${PAPERLAB_PODMAN_RUNTIME:+--runtime "$PAPERLAB_PODMAN_RUNTIME"} "$@"
}

# `podman build` with the limits above and the host's network (RUN steps reach the package registries the host
# reaches, through the same resolver).
pm_build() {
  # shellcheck disable=SC2086 # the limits are several words on purpose
  pm build --network host $PAPERLAB_CONTAINER_ULIMITS "$@"
}

log() {
  printf '[%s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2
}

die() {
  printf 'error: %s\n' "$*" >&2
  exit 1
}

# Install Debian packages that are missing (as root, with apt), e.g. `need_apt podman runc`. Each package name
# given is checked, so list what is needed beyond the Depends too (debootstrap's keyring).
need_apt() {
  local missing=()
  local package
  for package in "$@"; do
    dpkg-query -W -f '${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  command -v apt-get >/dev/null || die "missing ${missing[*]}, and no apt-get to install them with"
  [ "$(id -u)" = 0 ] || die "missing ${missing[*]}: install them (apt-get install ${missing[*]}) or run as root"
  log "installing ${missing[*]} with apt"
  # Another apt on a shared machine holds the lock for a while: wait for it rather than fail.
  apt-get -o DPkg::Lock::Timeout=600 update -qq
  # No recommended packages: they would bring rootless helpers for podman, and a Docker daemon for docker-compose.
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
}
