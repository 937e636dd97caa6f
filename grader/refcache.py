"""The reference's answers, computed once per battery.

A check compares the learner's value with `ref.F(...)` on seeded inputs, and the reference's answer to an input
depends only on the problem's files and the engine (grader.fingerprint.battery_hash, engine_version, torch's
version). So the judge keeps each answer the first time a grading computes it: in memory for the life of the
process (the server), and, where the caller asks for it, on disk (the CLI, one grading per process).

Only what cannot change an answer is reused, and never anything the learner's code produced: the reference runs
in the judge, on arguments a check built. A call is answered from the cache when its arguments are plain values
(tensors, numbers, strings, None, and tuples, lists and dicts of them) and the answer:
- is made of the same plain values, with no tensor that requires grad (a graph cannot be replayed; checks that
  differentiate the reference, `reference_grads`, keep computing it);
- shares no storage with an argument (a check may ask whether the reference returns its input);
- consumed no global random numbers (torch's or Python's generator moved: the answer is not a function of the
  input, and a hit would not move the generator as the call did);
- left its arguments as they were (the call's key, taken again after it, is unchanged: a hit would not write
  into the caller's tensors, lists or dicts as the call did).
The key of a call is the function, the grad mode, inference mode and default dtype, and every argument's
type, dtype, shape, strides, offset, requires_grad and the bytes of its storage (a view keeps its own strides).

A cached answer is never handed out itself: each hit is a fresh copy (tensors cloned), so a check that writes
into what it got cannot change what a later grading gets. On disk, a file holds one problem's answers for one
key; a file that cannot be read, holds anything but plain values (torch.load with weights_only), or names
another key is ignored and rewritten.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import random
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import torch

from grader.fingerprint import battery_hash, engine_version
from grader.problems import Problem

log = logging.getLogger(__name__)

FORMAT = 1  # bumped when the file's layout or the key's recipe changes
# What one problem's answers may hold. A check may ask the reference about a value the learner's code returned
# (a chained experiment's state), so keys are not all the battery's own: the least recently used answers go
# first, and the battery's seeded inputs, asked on every grading, stay. One answer above a quarter of the budget
# is computed and not kept.
MAX_BYTES = 16 * 2**20  # 31 problems: at most about half a GiB a process
CACHE_DIR_VARIABLE = "PAPERLAB_CACHE_DIR"


class _Uncachable(Exception):
    """A value the cache does not key or keep (a generator, a module, a tensor subclass, ...)."""


def default_cache_dir() -> Path:
    """$PAPERLAB_CACHE_DIR, else $XDG_CACHE_HOME/paperlab, else ~/.cache/paperlab."""
    configured = os.environ.get(CACHE_DIR_VARIABLE)
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "paperlab"


def cache_key(problem: Problem) -> str:
    """What every cached answer of `problem` rests on; an answer kept under another key is never used."""
    return f"{FORMAT}:{problem.slug}:{battery_hash(problem)}:{engine_version()}:{torch.__version__}"


# ---------------------------------------------------------------------------------------------- the call's key


def _feed(digest: Any, value: Any, storages: dict[int, int]) -> None:
    kind = type(value)
    if kind is torch.Tensor or kind is torch.nn.Parameter:
        tensor = value.detach()
        storage = tensor.untyped_storage()
        where = storages.setdefault(storage.data_ptr(), len(storages)) if tensor.device.type != "meta" else -1
        header = (kind.__name__, str(tensor.dtype), tensor.device.type, tuple(tensor.shape), tensor.stride(),
                  tensor.storage_offset(), value.requires_grad, where, storage.nbytes())
        digest.update(repr(header).encode())
        if tensor.device.type == "cpu" and storage.nbytes():
            raw = torch.empty(0, dtype=torch.uint8).set_(storage)
            digest.update(raw.numpy().tobytes())
        elif tensor.device.type not in ("cpu", "meta"):
            raise _Uncachable(f"a tensor on {tensor.device}")
    elif value is None or kind in (bool, int, float, str):
        digest.update(f"{kind.__name__}:{value!r};".encode())
    elif kind in (tuple, list):
        digest.update(f"{kind.__name__}[{len(value)}](".encode())
        for item in value:
            _feed(digest, item, storages)
        digest.update(b")")
    elif kind is dict:
        digest.update(f"dict[{len(value)}](".encode())
        for name, item in value.items():
            if type(name) is not str:
                raise _Uncachable("a dict key that is not a string")
            _feed(digest, name, storages)
            _feed(digest, item, storages)
        digest.update(b")")
    else:
        raise _Uncachable(kind.__name__)


def call_key(function: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    """The digest of a call: equal exactly when the function, the modes that change an answer and every
    argument (type, dtype, shape, strides, offset, requires_grad, storage bytes, shared storages) are."""
    digest = hashlib.blake2b(digest_size=20)
    modes = (function, torch.is_grad_enabled(), torch.is_inference_mode_enabled(), str(torch.get_default_dtype()))
    digest.update(repr(modes).encode())
    _feed(digest, (tuple(args), dict(kwargs)), {})
    return digest.hexdigest()


# ------------------------------------------------------------------------------------------------ the answer


def frozen(value: Any) -> Any:
    """A copy of an answer to keep: tensors detached and cloned; raises _Uncachable for anything else than plain
    values, or a tensor that requires grad."""
    kind = type(value)
    if kind is torch.Tensor:
        if value.requires_grad:
            raise _Uncachable("a tensor that requires grad")
        return value.clone()
    if value is None or kind in (bool, int, float, str):
        return value
    if kind in (tuple, list):
        return kind(frozen(item) for item in value)
    if kind is dict and all(type(name) is str for name in value):
        return {name: frozen(item) for name, item in value.items()}
    raise _Uncachable(kind.__name__)


def _nbytes(value: Any) -> int:
    """About what a kept answer holds in memory: its tensors' bytes, and a little for every other value."""
    if isinstance(value, torch.Tensor):
        return value.untyped_storage().nbytes() + 64
    if isinstance(value, tuple | list):
        return 64 + sum(_nbytes(item) for item in value)
    if isinstance(value, dict):
        return 64 + sum(len(name) + _nbytes(item) for name, item in value.items())
    return 64 + (len(value) if isinstance(value, str) else 0)


