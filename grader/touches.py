"""Which of a problem's functions a mutant can change: a diagnosis runs only the mutants that touch the failing one.

A mutant is the reference with some top-level definitions changed. A mutant whose version of the failing
function, and of every module-level name that function reaches, is the reference's computes the reference's
value, which can never be a diagnosis (grader.diagnose names a mistake only for a value the reference does not
give): running it is wasted judge time. On MoCo about two mutants in three leave any one function alone.

Definitions are compared by their syntax tree (`ast.dump` leaves out line numbers, so a patch that moves code
down the file changes nothing). A name reaches every name its defining statements mention (variables, and
attribute names too: an over-approximation, which only ever runs a mutant that did not need running), and
what those reach in turn. A changed top-level statement that binds no name (a call at import time, a loop, a
conditional import) may change anything, and so touches every function; so does one whose effect on names
cannot be told from its shape (`from x import *`, `obj.attr = ...`).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field

ANYTHING = "*"  # the name under which changes that may touch every function are recorded


@dataclass(frozen=True)
class Changes:
    """What a mutant defines differently from the reference, and what each of its names mentions."""

    names: frozenset[str]  # changed module-level names; ANYTHING in it: every function may be touched
    mentions: dict[str, frozenset[str]] = field(default_factory=dict)  # the mutant's own definitions

    def touches(self, function: str) -> bool:
        """Whether the mutant's `function` may compute something other than the reference's does."""
        return ANYTHING in self.names or not self.names.isdisjoint(self.reached(function))

    def reached(self, function: str) -> set[str]:
        """`function` and every name it mentions, transitively through module-level definitions."""
        found: set[str] = set()
        pending = [function]
        while pending:
            name = pending.pop()
            if name not in found:
                found.add(name)
                pending.extend(self.mentions.get(name, ()))
        return found


def changes(reference_source: str, mutant_source: str) -> Changes:
    """How `mutant_source` differs from `reference_source`, top-level definition by definition."""
    try:
        before, _ = _definitions(reference_source)
        after, mentions = _definitions(mutant_source)
    except (SyntaxError, _Unsure):
        return Changes(frozenset({ANYTHING}))
    changed = frozenset(name for name in before.keys() | after.keys() if before.get(name) != after.get(name))
    return Changes(changed, mentions)


class _Unsure(Exception):
    """A top-level statement whose effect on names cannot be told from its shape."""


def _definitions(source: str) -> tuple[dict[str, str], dict[str, frozenset[str]]]:
    """Each top-level name's defining statements (dumped) and the names they mention. Statements that bind no
    name visibly are compared together under ANYTHING."""
    dumps: dict[str, list[str]] = {}
    mentions: dict[str, set[str]] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # a docstring: mutants say their mistake there
        dump, mentioned = ast.dump(node), set(_mentioned(node))
        for name in _bound_names(node):
            if isinstance(node, ast.Import | ast.ImportFrom) and dump in dumps.get(name, ()):
                continue  # importing a module again binds the same object (a patch's header repeats imports)
            dumps.setdefault(name, []).append(dump)
            mentions.setdefault(name, set()).update(mentioned - {name})
    return ({name: "\n".join(parts) for name, parts in dumps.items()},
            {name: frozenset(names) for name, names in mentions.items()})


def _bound_names(node: ast.stmt) -> Iterator[str]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        yield node.name
    elif isinstance(node, ast.Import | ast.ImportFrom):
        for alias in node.names:
            if alias.name == "*":
                raise _Unsure
            yield (alias.asname or alias.name).split(".")[0]
    elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
        for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
            if not isinstance(target, ast.Name | ast.Tuple | ast.List | ast.Starred):
                raise _Unsure  # `x.attr = ...` or `x[i] = ...` changes an object other names may share
            yield from (leaf.id for leaf in ast.walk(target) if isinstance(leaf, ast.Name))
    else:
        # Anything else (if/try/for/with, a bare call) may bind or rebind anything: it counts under ANYTHING, and
        # what it visibly binds mentions what the statement does.
        yield ANYTHING
        for leaf in ast.walk(node):
            if isinstance(leaf, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                yield leaf.name
            elif isinstance(leaf, ast.Name) and isinstance(leaf.ctx, ast.Store):
                yield leaf.id
            elif isinstance(leaf, ast.alias):
                yield (leaf.asname or leaf.name).split(".")[0]


def _mentioned(node: ast.AST) -> Iterator[str]:
    for leaf in ast.walk(node):
        if isinstance(leaf, ast.Name):
            yield leaf.id
        elif isinstance(leaf, ast.Attribute):
            yield leaf.attr
