"""What of the app's virtualenv the sandbox mounts: the runtime's distributions (torch, numpy) and what they
require unconditionally, found from the installed metadata, and nothing else."""

from __future__ import annotations

import importlib.metadata
import os
import re
import sysconfig

import pytest

from grader.sandbox import RUNTIME_DISTRIBUTIONS, runtime_entries

SITE = os.path.realpath(sysconfig.get_paths()["purelib"])


def _name(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def expected_entries(site: str) -> set[str]:
    """The same walk, the slow and obvious way: every distribution's metadata, every file as an object."""
    distributions = {_name(dist.metadata["Name"]): dist
                     for dist in importlib.metadata.distributions(path=[site]) if dist.metadata["Name"]}
    wanted: set[str] = set()
    pending = list(RUNTIME_DISTRIBUTIONS)
    while pending:
        name = _name(pending.pop())
        if name in wanted or name not in distributions:
            continue
        wanted.add(name)
        for requirement in distributions[name].requires or []:
            if ";" not in requirement:
                match = re.match(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
                assert match is not None
                pending.append(match.group(1))
    entries = {file.parts[0] for name in wanted for file in distributions[name].files or [] if file.parts}
    return {entry for entry in entries
            if entry not in ("..", "__pycache__") and not entry.endswith(".pth") and not entry.startswith(".")
            and os.path.lexists(os.path.join(site, entry))}


def test_the_runtime_entries_are_what_the_installed_metadata_names() -> None:
    assert set(runtime_entries(SITE)) == expected_entries(SITE)


def test_the_runtime_entries_hold_torch_and_numpy_with_their_metadata() -> None:
    entries = runtime_entries(SITE)
    assert {"torch", "numpy"} <= set(entries)
    assert any(entry.startswith("torch-") and entry.endswith(".dist-info") for entry in entries)


@pytest.mark.parametrize("outside", ["cffi", "_cffi_backend", "pydantic", "hypothesis", "fastapi"])
def test_nothing_else_of_the_virtualenv_is_a_runtime_entry(outside: str) -> None:
    # cffi alone would hand a submission raw memory; the app's own packages are none of its business
    assert not any(entry == outside or entry.startswith(outside + "-") or entry == outside + ".py"
                   for entry in runtime_entries(SITE))
