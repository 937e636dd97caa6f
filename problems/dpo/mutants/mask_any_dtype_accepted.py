"""This is what you get when a mask of any dtype is accepted and converted with .bool() (an int64 attention mask, a float weight) instead of refused with a TypeError: the contract asks for a bool completion mask, and an attention mask is a different thing (it is True on the prompt too).

Overrides: sequence_logprob
"""

_reference_sequence_logprob = sequence_logprob


def sequence_logprob(logits, labels, mask):
    if isinstance(mask, torch.Tensor):
        mask = mask.bool()
    return _reference_sequence_logprob(logits, labels, mask)
