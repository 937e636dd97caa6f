"""This is what you get when decode uses strict UTF-8: ids that end inside a character raise UnicodeDecodeError instead of giving U+FFFD.

Overrides: decode
Source: Blaizzy/mlx-vlm pull request #1778 (a strict decode raised UnicodeDecodeError on a character cut by a token boundary, issue #1771); timtoole02/Camelid pull request #288 (strict String::from_utf8 failed on a truncated emoji)
"""


def decode(ids, merges):
    merges = check_merges(merges)
    check_ids(ids, merges)
    pieces = [bytes([value]) for value in range(BYTE_VALUES)]
    for left, right in merges:
        pieces.append(pieces[left] + pieces[right])
    return b"".join(pieces[token] for token in ids).decode("utf-8")
