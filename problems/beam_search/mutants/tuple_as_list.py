"""This is what you get when the result is returned as a list [tokens, score]: unpacking works, but the contract
promises a tuple (and code that hashes or compares results by type breaks).

Overrides: beam_search
"""

_reference_beam_search = beam_search


def beam_search(log_probs, bos, eos, beam_size, max_len, alpha=0.0):
    return list(_reference_beam_search(log_probs, bos, eos, beam_size, max_len, alpha))
