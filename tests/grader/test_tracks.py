"""grader.tracks: problems/tracks.toml loads into ordered tracks, skipping (and reporting) problems with no folder
yet; anything else wrong is an error naming the file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.problems import PROBLEMS_DIR
from grader.tracks import TracksError, load_tracks

CATALOGUE = {
    "self-supervised": ("Self-supervised learning",
                        ["moco", "simclr", "byol", "simsiam", "clip", "dino", "vit_patches"]),
    "transformers": ("Transformers",
                     ["attention", "multihead", "layernorm", "rope", "label_smoothing", "lora", "selective_scan"]),
    "llm-inference": ("LLM inference", ["kv_cache", "gqa", "sliding_window", "online_softmax", "sampling",
                                       "beam_search", "speculative", "moe_router", "swiglu", "bpe"]),
    "training": ("Training and optimisation",
                 ["adamw", "lr_schedule", "clip_grad_norm", "batchnorm", "groupnorm", "dropout",
                  "distillation"]),
    "generative": ("Generative models", ["vae", "vqvae", "ddpm", "ddim_cfg", "flow_matching"]),
    "post-training": ("Post-training and RL", ["reward_model", "dpo", "gae", "ppo_clip", "grpo", "reinforce"]),
}

TWO_TRACKS = '''
[[tracks]]
slug = "transformers"
title = "Transformers"
summary = "Attention and the parts of a transformer block, one problem at a time."
problems = ["attention", "multihead", "rope"]

[tracks.prerequisites]
multihead = ["attention"]

[[tracks]]
slug = "training"
title = "Training"
summary = "Optimisers, schedules and the other machinery around a model."
problems = ["adamw"]
'''


def write(tmp_path: Path, text: str, folders: tuple[str, ...] = ()) -> Path:
    for slug in folders:
        (tmp_path / slug).mkdir()
    (tmp_path / "tracks.toml").write_text(text)
    return tmp_path


def test_the_repository_tracks_are_the_catalogues() -> None:
    tracks = load_tracks(PROBLEMS_DIR)
    assert [t.slug for t in tracks.tracks] == list(CATALOGUE)
    for track in tracks.tracks:
        title, listed = CATALOGUE[track.slug]
        assert track.title == title
        assert sorted(track.problems + track.skipped, key=listed.index) == listed  # every slug, once
        assert [slug for slug in listed if slug in track.problems] == list(track.problems)  # order kept
        assert all((PROBLEMS_DIR / slug).is_dir() for slug in track.problems)
        assert not any((PROBLEMS_DIR / slug).is_dir() for slug in track.skipped)
        assert len(track.summary) > 100 and "\n" not in track.summary


def test_the_catalogue_asks_multihead_after_attention(tmp_path: Path) -> None:
    root = write(tmp_path, (PROBLEMS_DIR / "tracks.toml").read_text(), folders=("attention", "multihead"))
    assert load_tracks(root).track("transformers").prerequisites == {"multihead": ("attention",)}


def test_problems_without_a_folder_are_skipped_and_reported(tmp_path: Path) -> None:
    tracks = load_tracks(write(tmp_path, TWO_TRACKS, folders=("attention", "rope")))
    transformers = tracks.track("transformers")
    assert transformers.problems == ("attention", "rope") and transformers.skipped == ("multihead",)
    assert transformers.prerequisites == {}  # multihead is not there yet, so neither is its prerequisite
    assert tracks.skipped == {"transformers": ("multihead",), "training": ("adamw",)}


def test_a_prerequisite_without_a_folder_is_dropped(tmp_path: Path) -> None:
    tracks = load_tracks(write(tmp_path, TWO_TRACKS, folders=("multihead",)))
    assert tracks.track("transformers").prerequisites == {"multihead": ()}


def test_an_unknown_track_is_a_key_error(tmp_path: Path) -> None:
    with pytest.raises(KeyError, match="no track 'vision'; tracks: transformers, training"):
        load_tracks(write(tmp_path, TWO_TRACKS)).track("vision")


@pytest.mark.parametrize(
    "old, new, line, message",
    [
        pytest.param('problems = ["attention", "multihead", "rope"]', 'problems = ["attention", "rope", "rope"]', 6,
                     "a problem appears once per track; repeated: rope", id="repeated-problem"),
        pytest.param('problems = ["attention", "multihead", "rope"]', 'problems = ["multihead", "attention"]', 2,
                     "'multihead' needs 'attention', which comes after it in this track", id="prerequisite-later"),
        pytest.param('multihead = ["attention"]', 'multihead = ["softmax"]', 2,
                     "'multihead' needs softmax, which no track lists", id="unknown-prerequisite"),
        pytest.param('multihead = ["attention"]', 'lora = ["attention"]', 2,
                     "prerequisites name 'lora', which is not among this track's problems", id="prerequisite-of-what"),
        pytest.param('multihead = ["attention"]', 'multihead = ["multihead"]', 2,
                     "'multihead' cannot be its own prerequisite", id="self-prerequisite"),
        pytest.param('slug = "training"', 'slug = "transformers"', 2,
                     "track slugs must be unique; repeated: transformers", id="repeated-track"),
        pytest.param('title = "Training"', 'title = "Training"\ncolour = "red"', 14, "Extra inputs are not permitted",
                     id="unknown-key"),
        pytest.param('problems = ["adamw"]', "problems = []", 15, "at least 1 item", id="empty-track"),
        pytest.param('problems = ["adamw"]', 'problems = ["AdamW"]', 15, "'AdamW' is not a problem slug",
                     id="bad-slug"),
        pytest.param('summary = "Optimisers, schedules and the other machinery around a model."',
                     'summary = """One.\n\nTwo paragraphs, which is one too many for a track summary."""', 14,
                     "the summary is one paragraph", id="two-paragraphs"),
    ],
)
def test_invalid_tracks_name_the_file_and_line(tmp_path: Path, old: str, new: str, line: int, message: str) -> None:
    assert old in TWO_TRACKS
    root = write(tmp_path, TWO_TRACKS.replace(old, new, 1))
    with pytest.raises(TracksError) as caught:
        load_tracks(root)
    error = str(caught.value)
    assert error.startswith(f"{root / 'tracks.toml'}:") and message in error, error
    assert error.split(":")[1] == str(line), error  # the key's line, or its track's header for a rule across keys


def test_a_cycle_across_tracks_is_refused(tmp_path: Path) -> None:
    text = TWO_TRACKS.replace('problems = ["adamw"]', 'problems = ["adamw"]\n\n[tracks.prerequisites]\n'
                              'adamw = ["rope"]').replace('multihead = ["attention"]',
                                                          'multihead = ["attention"]\nrope = ["adamw"]')
    with pytest.raises(TracksError, match=r"prerequisites form a cycle: adamw -> rope -> adamw"):
        load_tracks(write(tmp_path, text))


@pytest.mark.parametrize("text, message", [("", "missing"), ("tracks = [", "invalid TOML")])
def test_missing_or_unreadable_file(tmp_path: Path, text: str, message: str) -> None:
    if text:
        (tmp_path / "tracks.toml").write_text(text)
    with pytest.raises(TracksError, match=message):
        load_tracks(tmp_path)
