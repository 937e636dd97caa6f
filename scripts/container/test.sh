#!/usr/bin/env bash
# `make container-test`: build PaperLab's image and run it as docker-compose.yml describes, against this machine's
# PostgreSQL and Redis, then prove through the HTTP API that it grades in the sandbox and loses nothing:
#
#   1. docker-compose.yml is valid (docker-compose config), and the web and worker settings the test uses are
#      read from it (privileges, user, command, the environment's names);
#   2. the image builds (scripts/container/build-image.sh: local Debian bases, the CPU torch wheel);
#   3. one web container and two worker containers (one grading process each) start on the host's network,
#      with a database (paperlab_ctr) and a Redis db index (7) of their own, and /healthz says bubblewrap;
#   4. every process in them runs as the unprivileged user, without capabilities;
#   5. the MoCo reference is solved, a known mutant is not, and a submission cannot see the image's /srv;
#   6. a worker container SIGKILLed mid-grading loses nothing: its submission is graded by the other one.
#
# Everything it starts is removed on success and on failure. Skips (exit 0) only where podman cannot run at all,
# and never with CI=true. Environment: PAPERLAB_CTR_PG (psql connection options, default -h 127.0.0.1 -U
# postgres), PAPERLAB_CTR_REDIS_HOST/PORT (127.0.0.1 6379); the rest as in build-image.sh and lib.sh.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
# shellcheck source=lib.sh
. "$here/lib.sh"
cd "$repo"

NAME=paperlab-ctr
DB=paperlab_ctr
REDIS_DB=7
WORKERS=2
read -r -a PG <<<"${PAPERLAB_CTR_PG:--h 127.0.0.1 -U postgres}"
REDIS_HOST=${PAPERLAB_CTR_REDIS_HOST:-127.0.0.1}
REDIS_PORT=${PAPERLAB_CTR_REDIS_PORT:-6379}
started_at=$(date +%s)

elapsed() {
  echo $(($(date +%s) - started_at))
}

skip_or_fail() {
  if [ "${CI:-}" = true ]; then
    die "container test cannot run: $*"
  fi
  echo "container-test SKIPPED: $*" >&2
  exit 0
}

# -- tools -----------------------------------------------------------------------------------------------------
if ! command -v podman >/dev/null || ! command -v runc >/dev/null || ! command -v docker-compose >/dev/null; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    skip_or_fail "podman, runc and docker-compose are not installed, and this is not root with apt to install them"
  fi
  need_apt podman runc docker-compose
fi
pm info >/dev/null 2>&1 || skip_or_fail "podman cannot run here: $(pm info 2>&1 | tail -n 1)"
for tool in psql createdb dropdb redis-cli python3; do
  command -v "$tool" >/dev/null || die "$tool is needed (the machine's PostgreSQL and Redis clients, python3)"
done

# -- 1. the compose file ---------------------------------------------------------------------------------------
compose() {  # docker-compose with the values its file requires; they do not matter for what is read from it
  POSTGRES_PASSWORD=unused PAPERLAB_SECRET_KEY=unused-unused-unused docker-compose -f "$repo/docker-compose.yml" "$@"
}
compose config -q
config="$(compose config)"
from_compose() {  # SERVICE flags|command|env, one item per line
  python3 "$here/compose_flags.py" "$1" "$2" <<<"$config"
}
mapfile -t web_flags < <(from_compose web flags)
mapfile -t web_command < <(from_compose web command)
mapfile -t worker_flags < <(from_compose worker flags)
mapfile -t worker_command < <(from_compose worker command)
env_names="$(from_compose web env | tr '\n' ' ')"
[ "$env_names" = "$(from_compose worker env | tr '\n' ' ')" ] || die "web and worker environments differ in compose"
[ "$env_names" = "CELERY_BROKER_URL DATABASE_URL PAPERLAB_SECRET_KEY " ] \
  || die "docker-compose.yml's environment is now '$env_names': give the test's containers the same variables"
log "docker-compose.yml is valid; worker: ${worker_flags[*]}; web: ${web_flags[*]}"

# -- 2. the image ----------------------------------------------------------------------------------------------
# The build's own output goes to a log (var/ is git-ignored); its end is shown when it fails.
mkdir -p "$repo/var/container-test"
build_log="$repo/var/container-test/build.log"
build_started=$(date +%s)
if ! image="$("$here/build-image.sh" 2>"$build_log")"; then
  tail -n 60 "$build_log" >&2
  die "the image did not build (whole log: $build_log)"
fi
build_s=$(($(date +%s) - build_started))
grep -E '^\[[0-9:]{8}\]' "$build_log" >&2 || true  # the build scripts' own steps
log "image $image built in ${build_s} s: $(pm image inspect --format '{{.Size}}' "$image" | numfmt --to=si) bytes"
log "largest layers (podman history):"
pm history --format json "$image" | python3 -c '
import json, re, sys
for layer in sorted(json.load(sys.stdin), key=lambda layer: -layer["size"])[:4]:
    step = re.sub(r"^[|][0-9]+ ([A-Z_]+=[^ ]* )*|/bin/sh -c (#[(]nop[)] )?|--mount=[^ ]+ +|if \[ -f /run/secrets/ca "
                  r"\]; then export [A-Z_]+=/run/secrets/ca; fi +&& ", "", layer["CreatedBy"])
    print("%9.1f MB  %s" % (layer["size"] / 1e6, step[:120]))' >&2

