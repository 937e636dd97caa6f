"""Which warm-up a template needs: whether the code a grading runs in the child names one of torch's APIs whose
first use imports its compiler stack (torch._dynamo and what it pulls in: 823 modules, 0.7 s, 73 MB).

A warm pool's templates always import it: they serve many children, and it is off every grading's path. A
one-grading template (`grader grade`) imports it only for code that names one of these words, so that its
verdicts are the server's: a child that imported the stack itself would charge the 0.7 s to the call that
triggered it and the 73 MB to the submission's memory limit. The match is on words, in code, strings and
comments alike; a false match only costs the import. Torch's own entry points into the stack, as measured on
the pinned torch (tests/grader/test_template_warm_up.py): constructing any optimiser or learning-rate schedule
(`torch.optim`), `torch.func`, `torch.utils.checkpoint`, `torch.compile`, `torch.export`. This module imports
nothing heavy: the CLI decides before it imports torch."""

from __future__ import annotations

import re

COMPILER_STACK_WORDS = ("optim", "func", "checkpoint", "compile", "export", "_dynamo", "_inductor")
_WORDS = re.compile(r"\b(?:" + "|".join(COMPILER_STACK_WORDS) + r")\b")


def uses_compiler_stack(source: str) -> bool:
    """True when `source` names a word that may lead into torch's compiler stack."""
    return _WORDS.search(source) is not None
