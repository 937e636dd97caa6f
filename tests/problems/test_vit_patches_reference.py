"""Fast in-process tests of the vit_patches reference: the statement's hand examples and the edge cases it fixes."""

from types import ModuleType

import pytest
import torch

from grader.problems import load_problem


@pytest.fixture(scope="module")
def ref() -> ModuleType:
    return load_problem("vit_patches").reference  # it imports helpers.py: load_problem makes that work


def _coordinates(c: int, h: int, w: int) -> torch.Tensor:
    cc, rr, ss = torch.meshgrid(torch.arange(c), torch.arange(h), torch.arange(w), indexing="ij")
    return (100 * cc + 10 * rr + ss).unsqueeze(0).double()


def test_patchify_hand_example(ref: ModuleType) -> None:
    patches = ref.patchify(_coordinates(2, 4, 4), 2)
    assert patches.shape == (1, 4, 8)
    assert patches[0, 1].tolist() == [2, 102, 3, 103, 12, 112, 13, 113]
    assert patches[0, 2].tolist() == [20, 120, 21, 121, 30, 130, 31, 131]


def test_patchify_rectangular_is_row_major(ref: ModuleType) -> None:
    patches = ref.patchify(_coordinates(1, 4, 6), 2)
    assert [row[0] for row in patches[0].tolist()] == [0, 2, 4, 20, 22, 24]


def test_patchify_is_a_copy_even_when_a_view_would_do(ref: ModuleType) -> None:
    images = torch.randn(2, 1, 3, 3)
    patches = ref.patchify(images, 1)
    assert patches.untyped_storage().data_ptr() != images.untyped_storage().data_ptr()


@pytest.mark.parametrize(("shape", "p"), [((1, 1, 5, 4), 2), ((1, 1, 4, 7), 2), ((1, 1, 3, 3), 4)])
def test_patchify_refuses_sizes_that_do_not_tile(ref: ModuleType, shape: tuple[int, ...], p: int) -> None:
    with pytest.raises(ValueError):
        ref.patchify(torch.zeros(shape), p)


def test_patch_embed_hand_example(ref: ModuleType) -> None:
    image = torch.tensor([[[[0.0, 1, 2, 3], [10, 11, 12, 13]]]])
    weight = torch.tensor([[1.0, 0, 0, 0], [0, 0, 0, 1]])
    pos_embed = torch.tensor([[100.0, 200], [1, 2], [3, 4]])
    out = ref.patch_embed(image, weight, torch.tensor([0.5, -0.5]), torch.tensor([7.0, 8]), pos_embed, 2)
    torch.testing.assert_close(out, torch.tensor([[[107.0, 208.0], [1.5, 12.5], [5.5, 16.5]]]))


def test_random_masking_hand_example(ref: ModuleType) -> None:
    tokens = torch.tensor([[[9.0], [10], [20], [30], [40]]], dtype=torch.float64)
    kept, mask, ids_restore = ref.random_masking(tokens, 0.5, torch.tensor([[0.6, 0.3, 0.9, 0.1]]))
    assert kept.flatten().tolist() == [9, 40, 20]
    assert mask.tolist() == [[1, 0, 1, 0]] and mask.dtype == torch.float64
    assert ids_restore.tolist() == [[2, 1, 3, 0]] and ids_restore.dtype == torch.int64


@pytest.mark.parametrize(("n", "ratio", "keep"), [(10, 0.75, 2), (10, 0.25, 7), (10, 0.9, 0), (5, 0, 5), (5, 1, 0)])
def test_len_keep_is_int_of_the_float_expression(ref: ModuleType, n: int, ratio: float, keep: int) -> None:
    kept, mask, _ = ref.random_masking(torch.randn(1, 1 + n, 2), ratio, torch.rand(1, n))
    assert kept.shape == (1, 1 + keep, 2)
    assert int(mask.sum()) == n - keep


def test_ties_keep_the_lower_index_first(ref: ModuleType) -> None:
    n = 24
    tokens = torch.arange(1 + n, dtype=torch.float64).reshape(1, 1 + n, 1)
    kept, _, ids_restore = ref.random_masking(tokens, 0.0, torch.full((1, n), 0.5))
    assert kept.flatten().tolist() == list(range(1 + n))
    assert ids_restore.tolist() == [list(range(n))]


def test_empty_patches_and_batch(ref: ModuleType) -> None:
    kept, mask, ids_restore = ref.random_masking(torch.randn(3, 1, 4), 0.5, torch.zeros(3, 0))
    assert kept.shape == (3, 1, 4) and mask.shape == (3, 0) and ids_restore.shape == (3, 0)
    kept, mask, ids_restore = ref.random_masking(torch.randn(0, 5, 2), 0.5, torch.zeros(0, 4))
    assert kept.shape == (0, 3, 2) and mask.shape == (0, 4)
