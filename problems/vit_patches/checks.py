"""Check battery for ViT patches and MAE's random masking (Dosovitskiy et al., 2021; He et al., 2022).

Groups `patchify`, `embed`, `masking` and `contract` are required; `experiment` is advisory (it records the chart
of the notes). The declared contract in problem.toml covers shapes, dtypes, layouts, inputs left unchanged, new
storage, requires_grad, gradients against the reference and central differences, the same tensor passed twice,
the refusals and a property search. The checks here hold what a declaration cannot say: the order of the patches
and of the features inside one, where the class token and each position embedding go, how many patches are kept,
which ones and in what order, the mask, the restoring permutation, ties and the edge ratios.

Every expected value comes from the loops written out in this file (an oracle independent of the reference).
patchify and random_masking only move values, so their results must match exactly; patch_embed's float64 sums are
compared at the contract's float64 tolerance.
"""

import torch

from grader.checks import (
    check,
    expect,
    expect_close,
    expect_equal,
    expect_rejected,
    expect_tensor,
    hint,
    legal_inputs,
)

F64 = torch.float64


# ---------------------------------------------------------------------------- inputs the contract draws


@legal_inputs("random_masking")
def _ratio_keeps_l(args, sizes):
    """The result's shape names L, the number of patches kept, so the ratio is chosen to keep exactly L of the
    N = L + E patches: N (1 - ratio) = L + 1/2, which int() rounds down to L whatever the float rounding."""
    kept, removed = sizes["L"], sizes["E"]
    n = kept + removed
    args["mask_ratio"] = 0.0 if removed == 0 else (removed - 0.5) / n
    return args


# ----------------------------------------------------------------------------- an independent oracle


def _patchify(images, p):
    """Loops: feature (r * P + s) * C + c of patch i * (W / P) + j is images[b, c, i P + r, j P + s]."""
    b, c, h, w = images.shape
    rows, cols = h // p, w // p
    out = torch.zeros(b, rows * cols, p * p * c, dtype=images.dtype)
    for i in range(rows):
        for j in range(cols):
            for r in range(p):
                for s in range(p):
                    for ch in range(c):
                        out[:, i * cols + j, (r * p + s) * c + ch] = images[:, ch, i * p + r, j * p + s]
    return out


def _embed(images, weight, bias, cls_token, pos_embed, p):
    patches = _patchify(images.detach().to(F64), p)
    tokens = patches @ weight.detach().to(F64).T + bias.detach().to(F64) + pos_embed.detach().to(F64)[1:]
    cls = (cls_token.detach().to(F64) + pos_embed.detach().to(F64)[0]).expand(images.shape[0], 1, -1)
    return torch.cat([cls, tokens], dim=1).to(images.dtype)


def _len_keep(n, ratio):
    return int(n * (1 - ratio))


def _masking(tokens, ratio, noise):
    """Loops: (kept, mask, ids_restore), the order sorted by (noise, index) so ties go to the lower index."""
    b, length, d = tokens.shape[0], tokens.shape[1] - 1, tokens.shape[2]
    keep = _len_keep(length, ratio)
    kept = torch.zeros(b, 1 + keep, d, dtype=tokens.dtype)
    mask = torch.ones(b, length, dtype=tokens.dtype)
    restore = torch.zeros(b, length, dtype=torch.int64)
    for row in range(b):
        order = sorted(range(length), key=lambda n, row=row: (float(noise[row, n]), n))
        kept[row, 0] = tokens[row, 0]
        for slot, n in enumerate(order):
            restore[row, n] = slot
            if slot < keep:
                kept[row, 1 + slot] = tokens[row, 1 + n]
                mask[row, n] = 0.0
    return kept, mask, restore


def _expect_masking(result, tokens, ratio, noise, *, why=""):
    got = result.unwrap()
    expect(
        isinstance(got, tuple) and len(got) == 3,
        f"{result.call} returned {type(got).__name__}; expected a tuple (kept, mask, ids_restore)",
    )
    kept, mask, restore = _masking(tokens.detach(), ratio, noise)
    b, length, d = tokens.shape[0], tokens.shape[1] - 1, tokens.shape[2]
    keep = _len_keep(length, ratio)
    _expect_shape(
        got[0],
        shape=(b, 1 + keep, d),
        dtype=tokens.dtype,
        what="kept",
        call=result,
        why=f"(the class token, then len_keep = int({length} * (1 - {ratio})) = {keep} patches)",
    )
    expect_tensor(got[1], shape=(b, length), dtype=tokens.dtype, what="mask", call=result)
    expect_tensor(got[2], shape=(b, length), dtype=torch.int64, what="ids_restore", call=result)
    expect_close(got[0], kept, what="kept", call=result, rtol=0, atol=0, hint=why)
    expect_close(got[1], mask, what="mask", call=result, rtol=0, atol=0, hint=why)
    expect_equal(got[2], restore, what="ids_restore", call=result, hint=why)


