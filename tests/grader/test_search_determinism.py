"""The property search draws the same inputs in every process, whatever that process loaded or searched before:
a grading host's verdict must not depend on its history (Hypothesis mixes constants from the source of loaded
modules into its draws unless grader.contract.search turns that off)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

DRAWS = """
import hashlib, sys
from grader.contract.search import drawn_examples
from grader.problems import load_problem

def batteries(slug):
    search = next(check for check in load_problem(slug).checks if check.id == "contract.search")
    return search.function.__closure__[0].cell_contents

if sys.argv[1] == "after-another-search":
    for battery in batteries("moco"):
        drawn_examples(battery)
digest = hashlib.sha256()
for battery in batteries("ddim_cfg"):
    digest.update(repr([example.key for example in drawn_examples(battery)[0]]).encode())
print(digest.hexdigest())
"""


def draws(history: str) -> str:
    completed = subprocess.run([sys.executable, "-c", DRAWS, history], cwd=REPO, capture_output=True, text=True,
                               timeout=300, check=True)
    return completed.stdout.strip()


def test_the_search_draws_the_same_inputs_whatever_the_process_did_before() -> None:
    assert draws("fresh") == draws("after-another-search")
