"""This is what you get when the batch is flattened with .view: it needs contiguous memory, so logits sliced or
transposed from a larger tensor (a model's last position, logits[:, -1]) raise instead of being ranked.

Overrides: sampling_probs
"""

_reference_sampling_probs = sampling_probs


def sampling_probs(logits, temperature=1.0, top_k=0, top_p=1.0):
    check_logits(logits)
    flat = logits.view(-1, logits.shape[-1])  # [rows, V]
    return _reference_sampling_probs(flat, temperature, top_k, top_p).view(logits.shape)
