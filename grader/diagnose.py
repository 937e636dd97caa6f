"""Mutants as diagnoses: when a learner's call fails a check, which known mistake reproduces what came back.

A problem's mutants are known-wrong solutions whose first docstring line says the bug in the learner's words.
When a check fails on a call, the judge runs every mutant's version of that function on the same input (in
the judge's process: mutants are trusted files of the problem, like the reference) and names the one whose
result matches the learner's while differing from the reference's: "this is what you get when the temperature
multiplies the logits". When several match, this input cannot tell them apart and all are named. A specific
diagnosis then replaces the check's generic hint.

What a mutant returns for an input never changes, so results are cached per input (the encoded arguments'
digest) and mutant for the life of the process: a check that many learners fail costs each mutant's time once.
Only mutants that change the failing function or something it reaches are run (grader.touches): the others
compute the reference's value, which is never a diagnosis. Each run gets its own copy of the arguments (a mutant
may write into them), made storage by storage so that views and aliasing between arguments stay as the check
made them.
"""

from __future__ import annotations

import copy
import logging
import math
import threading
import types
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import torch

from grader.calls import CallResult
from grader.checks import tolerance
from grader.helpers_import import importable_as_helpers
from grader.touches import Changes, changes


class Mutable(Protocol):
    """What the diagnoser needs of a problem (grader.problems.Problem): its reference, its mutants' sources and
    its helpers. A protocol, so that this module does not import grader.problems, which imports this one."""

    @property
    def slug(self) -> str: ...

    @property
    def reference(self) -> types.ModuleType: ...

    @property
    def helpers_module(self) -> types.ModuleType | None: ...

    def reference_source(self) -> str: ...

    def mutant_sources(self) -> Sequence[MutantText]: ...


class MutantText(Protocol):
    """A mutant as the diagnoser reads it (grader.problems.MutantSource)."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def code(self) -> str: ...

log = logging.getLogger(__name__)

CACHE_INPUTS = 512  # distinct failing inputs remembered per problem
# Tensor elements in a call's arguments beyond which no diagnosis is tried: every mutant recomputes the call,
# and on inputs this small that stays within tens of milliseconds per failed check.
MAX_ELEMENTS = 20_000
NO_RESULT = object()  # the function raised, or the mutant has no such function


@dataclass(frozen=True)
class KnownMistake:
    """A mutant, loaded: what it says to the learner, its module, and which definitions it changes."""

    description: str  # the sentence a learner reads when this is the only mistake that fits
    module: types.ModuleType
    changes: Changes
    mistake: str = ""  # the mistake alone, lower case, no full stop: for naming several at once


@dataclass
class Diagnoser:
    """Lazily loads a problem's mutants into the judge, once, and answers `diagnose(call)`."""

    problem: Mutable
    _mutants: list[KnownMistake] | None = None
    _cache: OrderedDict[tuple[str, str], dict[int, Any]] = field(default_factory=OrderedDict)
    _suspects: dict[str, list[int]] = field(default_factory=dict)  # function -> the mutants that touch it
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def diagnose(self, call: CallResult) -> str | None:
        """What the known mistakes that reproduce `call`'s value (and not the reference's) say, or None. Every
        mutant that could is tried: when several give this very value, this input cannot tell them apart, and
        naming only the first could name the wrong one (a hint must never lie), so all are named. No time
        budget: a message must not depend on how busy the machine is; the size cap bounds the cost instead."""
        return naming(self.matches(call))

    def matches(self, call: CallResult) -> list[KnownMistake]:
        """Every known mistake (distinct descriptions, in the mutants' order) whose result for `call`'s input
        equals the learner's and differs from the reference's."""
        if not self.would_try(call):
            return []
        mutants = self.mutants()  # loaded once per process
        key = (call.function, call.input_key)
        reference = self._output(key, -1, call)
        if reference is NO_RESULT:
            return []
        found: list[KnownMistake] = []
        for index in self.suspects(call.function):
            output = self._output(key, index, call)
            if output is not NO_RESULT and same(output, call.value) and not same(output, reference):
                if all(m.description != mutants[index].description for m in found):
                    found.append(mutants[index])
        return found

    def mutants(self) -> list[KnownMistake]:
        with self._lock:
            if self._mutants is None:
                self._mutants = self._load()
            return self._mutants

    @staticmethod
    def would_try(call: CallResult) -> bool:
        """Whether `diagnose` runs any mutant for the call: not for one that raised, one whose input it did not
        keep, or one over the size cap."""
        return not (call.raised is not None or call.arguments is None or not call.input_key
                    or _too_big(call.arguments))

    def forget(self) -> None:
        """Drop every cached result (the mutants stay loaded): the benchmark measures what a first failure costs."""
        with self._lock:
            self._cache.clear()

    def suspects(self, function: str) -> list[int]:
        """The indices, in order, of the mutants whose `function` may differ from the reference's."""
        mutants = self.mutants()
        with self._lock:
            if function not in self._suspects:
                self._suspects[function] = [i for i, m in enumerate(mutants) if m.changes.touches(function)]
            return self._suspects[function]

    def _load(self) -> list[KnownMistake]:
        loaded = []
        try:
            reference = self.problem.reference_source()
            sources = self.problem.mutant_sources()
        except Exception:  # noqa: BLE001 - a malformed mutant folder is selftest's to report; no diagnoses then
            log.warning("mutants of %s could not be read; no diagnoses", self.problem.slug, exc_info=True)
            return []
        for source in sources:
            if not source.description:
                continue
            module = types.ModuleType(f"paperlab_mutant_{self.problem.slug}_{source.name.removesuffix('.py')}")
            try:
                with importable_as_helpers(self.problem.helpers_module):
                    exec(compile(source.code, source.name, "exec"), module.__dict__)  # noqa: S102 - trusted file
            except Exception:  # noqa: BLE001 - a mutant that does not even import diagnoses nothing
                log.warning("mutant %s of %s does not load", source.name, self.problem.slug, exc_info=True)
                continue
            loaded.append(KnownMistake(sentence(source.description), module, changes(reference, source.code),
                                      mistake_phrase(source.description)))
        return loaded

    def _output(self, key: tuple[str, str], index: int, call: CallResult) -> Any:
        """What mutant `index` (-1: the reference) returns for the call's input, computed once per input."""
        with self._lock:
            if key in self._cache and index in self._cache[key]:
                self._cache.move_to_end(key)
                return self._cache[key][index]
        module = self.problem.reference if index < 0 else self.mutants()[index].module
        args, kwargs = call.arguments  # type: ignore[misc]
        output = _run(getattr(module, call.function, None), args, kwargs)
        with self._lock:
            self._cache.setdefault(key, {})[index] = output
            self._cache.move_to_end(key)
            while len(self._cache) > CACHE_INPUTS:
                self._cache.popitem(last=False)
        return output


