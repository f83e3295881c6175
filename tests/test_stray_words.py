"""The host never acts on stray words: only a whole phrase of the moment (fillers aside) is acted on.

The audit plays each game twice with the same bots, once with at least twenty stray sentences
mixed in (table talk holding numbers, animals, yells, "best"/"worst"), and checks that the game's
events are the same (times aside: the host's answers take speaking time).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from tests.host_helpers import run_offline
from voicehost.host.words import number, strip_fillers

STRAY = [
    "I think I'll go for eleven",
    "is my card the dog",
    "I have to leave",
    "I want to play seven",
    "two bam bam is what I would say",
    "maybe the cat",
    "flip seven or eight",
    "best two worst one I guess",
    "bim bam bum is a funny game",
    "I'll swap later",
    "we could exchange with Ben",
    "the pig won",
    "I ate too much",
    "it was for Anna",
    "tree three",
    "say quit now and then",
    "dog cat pig",
    "five of a kind",
    "one two three four",
    "seven then three maybe",
    "read me a story",
    "what a slap that was",
    "my hand hurts",
    "the score is unfair",
    "one bim please no",
    "hen and donkey",
]
TIME_KEYS = {"t", "onset", "seq", "opens", "closes", "window_opens", "window_closes", "slap_opens", "slap_closes", "at"}


def _untimed(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if k not in TIME_KEYS}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


def _with_strays(decide: Any, players: list[str], count: int, seed: int = 3) -> Any:
    """The same bots, each decision preceded by up to four stray sentences from anyone (``count`` in all)."""
    rng = random.Random(seed)
    left = [count]

    def wrapped(flow: Any, now: float) -> list[Any]:
        lines = list(decide(flow, now))
        for k in range(4):
            if left[0] > 0 and lines:
                left[0] -= 1
                lines.append((0.01 * (k + 1), rng.choice(players), STRAY[left[0] % len(STRAY)]))
        return lines

    return wrapped


def _events(flow: Any) -> list[Any]:
    return [_untimed(e.to_json()) for e in flow.host.events]


def test_homophones_are_not_numbers_and_fillers_are_explicit() -> None:
    """ "for", "to", "too", "won", "ate", "tree" are not numbers; only listed fillers are stripped, at the ends."""
    assert [number(w) for w in ("for", "to", "too", "won", "ate", "tree")] == [None] * 6
    assert strip_fillers("Um, seven please") == "seven" and strip_fillers("I say, flip 7!") == "flip seven"
    assert strip_fillers("I think I'll go for eleven") == "i think i'll go for eleven"


def test_the_repro_sentences_change_nothing_and_get_a_question(tmp_path: Path) -> None:
    """Bim Bamm!: 'I think I'll go for eleven', 'is my card the dog', 'I have to leave' flip nothing
    and shout nothing."""
    lines = (
        "1 Ben: I think I'll go for eleven\n"
        "2 Anna: is my card the dog\n"
        "3 Cem: I have to leave\n"
        "4 Anna: um, flip 3 please\n"
    )
    outcome, transcript, flow = run_offline(
        "bimbamm", "Anna,Ben,Cem", seed=11, lines=lines, tmp=tmp_path, options={"first_player": "Anna"}
    )
    kinds = [e.TYPE for e in flow.host.events]  # type: ignore[attr-defined]
    assert kinds.count("flip") == 1 and "shout" not in kinds and "mistake" not in kinds
    assert [e.tile for e in flow.host.events if e.TYPE == "flip"] == [2]  # type: ignore[attr-defined]
    assert "Ben, did you mean eleven? Then say just eleven." in transcript
    assert "Anna, did you mean" in transcript and "Sorry Cem, I did not understand." in transcript


def test_bam_table_cards_stray_sentence_plays_nothing(tmp_path: Path) -> None:
    """BAM! with printed cards: 'I want to play seven' plays nothing (not two, not seven); 'seven' alone plays."""
    from voicehost.speak.realize import Realizer

    lines = "1 Ben: I want to play seven\n3 Ben: seven\n"
    outcome, transcript, flow = run_offline(
        "bam", "Anna,Ben,Cem", seed=1, lines=lines, tmp=tmp_path, options={"cards": "table", "realizer": Realizer()}
    )
    submits = [e for e in flow.host.events if e.TYPE == "submit"]  # type: ignore[attr-defined]
    assert len(submits) == 1 and submits[0].t >= 3
    assert "Ben, did you mean seven? Then say just seven." in transcript
    assert "Ben plays" not in transcript and "Ben's card is in." in transcript


@pytest.mark.parametrize("game", ["bimbamm", "bimbambum", "bam"])
def test_audit_stray_sentences_never_change_a_game(tmp_path: Path, game: str) -> None:
    """Each game played by bots with 24 stray sentences mixed in has the same events as without them."""
    players = ["Anna", "Ben", "Cem"]
    options: dict[str, Any] = {}
    if game == "bimbamm":
        from tests.test_host_bimbamm import bot as make

        seed, decide_for = 5, (lambda: make(random.Random(5)))
    elif game == "bam":
        from tests.test_host_bam import SINGLE, judge_bot
        from voicehost.speak.realize import Realizer

        seed, decide_for = 1, (lambda: judge_bot(seed=7))
        options = {"realizer": Realizer(), "decks": (SINGLE,)}
    else:
        from tests.test_host_bimbambum import perfect

        def decide_for() -> Any:
            inner = perfect(random.Random(4))
            return lambda flow, now: [(s.delay, s.player, s.phrase) for s in inner(flow, now)]

        seed, options = 4, {"first_player": "Anna", "window": None, "quick": 14}
    runs = []
    for k, strays in enumerate((0, 24)):
        decide = decide_for()
        if strays:
            decide = _with_strays(decide, players, strays)
        outcome, transcript, flow = run_offline(
            game, ",".join(players), seed=seed, tmp=tmp_path / str(k), bot=decide, options=dict(options)
        )
        runs.append((outcome, transcript, flow))
    (_, _, plain), (_, talk, noisy) = runs
    assert talk.count("did you mean") + talk.count("I did not understand") >= 20
    assert _events(noisy) == _events(plain)