def thawed(value: Any) -> Any:
    """A fresh copy of a kept answer, for one caller to do with as it likes."""
    if isinstance(value, torch.Tensor):
        return value.clone()
    if isinstance(value, tuple | list):
        return type(value)(thawed(item) for item in value)
    if isinstance(value, dict):
        return {name: thawed(item) for name, item in value.items()}
    return value


def _storages(value: Any, found: set[int]) -> set[int]:
    if isinstance(value, torch.Tensor):
        if value.device.type != "meta":
            found.add(value.untyped_storage().data_ptr())
    elif isinstance(value, tuple | list):
        for item in value:
            _storages(item, found)
    elif isinstance(value, dict):
        for item in value.values():
            _storages(item, found)
    return found


def _random_states() -> tuple[torch.Tensor, Any]:
    return torch.get_rng_state(), random.getstate()


# ------------------------------------------------------------------------------------------------ the cache


class ReferenceAnswers:
    """One problem's cached answers under one key, and the reference module as checks see it (`module`)."""

    def __init__(self, problem: Problem, *, directory: Path | None = None) -> None:
        self.problem = problem
        self.key = cache_key(problem)
        self.directory = directory
        self.hits = 0
        self.misses = 0
        self._answers: OrderedDict[str, tuple[Any, int]] = OrderedDict()  # key -> (answer, its bytes), oldest first
        self._bytes = 0
        self._dirty = False
        self._lock = threading.Lock()
        self.module = CachedReference(problem.reference, self, frozenset(problem.parameter_names))
        if directory is not None:
            for key, value in self._read().items():
                self._store(key, value)

    @property
    def path(self) -> Path | None:
        if self.directory is None:
            return None
        return self.directory / "reference" / f"{self.problem.slug}-{battery_hash(self.problem)}.pt"

    def __len__(self) -> int:
        return len(self._answers)

    def call(self, name: str, function: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """`function(*args, **kwargs)`, answered from the cache when it may be (see the module's docstring)."""
        try:
            key = call_key(name, args, kwargs)
        except _Uncachable:
            return function(*args, **kwargs)
        with self._lock:
            found = self._answers.get(key)
            if found is not None:
                self._answers.move_to_end(key)
        if found is not None:
            self.hits += 1
            return thawed(found[0])
        self.misses += 1
        before = _random_states()
        value = function(*args, **kwargs)
        if call_key(name, args, kwargs) == key:  # an answer that wrote into its arguments is not theirs alone
            self._keep(key, value, args, kwargs, before)
        return value

    def memo(self, name: str, inputs: Any, compute: Callable[[], Any]) -> Any:
        """`compute()`, a trusted computation of the reference's that depends only on `inputs` (plain values: a
        gradient and the cotangent it was taken with), kept under the same rules as a call's answer."""
        return self.call(name, lambda _inputs: compute(), (inputs,), {})

    def _keep(self, key: str, value: Any, args: tuple[Any, ...], kwargs: dict[str, Any],
              before: tuple[torch.Tensor, Any]) -> None:
        torch_state, python_state = _random_states()
        if not torch.equal(torch_state, before[0]) or python_state != before[1]:
            return  # the answer drew random numbers: not a function of its input
        if _storages(value, set()) & _storages((args, kwargs), set()):
            return  # it shares storage with an argument: a copy would not
        try:
            kept = frozen(value)
        except _Uncachable:
            return
        with self._lock:
            if self._store(key, kept):
                self._dirty = True

    def _store(self, key: str, kept: Any) -> bool:
        """Keep one answer, evicting the least recently used past MAX_BYTES; False when it is not kept."""
        size = _nbytes(kept)
        if key in self._answers or size > MAX_BYTES // 4:
            return False
        self._answers[key] = (kept, size)
        self._bytes += size
        while self._bytes > MAX_BYTES:
            _, (_, evicted) = self._answers.popitem(last=False)
            self._bytes -= evicted
        return True

    @property
    def nbytes(self) -> int:
        return self._bytes

    def save(self) -> None:
        """Write the answers to disk (when this cache has a directory and something new to write): a new file
        renamed over the old one, so a reader sees one whole file or the other."""
        path = self.path
        if path is None or not self._dirty:
            return
        with self._lock:
            answers, self._dirty = {key: kept for key, (kept, _) in self._answers.items()}, False
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
            with os.fdopen(handle, "wb") as file:
                torch.save({"key": self.key, "answers": answers}, file)
            os.replace(temporary, path)
        except OSError as exc:  # a cache is a saving, never a reason for a grading to fail
            log.warning("could not write the reference cache %s: %s", path, exc)

    def _read(self) -> dict[str, Any]:
        path = self.path
        if path is None or not path.is_file():
            return {}
        try:
            content = torch.load(path, weights_only=True)  # plain values only: no code runs while reading it
        except Exception as exc:  # noqa: BLE001 - a corrupt or foreign file is ignored, then rewritten
            log.warning("ignoring the unreadable reference cache %s: %s", path, exc)
            return {}
        if not isinstance(content, dict) or content.get("key") != self.key or type(content.get("answers")) is not dict:
            return {}
        answers = {}
        for key, value in content["answers"].items():
            if type(key) is not str:
                continue
            try:
                answers[key] = frozen(value)  # what was read is checked as what is kept: plain values only
            except _Uncachable:
                continue
        return answers



class CachedReference:
    """The reference module as checks see it (`ref`): its functions named in problem.toml answer from the cache;
    every other name (helpers, constants) is the module's own."""

    def __init__(self, module: ModuleType, answers: ReferenceAnswers, functions: frozenset[str]) -> None:
        self._module = module
        self._answers = answers
        self._functions = functions
        self._wrapped: dict[str, Callable[..., Any]] = {}

    def _paperlab_memo(self, name: str, inputs: Any, compute: Callable[[], Any]) -> Any:
        """ReferenceAnswers.memo, for the judge's own code that derives more from the reference (its gradients).
        A name no reference module defines, so it hides none of the module's."""
        return self._answers.memo(name, inputs, compute)

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._module, name)
        if name not in self._functions or not callable(value):
            return value
        wrapped = self._wrapped.get(name)
        if wrapped is None or wrapped.__wrapped__ is not value:  # type: ignore[attr-defined]
            wrapped = _cached_function(name, value, self._answers)
            self._wrapped[name] = wrapped
        return wrapped

    def __repr__(self) -> str:
        return f"<reference of {self._answers.problem.slug}, answers cached>"


def _cached_function(name: str, function: Callable[..., Any], answers: ReferenceAnswers) -> Callable[..., Any]:
    @functools.wraps(function)  # inspect.signature follows __wrapped__: reference_grads binds by name
    def cached(*args: Any, **kwargs: Any) -> Any:
        return answers.call(name, function, args, kwargs)

    return cached


# A problem's folder -> its loaded problem and answers, for the life of the process. One entry per folder: a
# problem loaded again (the author's live reload) replaces its entry, so reloads do not pile up answers.
_by_problem: dict[Path, tuple[Problem, ReferenceAnswers]] = {}
_registry_lock = threading.Lock()
_disk: Path | None = None


def use_disk(directory: Path | None) -> None:
    """Keep the answers of problems loaded from now on in `directory` too (the CLI); None: memory only."""
    global _disk
    _disk = directory


def answers_for(problem: Problem) -> ReferenceAnswers:
    with _registry_lock:
        found = _by_problem.get(problem.folder)
        if found is not None and found[0] is problem:
            return found[1]
        answers = ReferenceAnswers(problem, directory=_disk)
        _by_problem[problem.folder] = (problem, answers)
        return answers
