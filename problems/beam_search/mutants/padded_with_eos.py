"""This is what you get when the unused positions of tokens are filled with eos instead of -1.

Overrides: beam_search
"""

_reference_beam_search = beam_search


def beam_search(log_probs, bos, eos, beam_size, max_len, alpha=0.0):
    tokens, score = _reference_beam_search(log_probs, bos, eos, beam_size, max_len, alpha)
    return tokens.masked_fill(tokens < 0, eos), score