def _expect_shape(got, *, shape, dtype, call, what="the result", why=""):
    """Shape and dtype first, with the reason the size is what it is."""
    with hint(why):
        expect_tensor(got, shape=shape, dtype=dtype, what=what, call=call)


def _coordinates(b, c, h, w, dtype=F64):
    """Pixel (b, c, r, s) holds 1000 b + 100 c + 10 r + s: every value names its own place."""
    bb, cc, rr, ss = torch.meshgrid(torch.arange(b), torch.arange(c), torch.arange(h), torch.arange(w), indexing="ij")
    return (1000 * bb + 100 * cc + 10 * rr + ss).to(dtype)


def _randn(seed, *shape, dtype=F64):
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=generator, dtype=F64).to(dtype)


def _rand(seed, *shape, dtype=F64):
    generator = torch.Generator().manual_seed(seed)
    return torch.rand(*shape, generator=generator, dtype=F64).to(dtype)


# ------------------------------------------------------------------------------------------- patchify


@check(
    "patchify.hand_example",
    "Hand example: a 2-channel 4 x 4 image whose pixels hold 100 c + 10 row + column, P = 2",
    clauses=["patchify.order", "patchify.flatten"],
)
def patchify_hand_example(sub, ref):
    # Patch 1 is row 0, column 1 of the 2 x 2 grid: rows 0-1, columns 2-3. In (row, column, channel) order its
    # features are (0,2,c0) (0,2,c1) (0,3,c0) (0,3,c1) (1,2,c0) ... = 2, 102, 3, 103, 12, 112, 13, 113.
    images = _coordinates(1, 2, 4, 4)
    result = sub.patchify.call(images, 2)
    got = result.unwrap()
    _expect_shape(
        got,
        shape=(1, 4, 8),
        dtype=F64,
        call=result,
        why="(N = (4 / 2) * (4 / 2) = 4 patches of P * P * C = 8 features)",
    )
    expected = torch.tensor(
        [
            [
                [0, 100, 1, 101, 10, 110, 11, 111],
                [2, 102, 3, 103, 12, 112, 13, 113],
                [20, 120, 21, 121, 30, 130, 31, 131],
                [22, 122, 23, 123, 32, 132, 33, 133],
            ]
        ],
        dtype=F64,
    )
    expect_close(
        got,
        expected,
        call=result,
        rtol=0,
        atol=0,
        hint="(pixel values are 100 c + 10 row + column. Patch 1 is the top-right one, rows 0-1 and "
        "columns 2-3, flattened row by row, and within a pixel channel by channel: [2, 102, 3, 103, "
        "12, 112, 13, 113]; channel-first flattening would give [2, 3, 12, 13, 102, ...])",
    )


@check(
    "patchify.rectangular",
    "A 4 x 6 image: three patches per row, numbered left to right, then top to bottom",
    clauses=["patchify.order"],
)
def patchify_rectangular(sub, ref):
    # H / P = 2 rows of patches and W / P = 3 columns: patch n is row n // 3, column n % 3. The transposed image
    # (6 x 4) has three rows of two: a solution that assumes square images, or numbers the patches column by column,
    # gets one of them wrong.
    wide, tall = _coordinates(2, 3, 4, 6), _coordinates(1, 1, 6, 4)
    results = sub.patchify.map([((wide, 2), {}), ((tall, 2), {})])
    for result, images in zip(results, (wide, tall), strict=True):
        got = result.unwrap()
        rows, cols = images.shape[2] // 2, images.shape[3] // 2
        _expect_shape(
            got,
            shape=(images.shape[0], rows * cols, 4 * images.shape[1]),
            dtype=F64,
            call=result,
            why=f"(an {images.shape[2]} x {images.shape[3]} image in 2 x 2 patches has {rows} x {cols} "
            "patches: use H / P and W / P separately)",
        )
        expect_close(
            got,
            _patchify(images, 2),
            call=result,
            rtol=0,
            atol=0,
            hint=f"(pixel values are 1000 b + 100 c + 10 row + column; patch n sits in row n // {cols}, "
            f"column n % {cols} of the grid: left to right along the top row first, "
            "each patch a contiguous P x P block)",
        )


