"""This is what you get when the key/value heads are tiled (query head h reads key/value head h % G) instead of each
being repeated for a contiguous group of H/G query heads.

Overrides: _share_kv
Source: onnx/onnx pull request #7274 (the Attention op's GQA expanded KV heads with Tile, giving [head0, head1, head0, head1] where torch repeats each head in place)
"""


def _share_kv(t, num_heads):
    reps = [1] * t.dim()
    reps[-3] = num_heads // t.shape[-3]
    return t.repeat(*reps)
