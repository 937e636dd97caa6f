"""What the learner's thread runs and what its code may reach: the trampoline that runs each call, the bounded
stdout and stderr, the stand-in for an argument the protocol cannot carry, and the library functions the child
replaces with ones that refuse.

Sandbox side. The worker reads this file before any submission exists and compiles it into a namespace of its own
(`<paperlab learner thread>`), never as a module of its own: the learner's code can walk the frames of its thread
and read the globals of every function here, and from these it reaches nothing of the worker's. Whatever it does
to them changes only its own answers. Nothing on the judge side imports it, and it imports nothing of the grader
(tests/test_imports.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, NoReturn, Protocol

    class Lock(Protocol):
        def acquire(self, blocking: bool = ..., timeout: float = ..., /) -> bool: ...
        def release(self) -> None: ...

    Job = tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]


def serve(jobs: list[Job], results: list[tuple[bool, Any]], graveyard: list[Any], wake: Callable[[], Any],
          done: Lock) -> None:
    """The learner's thread: run each job the worker queues, one at a time, and hand back what it returned or
    raised. Its stack holds this frame and the learner's, nothing of the worker's."""
    while True:
        wake()
        graveyard.clear()  # what the main thread is done with dies here, so its finalizers run on this thread
        if not jobs:
            continue
        function, args, kwargs = jobs.pop()
        try:
            results.append((True, function(*args, **kwargs)))
        except BaseException as exc:
            results.append((False, exc))
            del exc
        function = args = kwargs = None  # type: ignore[assignment]  # the last call's values die here, not later
        done.release()


class BoundedWriter:
    """stdout/stderr for learner code: keeps the first `limit` characters, counts the rest, never grows."""

    def __init__(self, limit: int, parts: list[str], dropped: list[int]) -> None:
        self.limit = limit
        self.parts = parts
        self.dropped = dropped

    def writable(self) -> bool:
        return True

    def write(self, text: object) -> int:
        text = str(text)
        kept = sum(len(part) for part in self.parts)
        room = self.limit - kept
        if room > 0:
            self.parts.append(text[:room])
        self.dropped[0] += max(0, len(text) - max(room, 0))
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


class StandIn:
    """An argument the protocol cannot carry (a NumPy array, an arbitrary object): it stands for it, by name."""

    def __init__(self, type_name: str) -> None:
        self.type_name = type_name

    def __repr__(self) -> str:
        return f"<{self.type_name} object>"


def capped_recursion_limit(set_limit: Callable[[int], None], cap: int) -> Callable[[int], None]:
    def setrecursionlimit(limit: int, /) -> None:
        """sys.setrecursionlimit, at most the grader's cap (a higher limit is lowered to it)."""
        if not isinstance(limit, int):
            raise TypeError(f"'{type(limit).__name__}' object cannot be interpreted as an integer")
        set_limit(min(limit, cap))
    return setrecursionlimit


def guarded_library(original: Callable[..., Any], refused: tuple[str, ...]) -> Callable[..., Any]:
    def _dispatch_library(kind: str, ns: str, *args: Any, **kwargs: Any) -> Any:
        """torch._C._dispatch_library, refusing the namespaces of the operators the grader itself runs."""
        if ns in refused:
            raise RuntimeError(f"registering kernels for the {ns!r} operators is not available to submissions: "
                               "the grader runs those operators too. Define your own operator in a namespace "
                               "of your own, or write the function in plain torch")
        return original(kind, ns, *args, **kwargs)
    return _dispatch_library


def closed(name: str) -> Callable[..., NoReturn]:
    def refuse(*args: Any, **kwargs: Any) -> NoReturn:
        raise PermissionError(f"{name} turns an address into memory: not available to submissions")
    return refuse


def banned(name: str) -> Callable[..., NoReturn]:
    def refuse(*args: Any, **kwargs: Any) -> NoReturn:
        raise RuntimeError(f"{name} may not be used in this problem: write this part yourself")
    refuse.__name__ = refuse.__qualname__ = name.rsplit(".", 1)[-1]
    return refuse