@check(
    "patchify.shapes",
    "Patches of 1, 3 and 4 pixels a side, 1 to 4 channels, both dtypes, against loops",
    clauses=["patchify.order", "patchify.flatten"],
)
def patchify_shapes(sub, ref):
    cases = [
        (_randn(1, 2, 3, 3, 6), 3),  # one row of two 3 x 3 patches, three channels
        (_randn(2, 1, 4, 4, 4, dtype=torch.float32), 4),  # a single patch of four channels
        (_randn(3, 3, 1, 2, 3), 1),  # P = 1: every pixel its own patch
        (_randn(4, 1, 2, 6, 4, dtype=torch.float32), 2),  # two channels, three rows of two patches
    ]
    results = sub.patchify.map([((images, p), {}) for images, p in cases])
    for result, (images, p) in zip(results, cases, strict=True):
        got = result.unwrap()
        b, c, h, w = images.shape
        expect_tensor(got, shape=(b, (h // p) * (w // p), p * p * c), dtype=images.dtype, call=result)
        expect_close(
            got,
            _patchify(images, p),
            call=result,
            rtol=0,
            atol=0,
            hint="(feature (r * P + s) * C + c of patch i * (W / P) + j is pixel (i P + r, j P + s) of "
            "channel c: patchify only moves values)",
        )


@check(
    "patchify.divisible",
    "Sizes that do not tile into whole patches are refused with ValueError",
    clauses=["patchify.divisible"],
)
def patchify_divisible(sub, ref):
    expect_rejected(
        "ValueError",
        sub.patchify,
        [
            ((_randn(5, 1, 3, 5, 4), 2), {}, "H = 5 is not a multiple of patch_size = 2 (the last row would be lost)"),
            ((_randn(6, 1, 3, 4, 7), 2), {}, "W = 7 is not a multiple of patch_size = 2"),
            ((_randn(7, 1, 1, 3, 3), 4), {}, "patch_size = 4 is larger than the 3 x 3 image"),
            ((_randn(8, 2, 3, 6, 9), 4), {}, "neither 6 nor 9 is a multiple of 4"),
        ],
    )
    expect_rejected(
        "ValueError",
        sub.patch_embed,
        [
            (
                (_randn(9, 1, 1, 4, 5), _randn(10, 2, 4), _randn(11, 2), _randn(12, 2), _randn(13, 3, 2), 2),
                {},
                "W = 5 is not a multiple of patch_size = 2",
            ),
        ],
    )


# ---------------------------------------------------------------------------------------------- embed


def _embed_hand_inputs():
    # One 2 x 4 image with pixel 10 row + column, P = 2: patch 0 flattens to [0, 1, 10, 11], patch 1 to [2, 3, 12,
    # 13]. Row 0 of weight picks a patch's first feature, row 1 its last: patch 0 -> [0, 11], patch 1 -> [2, 13].
    images = _coordinates(1, 1, 2, 4)
    weight = torch.tensor([[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]], dtype=F64)
    bias = torch.tensor([0.5, -0.5], dtype=F64)
    cls_token = torch.tensor([7.0, 8.0], dtype=F64)
    pos_embed = torch.tensor([[100.0, 200.0], [1.0, 2.0], [3.0, 4.0]], dtype=F64)
    return images, weight, bias, cls_token, pos_embed


@check(
    "embed.hand_example",
    "Hand example: two patches, a weight that picks one pixel per output, a class token",
    clauses=["embed.linear", "embed.cls"],
)
def embed_hand_example(sub, ref):
    images, weight, bias, cls_token, pos_embed = _embed_hand_inputs()
    result = sub.patch_embed.call(images, weight, bias, cls_token, pos_embed, 2)
    got = result.unwrap()
    _expect_shape(
        got,
        shape=(1, 3, 2),
        dtype=F64,
        call=result,
        why="(1 + N = 3 rows: the class token, then the two patches; D = 2 columns)",
    )
    expected = torch.tensor([[[107.0, 208.0], [1.5, 12.5], [5.5, 16.5]]], dtype=F64)
    expect_close(
        got,
        expected,
        call=result,
        hint="(row 0 = cls_token + pos_embed[0] = [107, 208]; patch 0 = [0, 1, 10, 11] gives [0, 11] + "
        "bias [0.5, -0.5] + pos_embed[1] [1, 2] = [1.5, 12.5]; patch 1 = [2, 3, 12, 13] gives [2, 13] + "
        "[0.5, -0.5] + [3, 4] = [5.5, 16.5]. weight is [D, P*P*C]: multiply by its transpose)",
    )


@check(
    "embed.tokens",
    "The class token and every patch token, with its own position embedding, for a batch of 3",
    clauses=["embed.linear", "embed.cls"],
)
def embed_tokens(sub, ref):
    # Three 6 x 4 two-channel images in 2 x 2 patches: N = 6, K = 8, D = 5. The position embedding rows differ by
    # thousands, so a token that took its neighbour's position is off by 1000.
    images = _randn(20, 3, 2, 6, 4)
    weight, bias, cls_token = _randn(21, 5, 8), _randn(22, 5), _randn(23, 5)
    pos_embed = 1000.0 * torch.arange(7, dtype=F64).unsqueeze(1) + _randn(24, 7, 5)
    result = sub.patch_embed.call(images, weight, bias, cls_token, pos_embed, 2)
    got = result.unwrap()
    expected = _embed(images, weight, bias, cls_token, pos_embed, 2)
    expect_tensor(got, shape=(3, 7, 5), dtype=F64, call=result)
    expect_close(
        got[:, 0],
        expected[:, 0],
        what="row 0 (the class token) of every sample",
        call=result,
        hint="(row 0 is cls_token + pos_embed[0], the same for every sample: the class token comes first "
        "and takes position 0)",
    )
    expect_close(
        got[:, 1:],
        expected[:, 1:],
        what="rows 1 to N (the patch tokens)",
        call=result,
        hint="(row 1 + n = patch n @ weight.T + bias + pos_embed[1 + n]; position embedding 1000 k is row k, "
        "so an error near a multiple of 1000 means a token took another row's position)",
    )


@check(
    "embed.shapes",
    "A position table of another length, a transposed weight, MAE's [1, 1, D] class token: refused with ValueError",
    clauses=["embed.shapes"],
)
def embed_shapes(sub, ref):
    # 4 x 6 images in 2 x 2 patches: N = 6, K = 4, D = 3. Only pos_embed [7, 3] fits.
    images, weight, bias, cls_token = _randn(25, 2, 1, 4, 6), _randn(26, 3, 4), _randn(27, 3), _randn(28, 3)
    pos = _randn(29, 9, 3)
    expect_rejected(
        "ValueError",
        sub.patch_embed,
        [
            (
                (images, weight, bias, cls_token, pos, 2),
                {},
                "pos_embed has 9 rows where 1 + N = 7: a table made for larger images must not be silently cut to "
                "its first rows",
            ),
            ((images, weight, bias, cls_token, pos[:6].clone(), 2), {}, "pos_embed has 6 rows where 1 + N = 7"),
            (
                (images, weight.T.clone(), bias, cls_token, pos[:7].clone(), 2),
                {},
                "weight is [P*P*C, D], not [D, P*P*C]",
            ),
            (
                (images, weight, bias, cls_token.reshape(1, 1, 3), pos[:7].clone(), 2),
                {},
                "cls_token is [1, 1, D]; the contract says [D]",
            ),
        ],
    )


# -------------------------------------------------------------------------------------------- masking


def _hand_tokens():
    # Class token 9, patches 10, 20, 30, 40 (D = 1); noise 0.6, 0.3, 0.9, 0.1 sorts as patches 3, 1, 0, 2.
    tokens = torch.tensor([[[9.0], [10.0], [20.0], [30.0], [40.0]]], dtype=F64)
    noise = torch.tensor([[0.6, 0.3, 0.9, 0.1]], dtype=F64)
    return tokens, noise


@check(
    "masking.hand_example",
    "Hand example: four patches, mask_ratio = 0.5, noise 0.6, 0.3, 0.9, 0.1",
    clauses=["masking.len_keep", "masking.shuffle", "masking.cls", "masking.mask", "masking.restore"],
)
def masking_hand_example(sub, ref):
    # len_keep = int(4 * 0.5) = 2; ids_shuffle = [3, 1, 0, 2], so patches 3 and 1 (values 40 and 20) stay, in that
    # order, after the class token; mask = [1, 0, 1, 0]; ids_restore = argsort([3, 1, 0, 2]) = [2, 1, 3, 0].
    tokens, noise = _hand_tokens()
    result = sub.random_masking.call(tokens, 0.5, noise)
    got = result.unwrap()
    expect(
        isinstance(got, tuple) and len(got) == 3,
        f"{result.call} returned {type(got).__name__}; expected a tuple (kept, mask, ids_restore)",
    )
    kept, mask, restore = got
    _expect_shape(
        kept,
        shape=(1, 3, 1),
        dtype=F64,
        what="kept",
        call=result,
        why="(the class token, then len_keep = int(4 * (1 - 0.5)) = 2 patches)",
    )
    expect_close(
        kept,
        torch.tensor([[[9.0], [40.0], [20.0]]], dtype=F64),
        what="kept",
        call=result,
        rtol=0,
        atol=0,
        hint="(ids_shuffle = argsort(noise) = [3, 1, 0, 2], ascending: the two patches with the smallest "
        "noise, patch 3 (value 40) then patch 1 (value 20), follow the class token 9 in that order, the "
        "smallest noise first, not in the patches' own order)",
    )
    expect_tensor(mask, shape=(1, 4), dtype=F64, what="mask", call=result)
    expect_close(
        mask,
        torch.tensor([[1.0, 0.0, 1.0, 0.0]], dtype=F64),
        what="mask",
        call=result,
        rtol=0,
        atol=0,
        hint="(1 = removed, in the patches' own order: patches 0 and 2 were removed)",
    )
    expect_tensor(restore, shape=(1, 4), dtype=torch.int64, what="ids_restore", call=result)
    expect_equal(restore, torch.tensor([[2, 1, 3, 0]]), what="ids_restore", call=result)


LEN_KEEP_CASES = [  # (N, mask_ratio): len_keep = int(N * (1 - mask_ratio)) in Python floats
    (4, 0.75),  # 1
    (10, 0.75),  # int(2.5) = 2: rounded down, not to nearest
    (10, 0.25),  # int(7.5) = 7
    (7, 0.5),  # int(3.5) = 3
    (10, 0.9),  # 1 - 0.9 = 0.09999999999999998, so int(0.9999999999999998) = 0
    (3, 1 / 3),  # 3 * 0.6666666666666667 = 2.0: 2
    (16, 0.75),  # 4, exact
    (5, 0),  # an int ratio: every patch
    (5, 1),  # an int ratio: none
]


@check(
    "masking.len_keep",
    "len_keep = int(N * (1 - mask_ratio)) exactly: rounded down, class token not counted",
    clauses=["masking.len_keep", "masking.cls"],
)
def masking_len_keep(sub, ref):
    calls = []
    for index, (n, ratio) in enumerate(LEN_KEEP_CASES):
        tokens = _randn(30 + index, 2, 1 + n, 3)
        calls.append(((tokens, ratio, _rand(50 + index, 2, n)), {}))
    results = sub.random_masking.map(calls)
    for result, (n, ratio), ((tokens, _, noise), _) in zip(results, LEN_KEEP_CASES, calls, strict=True):
        got = result.unwrap()
        keep = _len_keep(n, ratio)
        expect(
            isinstance(got, tuple) and len(got) == 3 and isinstance(got[0], torch.Tensor),
            f"{result.call} returned {type(got).__name__}; expected a tuple (kept, mask, ids_restore)",
        )
        expect(
            got[0].dim() == 3 and got[0].shape[1] == 1 + keep,
            f"{result.call}: kept has {got[0].shape[1] - 1 if got[0].dim() == 3 else '?'} patches after the "
            f"class token, expected len_keep = int({n} * (1 - {ratio})) = int({n * (1 - ratio)!r}) = {keep}: "
            "evaluate exactly this expression in Python floats (rounded down by int(), not rounded to nearest, "
            "not N - int(N * ratio)), with N the number of patches, the class token not counted",
        )
        _expect_masking(result, tokens, ratio, noise)


@check("masking.per_sample", "Each sample is shuffled by its own noise", clauses=["masking.shuffle", "masking.mask"])
def masking_per_sample(sub, ref):
    # Three samples, six patches, the same tokens in each sample but different noise: each keeps its own three.
    tokens = _randn(60, 1, 7, 2).expand(3, 7, 2).clone()
    noise = torch.tensor(
        [[0.5, 0.4, 0.3, 0.2, 0.1, 0.0], [0.0, 0.1, 0.2, 0.3, 0.4, 0.5], [0.3, 0.9, 0.1, 0.7, 0.5, 0.2]], dtype=F64
    )
    result = sub.random_masking.call(tokens, 0.5, noise)
    _expect_masking(
        result,
        tokens,
        0.5,
        noise,
        why="(sample b is sorted by noise[b] along the patch axis: sample 0 keeps patches 5, 4, 3, "
        "sample 1 patches 0, 1, 2, sample 2 patches 2, 5, 0, each in that order, the smallest noise "
        "first)",
    )


@check(
    "masking.restore",
    "Gathering [kept patches, fillers] with ids_restore puts every patch back in its place",
    clauses=["masking.restore", "masking.mask"],
)
def masking_restore(sub, ref):
    # MAE's decoder appends one mask token per removed patch to the kept ones and unshuffles with ids_restore:
    # the visible patches must land where they came from and the fillers exactly where mask is 1.
    b, n, d = 2, 8, 3
    tokens = _randn(70, b, 1 + n, d)
    noise = _rand(71, b, n)
    result = sub.random_masking.call(tokens, 0.75, noise)
    got = result.unwrap()
    expect(
        isinstance(got, tuple) and len(got) == 3,
        f"{result.call} returned {type(got).__name__}; expected a tuple (kept, mask, ids_restore)",
    )
    kept, mask, restore = got
    keep = _len_keep(n, 0.75)
    expect_tensor(kept, shape=(b, 1 + keep, d), dtype=F64, what="kept", call=result)
    expect_tensor(restore, shape=(b, n), dtype=torch.int64, what="ids_restore", call=result)
    expect_tensor(mask, shape=(b, n), dtype=F64, what="mask", call=result)
    expect(
        bool((restore.sort(dim=1).values == torch.arange(n)).all()),
        f"{result.call}: ids_restore = {restore.tolist()} is not a permutation of 0 .. {n - 1} in every row",
    )
    filler = torch.full((b, n - keep, d), 1e6, dtype=F64)
    full = torch.cat([kept[:, 1:], filler], dim=1)
    unshuffled = torch.gather(full, 1, restore.unsqueeze(-1).expand(b, n, d))
    removed = (mask == 1).unsqueeze(-1)
    expected = torch.where(removed, filler[:, :1].expand(b, n, d), tokens[:, 1:])
    expect_close(
        unshuffled,
        expected,
        what="torch.gather(cat([kept[:, 1:], fillers]), 1, ids_restore)",
        call=result,
        rtol=0,
        atol=0,
        hint="(slot k of the shuffled sequence holds patch ids_shuffle[k], so patch n sits at slot "
        "ids_restore[n] = the position of n in ids_shuffle: ids_restore is argsort(ids_shuffle), the "
        "inverse permutation, not ids_shuffle itself; and mask must be 1 exactly at the patches that "
        "came back as fillers)",
    )
    _expect_masking(result, tokens, 0.75, noise)


@check(
    "masking.edges",
    "mask_ratio 0 keeps every patch in noise order, 1 keeps only the class token; N = 0, B = 0",
    clauses=["masking.edges", "masking.cls", "masking.len_keep"],
)
def masking_edges(sub, ref):
    tokens = _randn(80, 2, 6, 2)
    noise = _rand(81, 2, 5)
    cases = [
        ((tokens, 0.0, noise), "mask_ratio = 0 keeps all 5 patches, still shuffled by the noise, and mask is all 0"),
        (
            (tokens, 1.0, noise),
            "mask_ratio = 1 keeps the class token alone; mask is all 1 and ids_restore still the "
            "inverse of the noise's order",
        ),
        (
            (_randn(82, 3, 1, 4), 0.5, torch.zeros(3, 0, dtype=F64)),
            "N = 0: tokens hold the class token only; kept is [B, 1, D], mask and ids_restore are [B, 0]",
        ),
        ((_randn(83, 0, 5, 2), 0.5, torch.zeros(0, 4, dtype=F64)), "B = 0: an empty batch gives empty results"),
    ]
    results = sub.random_masking.map([(args, {}) for args, _ in cases])
    for result, ((t, ratio, z), why) in zip(results, cases, strict=True):
        _expect_masking(result, t, ratio, z, why=f"({why})")


@check(
    "masking.class_token",
    "The class token stays first and is never masked, whatever the noise (negative values included)",
    clauses=["masking.cls"],
)
def masking_class_token(sub, ref):
    # noise may be any finite number; only its order counts. With negative draws, a class token shuffled in with
    # noise 0 would land among the patches; it must stay row 0 of kept, outside mask and ids_restore.
    tokens = _randn(85, 3, 9, 2)
    tokens[:, 0] = 100.0
    noise = _randn(86, 3, 8)
    ratios = (0.0, 0.75, 1.0)
    results = sub.random_masking.map([((tokens, ratio, noise), {}) for ratio in ratios])
    for result, ratio in zip(results, ratios, strict=True):
        got = result.unwrap()
        expect(
            isinstance(got, tuple) and len(got) == 3 and isinstance(got[0], torch.Tensor) and got[0].dim() == 3,
            f"{result.call} returned {type(got).__name__}; expected a tuple (kept, mask, ids_restore)",
        )
        expect(
            got[0].shape[0] == 3 and got[0].shape[1] >= 1 and bool((got[0][:, 0] == 100.0).all()),
            f"{result.call}: row 0 of kept is {got[0][:, 0].tolist() if got[0].shape[1] else 'missing'}, expected "
            "the class token, 100 in every sample: set row 0 of tokens aside, shuffle and mask the N patches "
            "only (their noise may be negative), and put the class token back in front",
        )
        _expect_masking(result, tokens, ratio, noise)


@check("masking.ties", "Equal noise values keep the patches' own order (a stable sort)", clauses=["masking.shuffle"])
def masking_ties(sub, ref):
    # 24 patches with noise from only three values: within a value, the lower patch index comes first. torch's
    # default CPU sort is not stable for rows this long; torch.argsort(..., stable=True) is.
    n = 24
    tokens = torch.arange(1 + n, dtype=F64).reshape(1, 1 + n, 1).expand(2, 1 + n, 1).clone()
    generator = torch.Generator().manual_seed(90)
    noise = torch.tensor([0.25, 0.5, 0.75], dtype=F64)[torch.randint(0, 3, (2, n), generator=generator)]
    noise[1] = 0.5  # the second sample: every value tied
    result = sub.random_masking.call(tokens, 0.5, noise)
    _expect_masking(
        result,
        tokens,
        0.5,
        noise,
        why="(token n + 1 holds the value n + 1, so kept shows the order directly; among equal noise "
        "values the lower patch index comes first: sort with stable=True)",
    )


@check(
    "masking.mixed_dtypes",
    "Noise of another dtype than the tokens: its own values decide the order, the results follow the tokens",
    clauses=["masking.mask", "masking.shuffle"],
)
def masking_mixed_dtypes(sub, ref):
    # float32 noise with float64 tokens; then float64 noise whose values differ by 1e-12, far below float32's
    # resolution near 0.5, with float32 tokens: cast to float32 they would all tie and the order would change.
    tokens = _randn(95, 2, 7, 3)
    noise = _rand(96, 2, 6, dtype=torch.float32)
    fine_tokens = _randn(97, 1, 9, 2, dtype=torch.float32)
    fine_noise = 0.5 + 1e-12 * torch.tensor([[7.0, 3.0, 5.0, 1.0, 8.0, 2.0, 6.0, 4.0]], dtype=F64)
    results = sub.random_masking.map([((tokens, 0.5, noise), {}), ((fine_tokens, 0.5, fine_noise), {})])
    _expect_masking(
        results[0],
        tokens,
        0.5,
        noise,
        why="(noise only orders the patches; kept and mask take tokens' dtype, ids_restore is int64)",
    )
    _expect_masking(
        results[1],
        fine_tokens,
        0.5,
        fine_noise,
        why="(the noise values 0.5 + k * 1e-12 are all different in float64: patches 3, 5, 1, 7 have the smallest; "
        "sort the noise as it is given, without converting it to the tokens' dtype)",
    )


@check(
    "masking.extremes",
    "Values are moved exactly, however large or small: 1e300, subnormal numbers, float32's largest",
    clauses=["patchify.flatten", "masking.shuffle"],
)
def extremes(sub, ref):
    # patchify and random_masking only move values: a solution that moves them with arithmetic (a one-hot matrix
    # product, a multiplication by a 0/1 mask) turns 1e300 * 0 + ... into the right value only by luck, and loses
    # subnormal numbers or overflows float32 near its largest value.
    big = torch.tensor([1e300, -1e300, 5e-324, -3e-310, 1.0, 0.0, 2.5e-320, 7e299], dtype=F64)
    images = big[torch.arange(32) % 8].reshape(1, 2, 4, 4)
    images32 = torch.tensor([3.4e38, -3.4e38, 1e-45, 1.0], dtype=torch.float32)[torch.arange(16) % 4].reshape(
        1, 1, 4, 4
    )
    patch_results = sub.patchify.map([((images, 2), {}), ((images32, 2), {})])
    for result, source in zip(patch_results, (images, images32), strict=True):
        expect_close(
            result.unwrap(),
            _patchify(source, 2),
            call=result,
            rtol=0,
            atol=0,
            hint="(patchify only moves values: every pixel must arrive bit for bit, 1e300 and 5e-324 included)",
        )
    tokens = big[torch.arange(2 * 9 * 2) % 8].reshape(2, 9, 2)
    noise = _rand(98, 2, 8)
    tokens32 = images32.reshape(1, 16, 1)
    results = sub.random_masking.map([((tokens, 0.5, noise), {}), ((tokens32, 0.25, _rand(99, 1, 15)), {})])
    _expect_masking(results[0], tokens, 0.5, noise, why="(kept tokens are copies: gather them, do not multiply)")
    _expect_masking(
        results[1], tokens32, 0.25, _rand(99, 1, 15), why="(kept tokens are copies: gather them, do not multiply)"
    )


# ------------------------------------------------------------------------------------------ experiment

SIDE, PATCH, IMAGES, SIGMA, RADIUS = 32, 4, 16, 1.5, 6
RATIOS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.75, 0.9]


def _smooth_images(generator):
    """IMAGES grayscale SIDE x SIDE images, each a sum of six plane waves of at most two cycles per side, scaled to
    zero mean and unit variance: smooth, so a pixel is well predicted by the pixels around it."""
    coords = torch.arange(SIDE, dtype=F64)
    y, x = torch.meshgrid(coords, coords, indexing="ij")
    images = torch.zeros(IMAGES, 1, SIDE, SIDE, dtype=F64)
    for k in range(IMAGES):
        freq = torch.randint(0, 3, (6, 2), generator=generator).to(F64)
        phase = 2 * torch.pi * torch.rand(6, generator=generator, dtype=F64)
        amp = torch.randn(6, generator=generator, dtype=F64)
        angle = 2 * torch.pi * (freq[:, 0, None, None] * x + freq[:, 1, None, None] * y) / SIDE + phase[:, None, None]
        image = (amp[:, None, None] * torch.cos(angle)).sum(dim=0)
        images[k, 0] = (image - image.mean()) / image.std().clamp_min(1e-6)
    return images


def _blur(x):
    """A Gaussian blur (sigma SIGMA pixels), as two 1-D convolutions."""
    offsets = torch.arange(-RADIUS, RADIUS + 1, dtype=F64)
    kernel = torch.exp(-(offsets**2) / (2 * SIGMA**2))
    x = torch.nn.functional.conv2d(x, kernel.view(1, 1, 1, -1), padding=(0, RADIUS))
    return torch.nn.functional.conv2d(x, kernel.view(1, 1, -1, 1), padding=(RADIUS, 0))


def _to_pixels(per_patch, grid):
    """[IMAGES, N, P*P] patches of one channel back to [IMAGES, 1, SIDE, SIDE] images."""
    blocks = per_patch.reshape(IMAGES, grid, grid, PATCH, PATCH).permute(0, 1, 3, 2, 4)
    return blocks.reshape(IMAGES, 1, SIDE, SIDE)


@check(
    "experiment.redundancy",
    "Your functions on smooth images: how well the visible pixels predict the removed patches as the mask ratio grows",
    group="experiment",
    required=False,
)
def experiment(sub, ref, ctx):
    generator = torch.Generator().manual_seed(2022)
    images = _smooth_images(generator)
    grid = SIDE // PATCH
    n, k = grid * grid, PATCH * PATCH
    noise = torch.rand(IMAGES, n, generator=generator, dtype=F64)  # one draw: the masks of higher ratios nest
    patches = sub.patchify.call(images, PATCH).unwrap().detach().to(F64)  # [16, 64, 16]
    tokens = torch.cat([torch.zeros(IMAGES, 1, k, dtype=F64), patches], dim=1)
    results = sub.random_masking.map([((tokens, ratio, noise), {}) for ratio in RATIOS])
    series = {"interpolation_error": [], "mean_fill_error": [], "isolated_percent": []}
    for result in results:
        kept, mask, restore = result.unwrap()
        kept, mask = kept.detach().to(F64), mask.detach().to(F64)
        keep = kept.shape[1] - 1
        # the visible patches put back in place with YOUR ids_restore, zeros where a patch was removed
        shuffled = torch.cat([kept[:, 1:], torch.zeros(IMAGES, n - keep, k, dtype=F64)], dim=1)
        placed = torch.gather(shuffled, 1, restore.unsqueeze(-1).expand(IMAGES, n, k))
        visible = _to_pixels((1.0 - mask).unsqueeze(-1).expand(IMAGES, n, k), grid)
        seen = _to_pixels(placed, grid) * visible
        # normalised convolution: each pixel is the Gaussian-weighted mean of the visible pixels around it
        weight = _blur(visible)
        guess = torch.where(weight > 1e-9, _blur(seen) / weight.clamp_min(1e-12), torch.zeros_like(weight))
        mean_guess = (seen.sum(dim=(1, 2, 3)) / visible.sum(dim=(1, 2, 3)).clamp_min(1)).view(IMAGES, 1, 1, 1)
        removed = visible < 0.5
        power = float((images[removed] ** 2).mean()) if bool(removed.any()) else 1.0
        series["interpolation_error"].append(float(((guess - images)[removed] ** 2).mean()) / power)
        series["mean_fill_error"].append(float(((mean_guess - images)[removed] ** 2).mean()) / power)
        # removed patches with no visible patch among their four neighbours
        grid_visible = (1.0 - mask).reshape(IMAGES, 1, grid, grid)
        around = torch.nn.functional.conv2d(
            grid_visible, torch.tensor([[[[0.0, 1, 0], [1, 0, 1], [0, 1, 0]]]], dtype=F64), padding=1
        ).reshape(IMAGES, n)
        isolated = (mask > 0.5) & (around < 0.5)
        series["isolated_percent"].append(100.0 * float(isolated.sum()) / max(1, int((mask > 0.5).sum())))
    ctx.record_experiment(steps=[round(100 * r) for r in RATIOS], series=series, x_label="mask ratio (%)")
