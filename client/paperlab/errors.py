"""What can go wrong for a learner using the client, each with the exit status the command ends with and a
message that says what to do. The command prints the message alone (no traceback): these are expected."""

from __future__ import annotations


class PaperLabError(Exception):
    exit_status = 2

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class UsageError(PaperLabError):
    """The command was given something it cannot use (a missing file, no problem named)."""


class UnknownProblem(PaperLabError):
    """The server has no problem by that name."""


class Refused(PaperLabError):
    """The server refused the request for a reason the learner can act on (too large, malformed, not allowed)."""


class NotLoggedIn(PaperLabError):
    exit_status = 3


class TokenRefused(PaperLabError):
    """The server refused the token: unknown, revoked or expired (the server's message says which)."""

    exit_status = 3


class ServerUnreachable(PaperLabError):
    exit_status = 4


class ServerError(PaperLabError):
    """The server broke, answered something that is not PaperLab's API, or stayed busy past our patience."""

    exit_status = 4
