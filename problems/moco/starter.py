"""MoCo: the contrastive loss against a queue of negatives, the momentum encoder, and the circular dictionary.

Fill in the three functions below. The validation helpers are supplied in helpers.py (shown read-only under
the editor): they enforce the input contract described in the statement (types, dtypes, shapes, finite
values), so you can concentrate on the mathematics. Each function already calls its helper; keep that call.
"""

import torch

from helpers import validate_enqueue_inputs, validate_loss_inputs, validate_momentum_inputs


def moco_loss(query, key, queue, temperature):
    """The InfoNCE loss of MoCo, averaged over the batch.

    query: [B, D] tensor from the query encoder (gradients flow into it).
    key:   [B, D] tensor from the key encoder; key[i] is the only positive of query[i].
    queue: [K, D] tensor, one negative per row.
    temperature: a positive Python number T.

    Normalise every row of query, key and queue by max(L2 norm, 1e-12). For each i, the logits are
    q_i . k_i / T (the positive) followed by q_i . n_j / T for the K queue rows n_j. The loss of row i is
    logsumexp(all 1 + K logits) - positive logit. Return the mean over the batch as a 0-d tensor of the
    inputs' dtype. No gradient may reach key or queue.
    """
    validate_loss_inputs(query, key, queue, temperature)
    raise NotImplementedError("moco_loss is not written yet")


def momentum_update(query, key, momentum=0.999):
    """The momentum (EMA) update of the key encoder's parameters.

    query: the query encoder's parameters theta_q (a tensor of any shape).
    key:   the key encoder's parameters theta_k (the same shape and dtype).
    Returns m * theta_k + (1 - m) * theta_q as a new tensor that does not require grad and shares memory
    with neither input. The inputs are not modified.
    """
    validate_momentum_inputs(query, key, momentum)
    raise NotImplementedError("momentum_update is not written yet")


def enqueue(queue, keys, pointer):
    """Write a batch of keys into the circular dictionary.

    queue:   [K, D] current dictionary.
    keys:    [B, D] new keys (B may be 0 or larger than K).
    pointer: the slot the next key goes to, an int in [0, K).
    Normalise each key row by max(L2 norm, 1e-12), computed in float32 for float16/bfloat16 keys and cast
    back (in float16, 1e-12 rounds to 0); key j goes to slot (pointer + j) % K, so later keys
    overwrite earlier ones when B > K. Returns (new_queue, (pointer + B) % K). new_queue is a new tensor
    (same dtype, no gradient); queue and keys are not modified.
    """
    validate_enqueue_inputs(queue, keys, pointer)
    raise NotImplementedError("enqueue is not written yet")
