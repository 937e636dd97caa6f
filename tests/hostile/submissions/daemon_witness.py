# ruff: noqa: T201 - printing is the point of this program
# Runs after daemon.py: reports what it can see of it.
import os

mine = {1, os.getppid(), os.getpid()}  # the sandbox's init, the template, this process
others = sorted(int(n) for n in os.listdir("/proc") if n.isdigit() and int(n) not in mine)
seen = {"tmp": sorted(os.listdir("/tmp")), "other_pids": others}
print("WITNESS", seen)


def add_one(x):
    raise RuntimeError("witness only")


def scaled_sum(x, factor):
    raise RuntimeError("witness only")
