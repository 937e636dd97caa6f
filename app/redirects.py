"""Where a form may send the browser afterwards: the `next` parameter of the instructor's sign-in form, the
learner's profile form, and any form added later that returns somewhere.

A `next` value is accepted only as a plain path on this site under one of the places the form may return to;
anything else gives the form's default. Browsers are generous readers of a `Location`: they treat `\\` as `/`
(so `/\\evil.example` is `//evil.example`, another host), drop tabs and newlines anywhere (`/\\t/evil.example`),
and resolve `..` segments. So instead of recognising the bad spellings, only one shape is let through: `/`,
then segments of printable characters with no backslash, no `.` or `..` segment, before or after
percent-decoding, and a path under an allowed prefix. The header itself is written percent-encoded by Starlette's
RedirectResponse, so nothing in the value can start a header of its own either."""

from __future__ import annotations

from urllib.parse import unquote, urlsplit

# Decoded this many times, a path still has to be a path: `%252F%252F` is `%2F%2F` once, `//` twice.
DECODE_ROUNDS = 3


def local_path(value: str | None, *, under: tuple[str, ...], default: str) -> str:
    """`value` when it is a path on this site under one of `under` (e.g. `"/instructor"` allows `/instructor`,
    `/instructor/learners` and `/instructor?x=1`, not `/instructors`), else `default`."""
    if value and _is_plain_local_path(value) and _is_under(urlsplit(value).path, under):
        return value
    return default


def _is_plain_local_path(value: str) -> bool:
    if any(ord(char) < 0x21 or ord(char) == 0x7F for char in value):
        return False  # browsers drop tabs and newlines anywhere in a URL and trim spaces; refuse them all
    parts = urlsplit(value)
    if parts.scheme or parts.netloc:
        return False
    candidate = value
    for _ in range(DECODE_ROUNDS + 1):  # as written, then decoded: a server or proxy on the way may decode it
        if not candidate.startswith("/") or candidate.startswith("//") or "\\" in candidate:
            return False  # a backslash is a slash to a browser: `/\\host` is `//host`
        if any(segment in (".", "..") for segment in urlsplit(candidate).path.split("/")):
            return False
        candidate = unquote(candidate)
    return True


def _is_under(path: str, prefixes: tuple[str, ...]) -> bool:
    return any(path == prefix.rstrip("/") or path.startswith(prefix.rstrip("/") + "/") for prefix in prefixes)
