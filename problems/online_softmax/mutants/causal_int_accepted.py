"""This is what you get when causal is checked with causal in (True, False): 0 and 1 compare equal to False and True, so causal=1 is accepted instead of refused with TypeError.

Overrides: check_attention_inputs
"""

_reference_check_attention_inputs = check_attention_inputs


def check_attention_inputs(q, k, v, block_size, causal):
    if causal in (True, False):
        causal = bool(causal)
    _reference_check_attention_inputs(q, k, v, block_size, causal)
