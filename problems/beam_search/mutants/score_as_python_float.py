"""This is what you get when the score is returned as a Python float instead of a 0-d tensor of log_probs' dtype.

Overrides: beam_search
"""

_reference_beam_search = beam_search


def beam_search(log_probs, bos, eos, beam_size, max_len, alpha=0.0):
    tokens, score = _reference_beam_search(log_probs, bos, eos, beam_size, max_len, alpha)
    return tokens, float(score)