# -- 3. the site -----------------------------------------------------------------------------------------------
containers=("$NAME-web")
for i in $(seq "$WORKERS"); do containers+=("$NAME-worker$i"); done

cleanup() {
  local status=$?
  if [ $status -ne 0 ]; then
    for container in "${containers[@]}"; do
      pm container exists "$container" 2>/dev/null || continue
      echo "---- last lines of $container's log" >&2
      pm logs --tail 25 "$container" >&2 2>&1 || true
    done
  fi
  pm rm -f -t 0 "${containers[@]}" >/dev/null 2>&1 || true
  dropdb "${PG[@]}" --if-exists "$DB" >/dev/null 2>&1 || true
  redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" -n "$REDIS_DB" flushdb >/dev/null 2>&1 || true
  log "removed the containers, database $DB and Redis db $REDIS_DB ($( [ $status -eq 0 ] && echo passed || echo FAILED), $(elapsed) s in all)"
  exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM

pm rm -f -t 0 "${containers[@]}" >/dev/null 2>&1 || true  # left by a run that was killed
psql "${PG[@]}" -d postgres -qc 'select 1' >/dev/null || die "PostgreSQL does not answer (psql ${PG[*]})"
redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" ping >/dev/null || die "Redis does not answer on $REDIS_HOST:$REDIS_PORT"
dropdb "${PG[@]}" --if-exists "$DB" 2>/dev/null
createdb "${PG[@]}" "$DB"
redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" -n "$REDIS_DB" flushdb >/dev/null

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
pg_user="$(psql "${PG[@]}" -d "$DB" -tAc 'select current_user')"
env_args=(
  # docker-compose.yml's variables, with this machine's services in place of the compose network's
  -e "DATABASE_URL=postgresql+psycopg://$pg_user@127.0.0.1:5432/$DB"
  -e "CELERY_BROKER_URL=redis://$REDIS_HOST:$REDIS_PORT/$REDIS_DB"
  -e "PAPERLAB_SECRET_KEY=$(python3 -c 'import secrets; print(secrets.token_hex(16))')"
  # Test only: a killed worker's task is handed on in seconds rather than minutes.
  -e PAPERLAB_CELERY_VISIBILITY_TIMEOUT_S=20 -e PAPERLAB_GRADING_LEASE_MARGIN_S=1 -e PAPERLAB_GRADING_LEASE_WALL_FACTOR=1 -e PAPERLAB_SWEEP_INTERVAL_S=2
  -e PAPERLAB_REDIS_KEY_PREFIX=paperlab-ctr:
)
# shellcheck disable=SC2206 # the limits are several words on purpose
run_args=(--network host $PAPERLAB_CONTAINER_ULIMITS "${env_args[@]}")
# Own host names: Celery names each worker (and PaperLab each grading process) after the host name, which the
# host's network would otherwise give all three; compose gives every container its own.
pm run -d --name "$NAME-web" --hostname "$NAME-web" "${run_args[@]}" "${web_flags[@]}" "$image" \
  "${web_command[@]}" --host 127.0.0.1 --port "$port" >/dev/null
for i in $(seq "$WORKERS"); do
  pm run -d --name "$NAME-worker$i" --hostname "$NAME-worker$i" "${run_args[@]}" "${worker_flags[@]}" "$image" \
    "${worker_command[@]}" --concurrency 1 >/dev/null
done
log "started ${containers[*]} (web on 127.0.0.1:$port)"

check_api() {
  python3 "$here/check_api.py" --url "http://127.0.0.1:$port" --repo "$repo" --workers "$WORKERS" \
    --kill "podman ${PAPERLAB_PODMAN_RUNTIME:+--runtime $PAPERLAB_PODMAN_RUNTIME} kill --signal KILL $NAME-worker1" \
    --psql "psql ${PG[*]} -d $DB" --phases "$1"
}
site_started=$(date +%s)
check_api ready
log "site ready $(($(date +%s) - site_started)) s after the containers started"

# -- 4. nobody is root -----------------------------------------------------------------------------------------
for container in "${containers[@]}"; do
  users="$(pm top "$container" user | tail -n +2 | sort -u | tr '\n' ' ')"
  [ "$users" = "paperlab " ] || die "$container runs processes as '$users', not only as the paperlab user"
  capabilities="$(pm exec --user paperlab "$container" grep CapEff /proc/1/status | awk '{print $2}')"
  [ "$capabilities" = 0000000000000000 ] || die "$container's server process keeps capabilities $capabilities"
  log "$container: every process runs as paperlab (uid $(pm exec --user paperlab "$container" stat -c %u /proc/1)), no capabilities"
done

# -- 5 and 6. grading ------------------------------------------------------------------------------------------
check_api grades,sandbox-view,worker-kill
log "container test passed: build ${build_s} s, total $(elapsed) s"
