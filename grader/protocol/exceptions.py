"""ProtocolError and its kinds: what a frame or a value that broke the protocol raises, on either side.

Outside grader.errors' tree on purpose: this package runs inside the sandbox too, where nothing else of the engine
is loaded."""

from __future__ import annotations


class ProtocolError(Exception):
    """A frame or value broke the protocol: too large, too deep, malformed, or an unknown tag."""


class MessageTooLarge(ProtocolError):
    def __init__(self, size: int, cap: int) -> None:
        self.size = size
        self.cap = cap
        super().__init__(f"message of {size} bytes exceeds the cap of {cap} bytes")


class Unsigned(ProtocolError):
    """A frame from the worker whose signature does not verify: written by something other than the worker's
    own serving code (the learner's code wrote on the channel)."""


class OverBudget(Exception):
    """Encoding a value would copy more bytes of tensors than its encoder's budget (`Encoder.max_bytes`). Raised
    before the copy that passes the budget, so a result that could never be sent costs no memory and no time to
    find out. Not a ProtocolError: the value is well formed, only too large to send."""

    def __init__(self, size: int) -> None:
        self.size = size  # the bytes counted so far, the blob that passed the budget included
        super().__init__(f"{size} bytes of tensors exceed the encoder's budget")
