"""Turn one service of docker-compose.yml (as `docker-compose config` prints it: validated, interpolated) into
what `podman run` needs, so that `make container-test` runs the web and worker containers with exactly the
privileges, user and command the compose file gives operators.

    docker-compose config | python3 compose_flags.py SERVICE flags     # --cap-add/--security-opt/--user, one per line
    docker-compose config | python3 compose_flags.py SERVICE command   # the command, one argument per line
    docker-compose config | python3 compose_flags.py SERVICE env       # the environment's names, one per line

Fails on a setting it cannot carry over (privileged, devices, volumes, ...), so the test never silently runs a
container other than the one the compose file describes. Needs PyYAML (Debian's python3-yaml, which
docker-compose depends on).
"""

from __future__ import annotations

import sys
from typing import Any

import yaml

# Settings that do not change what runs inside the container or with which privileges (ports and the network
# are replaced by the host's network in the test; build is the test's own build of the same Dockerfile).
NEUTRAL = {"image", "build", "ports", "depends_on", "restart", "stop_grace_period", "networks", "healthcheck"}
CARRIED = {"cap_add", "security_opt", "user", "command", "environment"}


def service(config: dict[str, Any], name: str) -> dict[str, Any]:
    services = config.get("services", {})
    if name not in services:
        raise SystemExit(f"compose_flags: no service '{name}' in the compose file")
    found: dict[str, Any] = services[name]
    unknown = sorted(set(found) - NEUTRAL - CARRIED)
    if unknown:
        raise SystemExit(f"compose_flags: service '{name}' sets {', '.join(unknown)}, which the container test does "
                         "not reproduce; teach scripts/container/compose_flags.py (and the test) about it")
    return found


def flags(found: dict[str, Any]) -> list[str]:
    lines = [f"--cap-add={cap}" for cap in found.get("cap_add", [])]
    lines += [f"--security-opt={option}" for option in found.get("security_opt", [])]
    if "user" in found:
        lines.append(f"--user={found['user']}")
    return lines


def command(found: dict[str, Any]) -> list[str]:
    value = found.get("command")
    if not isinstance(value, list):
        raise SystemExit("compose_flags: give the service's command as a list (exec form)")
    return [str(argument) for argument in value]


def environment_names(found: dict[str, Any]) -> list[str]:
    environment = found.get("environment", {})
    if isinstance(environment, list):
        return sorted(entry.split("=", 1)[0] for entry in environment)
    return sorted(environment)


def main(argv: list[str]) -> int:
    if len(argv) != 3 or argv[2] not in ("flags", "command", "env"):
        raise SystemExit(__doc__)
    found = service(yaml.safe_load(sys.stdin), argv[1])
    lines = {"flags": flags, "command": command, "env": environment_names}[argv[2]](found)
    sys.stdout.write("".join(f"{line}\n" for line in lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
