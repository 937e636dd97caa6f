# Reads what the sandbox's pid 1 and the template show of themselves, tries to write to pid 1's stderr, lists
# its own descriptors and mounts, and prints one JSON line. It does so in a fresh interpreter it starts, as an
# attacker would: the worker's audit hook refuses some of these reads in-process, the kernel must refuse them all.
import json
import os
import subprocess
import sys

PROBE = r'''
import json, os, sys

def read(path):
    try:
        with open(path, "rb") as handle:
            return handle.read().decode(errors="replace").replace("\0", " ")
    except OSError as exc:
        return f"{type(exc).__name__} errno {exc.errno}"

def write(path):
    try:
        with open(path, "a") as handle:
            handle.write("written by a submission\n")
        return "written"
    except OSError as exc:
        return f"{type(exc).__name__} errno {exc.errno}"

def link(path):
    try:
        return os.readlink(path)
    except OSError as exc:
        return f"{type(exc).__name__} errno {exc.errno}"

def mounts(text):
    # Each mount's root and mount point. The runtime's packages are one mount each: those sharing a parent
    # directory are folded into one line, so the report's output cap keeps every other mount whole.
    pairs = [line.split()[3:5] for line in text.splitlines() if len(line.split()) > 4]
    parents = {}
    for root, point in pairs:
        parents.setdefault(os.path.dirname(root), []).append(root)
    shown = []
    for root, point in pairs:
        siblings = parents[os.path.dirname(root)]
        if len(siblings) >= 3:
            if root == siblings[0]:
                shown.append(f"{os.path.dirname(root)}/{{{len(siblings)} entries}}")
        else:
            shown.append(f"{root} {point}")
    return "\n".join(shown)

template = sys.argv[1]
print(json.dumps({
    "cmdline": read("/proc/1/cmdline"),
    "environ": read("/proc/1/environ"),
    "stderr_target": link("/proc/1/fd/2"),
    "stderr_write": write("/proc/1/fd/2"),
    "parent_cmdline": read(f"/proc/{template}/cmdline"),
    "parent_environ": read(f"/proc/{template}/environ"),
    "mountinfo": mounts(read("/proc/self/mountinfo")),
}))
'''



def own_descriptors():
    """What this process (the grading child) holds open: inherited from the template, set up by bubblewrap."""
    targets = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            targets.append(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:
            pass  # the descriptor listdir itself used
    return " ".join(targets)


done = subprocess.run([sys.executable, "-I", "-c", PROBE, str(os.getppid())], capture_output=True, text=True,
                      timeout=20)
try:
    FOUND = json.loads(done.stdout)
except ValueError:
    FOUND = {"error": f"exit {done.returncode}: {done.stdout[-300:]} {done.stderr[-500:]}"}
FOUND["own_descriptors"] = own_descriptors()
print("INIT" + json.dumps(FOUND))  # noqa: T201 - the test reads what the submission printed


def add_one(x):
    raise RuntimeError("probe only")


def scaled_sum(x, factor):
    raise RuntimeError("probe only")
