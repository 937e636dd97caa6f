"""Messages between the trusted judge and the untrusted worker: one package, one concept per module.

- `framing`: a frame is `>II` (header length, blob length), a JSON header, then the blobs (raw tensor bytes); the
  worker's frames are signed with a key the judge gives each child, and every receive has one deadline. A frame
  can be encoded before it is sent and read before it is opened, so the judge sends its next request between
  the two (grader.session).
- `arena`: the tensors of a `calls` request travel in a sealed memfd that both sides map, so the judge sees for
  itself whether the learner's function wrote to its arguments.
- `encoding`: values as JSON with tagged objects for what JSON lacks (tuples, tensors, opaque objects); nothing is
  pickled or evaluated, and a tensor is rebuilt only after its layout has been checked against its storage.
- `cotangent`: the bytes of the cotangent a result is differentiated with when a check gives none, made without
  torch, the same on both sides.
- `exceptions`: `ProtocolError` and its kinds.

This package is imported by the judge (as grader.protocol) and, inside the sandbox, by the worker, privately and
with its own copy of the builtins (grader/sandboxed/importer.py). So it depends on nothing but the standard
library, torch and NumPy, and everything it calls after import is captured at import time and is C code (the `_json`
encoder and scanner, `_socket` methods, HMAC from `_hashlib`, `torch._C.TensorBase` descriptors): learner code
running in the worker can rebind module attributes, Python classes and builtins, and none of that reaches it.
"""

from __future__ import annotations

from grader.protocol.arena import Arena, blob_table, map_arena
from grader.protocol.cotangent import COTANGENT_SEED, default_cotangent_bytes
from grader.protocol.encoding import (
    DEVICES,
    DTYPE_NAMES,
    DTYPES,
    INT_RANGE,
    MAX_DEPTH,
    MAX_DIMS,
    MAX_ITEMS,
    MAX_STRING,
    Decoder,
    Encoder,
    Opaque,
    decode,
    encode,
    storages_of,
)
from grader.protocol.exceptions import MessageTooLarge, OverBudget, ProtocolError, Unsigned
from grader.protocol.framing import (
    COALESCE_BYTES,
    FRAME,
    MAC_BYTES,
    MAX_HEADER_BYTES,
    RawFrame,
    dumps,
    frame_parts,
    loads,
    open_frame,
    read_frame,
    recv_frame,
    send_frame,
    send_parts,
    signature,
)

__all__ = [
    "COALESCE_BYTES", "COTANGENT_SEED", "DEVICES", "DTYPES", "DTYPE_NAMES", "FRAME", "INT_RANGE", "MAC_BYTES",
    "MAX_DEPTH", "MAX_DIMS", "MAX_HEADER_BYTES", "MAX_ITEMS", "MAX_STRING", "Arena", "Decoder", "Encoder",
    "MessageTooLarge", "Opaque", "OverBudget", "ProtocolError", "RawFrame", "Unsigned", "blob_table", "decode",
    "default_cotangent_bytes", "dumps", "encode", "frame_parts", "loads", "map_arena", "open_frame", "read_frame",
    "recv_frame", "send_frame", "send_parts", "signature", "storages_of",
]
