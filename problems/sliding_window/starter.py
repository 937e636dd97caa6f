"""Causal sliding-window attention (Beltagy et al., 2020; Jiang et al., 2023). Implement the three functions
below; the helpers of helpers.py (read-only under the editor) check the contract for you."""

import math

import torch

from helpers import check_attention_inputs, check_length_and_window, check_mask_and_padding


def sliding_window_mask(T, window):
    """bool [T, T]; entry [i, j] is True exactly when query i may attend key j: i - window < j <= i.

    T: a Python int >= 0; window: a Python int >= 1 (the number of keys a query sees, itself included).
    """
    check_length_and_window(T, window)
    # 1. the positions of the queries (rows) and of the keys (columns)
    # 2. allowed = not in the future, and fewer than `window` positions back
    raise NotImplementedError("sliding_window_mask: compare every query position with every key position")


def combine_with_padding(mask, key_padding):
    """bool [B, Tq, Tk]: mask [Tq, Tk] (True = may attend) for every batch element, with the keys where
    key_padding [B, Tk] is False (padding) removed. Query rows are not removed."""
    check_mask_and_padding(mask, key_padding)
    raise NotImplementedError("combine_with_padding: broadcast the padding along the query axis")


def windowed_attention(q, k, v, window, key_padding=None):
    """softmax(q k^T / sqrt(D)) v, each query over the keys its window (and the padding) allows.

    q, k: [B, H, T, D], v: [B, H, T, Dv]; window: a Python int >= 1; key_padding: None or bool [B, T],
    True = real token. Returns [B, H, T, Dv]. A query with no allowed key returns zeros, with no NaN in value
    or gradient.
    """
    check_attention_inputs(q, k, v, window, key_padding)
    # 1. the allowed keys: your sliding_window_mask, combined with the padding (the same for every head)
    # 2. scores q k^T / sqrt(D); forbidden keys get -inf before the softmax
    # 3. softmax over the keys; rows with no allowed key must come out as zero weights, not NaN
    # 4. weights times v
    raise NotImplementedError("windowed_attention: follow steps 1-4 above")
