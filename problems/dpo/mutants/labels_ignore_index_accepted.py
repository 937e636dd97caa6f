"""This is what you get when negative labels such as -100 (cross_entropy's ignore index) are accepted and replaced by token 0 instead of refused with a ValueError: the contract asks for token ids in [0, V) at every position.

Overrides: sequence_logprob
"""

_reference_sequence_logprob = sequence_logprob


def sequence_logprob(logits, labels, mask):
    if isinstance(labels, torch.Tensor) and labels.dtype == torch.int64:
        labels = torch.where(labels < 0, torch.zeros_like(labels), labels)
    return _reference_sequence_logprob(logits, labels, mask)