def _too_big(arguments: tuple[tuple[Any, ...], dict[str, Any]]) -> bool:
    """Inputs the size of a paper's dictionary take every mutant long to recompute; they get no diagnosis."""
    args, kwargs = arguments
    return sum(value.numel() for value in (*args, *kwargs.values()) if isinstance(value, torch.Tensor)) > MAX_ELEMENTS


def _run(function: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    if not callable(function):
        return NO_RESULT
    try:
        args, kwargs = fresh_copy((args, kwargs))  # inside: an argument deepcopy refuses is no diagnosis either
        with torch.no_grad():
            return function(*args, **kwargs)
    except Exception:  # noqa: BLE001 - a mutant that raises here reproduces no value
        return NO_RESULT


def fresh_copy(value: Any, memo: dict[Any, Any] | None = None) -> Any:
    """A deep copy, made cheaply for the plain tensors checks pass: each storage copied once (so views and
    aliases between arguments stay views and aliases), with the same offset, sizes, strides and requires_grad.
    Anything else goes through copy.deepcopy, sharing the memo."""
    memo = {} if memo is None else memo
    if type(value) is torch.Tensor and value.layout == torch.strided and value.device.type != "meta" and value.is_leaf:
        storage = value.untyped_storage()
        # Keyed by the memory itself (each call of untyped_storage() gives a new Python object); an empty storage
        # has no address to share.
        where = ("storage", storage.device.type, storage.data_ptr())
        copied = memo.get(where) if storage.data_ptr() else None
        if copied is None:
            copied = memo[where] = storage.clone()  # type: ignore[no-untyped-call]  # torch leaves it untyped
        clone = value.new_empty(0).set_(copied, value.storage_offset(), value.size(), value.stride())
        return clone.requires_grad_(value.requires_grad)
    if type(value) in (tuple, list):
        return type(value)(fresh_copy(item, memo) for item in value)
    if type(value) is dict:
        return {key: fresh_copy(item, memo) for key, item in value.items()}
    if value is None or type(value) in (int, float, bool, str, complex):
        return value
    return copy.deepcopy(value, memo)


def same(a: Any, b: Any) -> bool:
    """Equal within the dtype's tolerance (tensors), recursively for tuples and lists, exactly otherwise."""
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
            return False
        if a.shape != b.shape or a.dtype != b.dtype or a.device.type != b.device.type:
            return False
        if a.device.type == "meta" or a.numel() == 0:
            return True
        rtol, atol = tolerance(a.dtype)
        return bool(torch.isclose(a.detach().double(), b.detach().double(), rtol=rtol, atol=atol,
                                  equal_nan=True).all())
    if isinstance(a, tuple | list) or isinstance(b, tuple | list):
        return (type(a) is type(b) and len(a) == len(b)
                and all(same(x, y) for x, y in zip(a, b, strict=True)))
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-7, abs_tol=1e-9) or (math.isnan(a) and math.isnan(b))
    return type(a) is type(b) and bool(a == b)


MAX_NAMED = 3  # known mistakes named in one diagnosis; more are counted


def sentence(description: str) -> str:
    text = description.strip().rstrip(".")
    if text.lower().startswith("this is what you get"):
        return f"{text}."
    return f"Your result matches a known mistake: {_lower_first_word(text)}."


def mistake_phrase(description: str) -> str:
    """'This is what you get when the logits are divided twice.' -> 'the logits are divided twice'."""
    text = description.strip().rstrip(".")
    for opening in ("this is what you get when ", "this is what you get if "):
        if text.lower().startswith(opening):
            text = text[len(opening):]
            break
    return _lower_first_word(text)


def _lower_first_word(text: str) -> str:
    """'The KL is a mean' -> 'the KL is a mean'; a name or a symbol keeps its case ('PyTorch's', 'T', 'KL')."""
    word = text.split(" ", 1)[0]
    if len(word) > 1 and word[0].isupper() and word[1:].islower():
        return word.lower() + text[len(word):]
    return text


def naming(matches: list[KnownMistake]) -> str | None:
    if not matches:
        return None
    if len(matches) == 1:
        return matches[0].description
    named = "; ".join(f"({number}) {m.mistake}" for number, m in enumerate(matches[:MAX_NAMED], start=1))
    more = len(matches) - MAX_NAMED
    return (f"Your result matches {len(matches)} known mistakes, which this input cannot tell apart: {named}"
            + (f"; and {more} more." if more > 0 else "."))
