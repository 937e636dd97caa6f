"""This is what you get when every token is decoded to text on its own and the pieces are joined: a character whose bytes two tokens share comes out as replacement characters.

Overrides: decode
Source: huggingface/transformers.js issue #853 (decoding tokens one by one gives wrong text for multi-byte characters); ggml-org/llama.cpp pull request #4446 (characters spanning several tokens broken when streaming)
"""


def decode(ids, merges):
    merges = check_merges(merges)
    check_ids(ids, merges)
    pieces = [bytes([value]) for value in range(BYTE_VALUES)]
    for left, right in merges:
        pieces.append(pieces[left] + pieces[right])
    return "".join(pieces[token].decode("utf-8", errors="replace") for token in ids)
