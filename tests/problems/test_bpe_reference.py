"""Fast in-process tests of the byte-pair encoding reference: the statement's hand example and its rules."""

from types import ModuleType

import pytest

from grader.problems import load_problem

HUG_MERGES = [(117, 103), (32, 112), (104, 256), (117, 110)]


@pytest.fixture(scope="module")
def ref() -> ModuleType:
    return load_problem("bpe").reference


def test_hand_example(ref: ModuleType) -> None:
    assert ref.learn_bpe("hug pug pun bun hugs", 10) == HUG_MERGES
    assert ref.encode("hugs bun", HUG_MERGES) == [258, 115, 32, 98, 259]
    assert ref.decode([258, 115, 32, 98, 259], HUG_MERGES) == "hugs bun"


@pytest.mark.parametrize(("text", "merges"), [
    pytest.param("aaa bb", [(97, 97)], id="overlaps-count"),
    pytest.param("ab cb db eb", [], id="never-across-words"),
    pytest.param("dd bb dd bb", [(32, 98), (100, 100), (256, 98)], id="ties-to-the-smallest-pair"),
    pytest.param("né né", [(110, 195), (256, 169)], id="bytes-not-characters"),
])
def test_learning_rules(ref: ModuleType, text: str, merges: list[tuple[int, int]]) -> None:
    assert ref.learn_bpe(text, 5) == merges


def test_a_character_split_across_tokens_survives_decoding(ref: ModuleType) -> None:
    merges = [(110, 195), (256, 169)]
    assert ref.decode([256, 169], merges) == "né"
    assert ref.decode([256], merges) == "n\ufffd"


@pytest.mark.parametrize("text", ["", "  two  spaces\n", "naïve 日本 😀"])
def test_round_trip(ref: ModuleType, text: str) -> None:
    merges = ref.learn_bpe(text * 3, 20)
    assert ref.decode(ref.encode(text, merges), merges) == text


def test_lone_surrogates_are_refused(ref: ModuleType) -> None:
    with pytest.raises(ValueError, match="UTF-8"):
        ref.learn_bpe("a\ud800", 2)
