"""Hosting Bim Bamm!: the flow judges turns, races and scorer flips, speaks, and logs."""

from __future__ import annotations

import random
from pathlib import Path

from tests.host_helpers import run_offline
from voicehost.eventlog import read_events
from voicehost.rules import bimbamm as bb


def bot(rng: random.Random):  # type: ignore[no-untyped-def]
    """Players who flip random legal tiles, and shout quickly when they hold the raced animal."""

    def decide(flow, now):  # type: ignore[no-untyped-def]
        state: bb.State = flow.state
        if state.phase is bb.Phase.TURN:
            flips = [a for a in bb.legal_actions(state, now) if isinstance(a, bb.Flip)]
            choice = rng.choice(flips)
            return [(0.8, state.turn, f"flip {choice.tile + 1}")]
        if state.phase is bb.Phase.RACE:
            lines = []
            for p in state.players:
                held = state.hand(p)
                if held is not None and held in state.race:
                    lines.append((0.2 + rng.random() * 0.5, p, held.value))
            return lines
        if state.phase is bb.Phase.SCORER:
            pairs = [a for a in bb.legal_actions(state, now) if isinstance(a, bb.ScorerFlips)]
            a, b = rng.choice(pairs).tiles
            return [(1.0, state.scorer, f"{a + 1} and {b + 1}")]
        return []

    return decide


def test_a_whole_game_is_hosted_to_a_winner_and_its_log_replays(tmp_path: Path) -> None:
    """Bots play a full game through the flow: someone wins with 3 points and the log replays to the same state."""
    outcome, transcript, flow = run_offline("bimbamm", "Anna,Ben,Cem", seed=5, tmp=tmp_path, bot=bot(random.Random(5)))
    assert outcome.finished
    state = flow.state  # type: ignore[attr-defined]
    assert state.over and state.winner is not None
    assert f"{state.winner} wins Bim Bamm with three points!" in transcript
    replayed = bb.replay(read_events(tmp_path / "game.jsonl"))
    assert replayed == state


def test_races_are_ranked_by_onset_not_by_arrival(tmp_path: Path) -> None:
    """Two holders shout the raced animal; the one with the earlier onset scores even if heard second."""
    from voicehost.host.words import Heard

    for seed in range(1, 300):
        rng = random.Random(seed)
        state, _ = bb.new_game(["Anna", "Ben", "Cem"], rng, seed, first_player="Anna")
        held = [h for h in state.hands if h is not None]
        shared = [a for a in set(held) if held.count(a) >= 2]
        if shared:
            break
    animal = shared[0]
    holders = [p for p in state.players if state.hand(p) is animal]
    tiles = [i for i, t in enumerate(state.tiles) if t.black is animal][:2]
    lines = f"1 Anna: flip {tiles[0] + 1}\n3 Ben: flip {tiles[1] + 1}\n"
    outcome, transcript, flow = run_offline(
        "bimbamm",
        "Anna,Ben,Cem",
        seed=seed,
        lines=lines,
        tmp=tmp_path,
        options={"first_player": "Anna", "race_window": 100.0},
    )
    flow_state = flow.state  # type: ignore[attr-defined]
    assert flow_state.phase is bb.Phase.RACE and animal in flow_state.race
    flow.host.log = None  # type: ignore[attr-defined]
    late, early = holders[0], holders[1]
    now = flow.host.clock.now()  # type: ignore[attr-defined]
    flow.on_heard(Heard(late, animal.value, now + 0.50, now + 0.9, 1.0, "mic"))  # type: ignore[attr-defined]
    flow.on_heard(Heard(early, animal.value, now + 0.45, now + 1.1, 1.0, "mic"))  # type: ignore[attr-defined]
    flow.host.clock.advance(10)  # type: ignore[attr-defined]
    flow.on_timer("race")  # type: ignore[attr-defined]
    points = [e.to_json() for e in flow.host.events if e.TYPE == "point"]
    assert points and points[0]["player"] == early
    shouts = [e.to_json() for e in flow.host.events if e.TYPE == "shout"]
    assert [s["player"] for s in shouts] == [early, late]


def test_a_race_opening_and_a_race_nobody_wins_are_in_the_transcript(tmp_path: Path) -> None:
    """Nobody shouts: the transcript shows the race opening (its sound) after the fifth tile, then that
    the race is over with nobody scoring, then the next turn; the log has the race."""
    rng = random.Random(3)
    raced: list[bool] = []

    def decide(flow, now):  # type: ignore[no-untyped-def]
        state: bb.State = flow.state
        if state is None:
            return []
        if state.phase is bb.Phase.RACE:
            raced.append(True)
            return []
        if raced:
            return [(0.5, "Ben", "quit"), (1.0, "Cem", "yes")]
        flips = [a for a in bb.legal_actions(state, now) if isinstance(a, bb.Flip)]
        return [(0.8, state.turn, f"flip {rng.choice(flips).tile + 1}")]

    outcome, transcript, flow = run_offline("bimbamm", "Anna,Ben,Cem", seed=5, tmp=tmp_path, bot=decide)
    events = read_events(tmp_path / "game.jsonl")
    race = next(e for e in events if e["type"] == "race")
    animal = flow.state.tiles[[e for e in events if e["type"] == "flip"][-1]["tile"]].showing.value  # type: ignore[attr-defined]
    lines = transcript.splitlines()
    opened = lines.index("host: (race sound: the race is open!)")
    assert lines[opened - 1].endswith(f": {animal}.")  # right after the flip that made five
    assert lines[opened + 1] == f"host: The race for the {animal} is over: nobody scored."
    assert lines.count("host: (race sound: the race is open!)") == 1 and race["animal"] == animal


def test_turn_commands_flip_swap_and_exchange(tmp_path: Path) -> None:
    """'seven', 'flip seven', 'swap' and (typed) 'exchange with NAME' become the right actions; a
    bad tile number is explained."""
    lines = "\n".join(
        [
            "1 Anna: flip twenty",  # no such tile: explained, still Anna's turn
            "3 Anna: swap",  # special tile (SWAP) → it turns to EXCHANGE
            "6 Ben: exchange",  # no target: host asks whom, numbered
            "8 Ben: exchange with cem",  # typed: EXCHANGE with Cem
            "11 Cem: seven",  # a plain number flips
        ]
    )
    outcome, transcript, flow = run_offline(
        "bimbamm", "Anna,Ben,Cem", seed=2, lines=lines, tmp=tmp_path, options={"first_player": "Anna"}
    )
    events = read_events(tmp_path / "game.jsonl")
    kinds = [e["type"] for e in events]
    assert "swap" in kinds and "exchange" in kinds
    flips = [e for e in events if e["type"] == "flip"]
    assert flips and flips[0]["tile"] == 6 and flips[0]["player"] == "Cem"
    assert "numbered one to fifteen" in transcript
    assert "Ben, exchange with whom? One: Cem, on your left. Two: Anna, on your right. Say the number." in transcript
    assert [(e["player"], e["with"]) for e in events if e["type"] == "exchange"] == [("Ben", "Cem")]


def test_out_of_turn_words_are_answered_not_applied(tmp_path: Path) -> None:
    """A number said by someone whose turn it is not gets a short answer and changes nothing."""
    outcome, transcript, flow = run_offline(
        "bimbamm", "Anna,Ben,Cem", seed=2, lines="1 Ben: seven\n", tmp=tmp_path, options={"first_player": "Anna"}
    )
    assert "Ben, it is Anna's turn." in transcript
    assert not any(e["type"] == "flip" for e in read_events(tmp_path / "game.jsonl"))


def test_a_shout_without_five_is_a_mistake(tmp_path: Path) -> None:
    """Shouting an animal when no five show is judged a mistake (no_five) and announced."""
    outcome, transcript, flow = run_offline(
        "bimbamm", "Anna,Ben,Cem", seed=2, lines="1 Ben: pig\n", tmp=tmp_path, options={"first_player": "Anna"}
    )
    mistakes = [e for e in read_events(tmp_path / "game.jsonl") if e["type"] == "mistake"]
    assert mistakes and mistakes[0]["reason"] == "no_five" and mistakes[0]["player"] == "Ben"
    assert "Mistake, Ben: there are not five pigs" in transcript


def test_voice_commands_answer(tmp_path: Path) -> None:
    """repeat, score, help, tiles, my card, slower, faster, pause/resume each get their answer."""
    lines = "\n".join(
        [
            "1 Ben: score",
            "2 Ben: tiles",
            "3 Cem: my card",
            "4 Anna: help",
            "5 Ben: repeat",
            "6 Ben: slower",
            "7 Ben: faster",
            "8 Anna: pause",
            "9 Anna: seven",
            "10 Anna: resume",
            "12 Anna: seven",
        ]
    )
    outcome, transcript, flow = run_offline(
        "bimbamm", "Anna,Ben,Cem", seed=2, lines=lines, tmp=tmp_path, options={"first_player": "Anna"}
    )
    assert "Points: Anna 0, Ben 0 and Cem 0." in transcript
    assert "Tiles: one " in transcript and "The special tile shows swap." in transcript
    assert "host → Cem: Cem, your card is the" in transcript
    assert "Say a tile number from one to fifteen" in transcript
    assert "I will speak more slowly." in transcript and "I will speak faster." in transcript
    assert "Paused." in transcript and "The game is paused. Say resume to go on." in transcript
    flips = [e for e in read_events(tmp_path / "game.jsonl") if e["type"] == "flip"]
    assert len(flips) == 1 and flips[0]["t"] >= 12  # the flip during the pause was not applied


def test_quit_asks_the_table_and_a_quit_game_resumes(tmp_path: Path) -> None:
    """'quit' asks the table; "no" goes on, silence goes on, another player's yes stops it
    unfinished; resume continues it."""
    from voicehost.commands.resume import run as resume_run  # noqa: F401  (the command that refused quit games)
    from voicehost.host.build import PlaySettings, run_session, settings_for_resume

    lines = "1 Ben: quit\n2 Anna: no\n4 Ben: quit\n80 Ben: quit\n81 Ben: yes\n82 Anna: yes please\n"
    outcome, transcript, flow = run_offline(
        "bimbamm", "Anna,Ben", seed=2, lines=lines, tmp=tmp_path, options={"first_player": "Anna"}
    )
    events = read_events(tmp_path / "game.jsonl")
    assert outcome.reason == "quit" and not outcome.finished and all(e["type"] != "game_over" for e in events)
    assert transcript.count("Ben wants to stop the game.") == 3
    assert "We go on." in transcript and "Nobody said yes: the game goes on." in transcript
    assert (
        "Ben, someone else must say yes." in transcript
        and "The game stops here. Points: Anna 0 and Ben 0." in transcript
    )
    script = tmp_path / "resume.txt"
    script.write_text("1 Anna: seven\n")
    log = tmp_path / "game.jsonl"
    base = PlaySettings("", (), f"script:{script}", 0, log, None, True, {})
    out = __import__("io").StringIO()
    run_session(settings_for_resume(events, log, base), resume=events, stdout=out)
    assert "Welcome back to Bim Bamm!" in out.getvalue()
    new = read_events(log)[len(events) :]
    assert [(e["type"], e.get("player"), e.get("tile")) for e in new[:2]] == [
        ("resumed", None, None),
        ("flip", "Anna", 6),
    ], new


def test_resume_continues_the_log_with_seq_and_time(tmp_path: Path) -> None:
    """`voicehost resume LOG` rebuilds the game from its log and appends: a resumed event, seq and t continue."""
    from tests.conftest import run_voicehost

    log = tmp_path / "game.jsonl"
    first = tmp_path / "one.txt"
    first.write_text("1 Anna: flip 3\n3 Ben: flip 5\n")
    second = tmp_path / "two.txt"
    second.write_text("1 Cem: flip 9\n")
    played = run_voicehost(
        "play",
        "bimbamm",
        "--players",
        "Anna,Ben,Cem",
        "--input",
        f"script:{first}",
        "--seed",
        "4",
        "--log",
        str(log),
        "--first",
        "Anna",
    )
    assert played.returncode == 0, played.stderr
    assert "voicehost resume" in played.stdout
    before = read_events(log)
    resumed = run_voicehost("resume", str(log), "--input", f"script:{second}")
    assert resumed.returncode == 0, resumed.stderr
    assert "Welcome back to Bim Bamm!" in resumed.stdout
    after = read_events(log)
    assert after[: len(before)] == before
    new = after[len(before) :]
    assert new[0]["type"] == "resumed" and new[0]["seq"] == len(before)
    assert new[0]["t"] > before[-1]["t"]
    assert any(e["type"] == "flip" and e["player"] == "Cem" and e["tile"] == 8 for e in new)
    assert bb.replay(after).turn == "Anna"


def _race_script(seed: int, animal_tiles: list[int], extra: str) -> str:
    """Anna and Ben flip the two tiles whose black side shows the raced animal, then ``extra``."""
    return f"1 Anna: flip {animal_tiles[0] + 1}\n3 Ben: flip {animal_tiles[1] + 1}\n" + extra


def _two_black(seed: int) -> tuple[bb.Animal, list[int]]:
    state, _ = bb.new_game(["Anna", "Ben", "Cem"], random.Random(seed), seed, first_player="Anna", cards="table")
    animal = bb.Animal.PIG
    return animal, [i for i, t in enumerate(state.tiles) if t.black is animal][:2]


def test_table_cards_start_with_the_cat_holder_saying_me(tmp_path: Path) -> None:
    """Table cards: the host asks who holds a cat; the player who says 'me' begins; hands are not logged."""
    outcome, transcript, flow = run_offline(
        "bimbamm", "Anna,Ben,Cem", seed=3, lines="2 Ben: me\n", tmp=tmp_path, options={"cards": "table"}
    )
    assert "Whoever holds a cat, say me." in transcript
    assert "Ben holds the cat." in transcript and "Ben begins." in transcript
    setup = read_events(tmp_path / "game.jsonl")[0]
    assert setup["cards"] == "table" and setup["state"]["turn"] == "Ben"
    hands = setup["state"]["hands"]
    assert hands is None or all(h is None for h in hands.values())
    assert "your card is" not in transcript


def test_table_cards_without_an_answer_the_first_seat_begins(tmp_path: Path) -> None:
    """Table cards: if nobody says 'me', the first seat begins after the wait."""
    outcome, transcript, flow = run_offline(
        "bimbamm",
        "Anna,Ben,Cem",
        seed=3,
        lines="30 Anna: help\n",
        tmp=tmp_path,
        options={"cards": "table", "cat_wait": 5.0},
    )
    assert "Nobody said me, so Anna begins." in transcript
    assert read_events(tmp_path / "game.jsonl")[0]["state"]["turn"] == "Anna"


def test_table_cards_a_shout_is_trusted_and_can_be_challenged(tmp_path: Path) -> None:
    """Table cards: the earliest shout scores on trust; 'challenge' from another player takes the
    point back (no_card)."""
    animal, tiles = _two_black(3)
    script = _race_script(3, tiles, f"5.5 Cem: {animal.value}\n20 Anna: challenge\n")
    outcome, transcript, flow = run_offline(
        "bimbamm",
        "Anna,Ben,Cem",
        seed=3,
        lines="1 Anna: me\n"
        + "\n".join(f"{float(t.split()[0]) + 1} {' '.join(t.split()[1:])}" for t in script.splitlines()),
        tmp=tmp_path,
        options={"cards": "table"},
    )
    events = read_events(tmp_path / "game.jsonl")
    kinds = [e["type"] for e in events]
    assert "point" in kinds and "challenge" in kinds
    mistake = [e for e in events if e["type"] == "mistake"][-1]
    assert mistake["player"] == "Cem" and mistake["reason"] == "no_card"
    assert "Cem, show your card" in transcript and "Cem loses the point for the pig." in transcript


def test_table_cards_a_third_point_is_shown_before_the_race_closes(tmp_path: Path) -> None:
    """Table cards: a would-be winner must show the card first; a challenge refutes the claim and nobody wins."""
    from voicehost.host.words import Heard
    from voicehost.rules.bimbamm.state import changed

    animal, tiles = _two_black(3)
    lines = f"1 Anna: me\n2 Anna: flip {tiles[0] + 1}\n4 Ben: flip {tiles[1] + 1}\n"
    outcome, transcript, flow = run_offline(
        "bimbamm", "Anna,Ben,Cem", seed=3, lines=lines, tmp=tmp_path, options={"cards": "table", "race_window": 100.0}
    )
    f = flow
    f.host.log = None  # type: ignore[attr-defined]
    state = f.state  # type: ignore[attr-defined]
    assert state.phase is bb.Phase.RACE
    f.state = changed(state, points=((), (), (bb.Animal.CAT, bb.Animal.DOG)))  # type: ignore[attr-defined]
    now = f.host.clock.now()  # type: ignore[attr-defined]
    f.on_heard(Heard("Cem", animal.value, now + 0.3, now + 0.8, 1.0, "mic"))  # type: ignore[attr-defined]
    f.host.clock.advance(200)  # type: ignore[attr-defined]
    f.on_timer("race")  # type: ignore[attr-defined]
    assert f.verifying is not None and f.verifying.player == "Cem"  # type: ignore[attr-defined]
    f.on_heard(Heard("Ben", "challenge", now + 201, now + 201.5, 1.0, "mic"))  # type: ignore[attr-defined]
    assert not f.state.over  # type: ignore[attr-defined]
    mistakes = [e.to_json() for e in f.host.events if e.TYPE == "mistake"]
    assert mistakes and mistakes[-1]["player"] == "Cem" and mistakes[-1]["reason"] == "no_card"
    assert f.state.score("Cem") == 1  # type: ignore[attr-defined]  # a won card went back


def test_the_microphones_listen_for_what_each_phase_allows(tmp_path: Path) -> None:
    """phrases(): tile numbers on a turn (and exchange without a name), animals in a race, 'N and M'
    pairs of the scored animal's tiles for the scorer."""
    from voicehost.rules.bimbamm.state import changed

    outcome, transcript, flow = run_offline(
        "bimbamm", "Anna,Ben,Cem", seed=2, lines="", tmp=tmp_path, options={"first_player": "Anna"}
    )
    state = flow.state  # type: ignore[attr-defined]
    turn = flow.phrases()  # type: ignore[attr-defined]
    assert "flip seven" in turn and "seven" in turn and "swap" in turn and "cat" in turn
    flow.state = changed(state, special=bb.Special.EXCHANGE)  # type: ignore[attr-defined]
    assert "exchange" in flow.phrases() and "exchange with the player on my left" in flow.phrases()  # type: ignore[attr-defined]
    assert not any("ben" in p.split() for p in flow.phrases())  # type: ignore[attr-defined]
    assert flow.likely() == []  # type: ignore[attr-defined]  # no race: no shout is expected
    assert flow.racing() == []  # type: ignore[attr-defined]
    flow.state = changed(state, phase=bb.Phase.RACE, race=(bb.Animal.PIG,))  # type: ignore[attr-defined]
    assert "flip seven" not in flow.phrases() and "pig" in flow.phrases()  # type: ignore[attr-defined]
    assert flow.likely() == ["pig"]  # type: ignore[attr-defined]  # the race's animal is what the recogniser expects
    # a shout just after another's: any animal (a mistaken player shouts another), all of them heard now
    assert flow.racing() == [a.value for a in bb.Animal]  # type: ignore[attr-defined]
    assert set(flow.racing()) <= set(flow.phrases())  # type: ignore[attr-defined]
    pigs = [i for i, t in enumerate(state.tiles) if t.showing is bb.Animal.PIG]
    flow.state = changed(state, phase=bb.Phase.SCORER, scorer="Ben", scored=bb.Animal.PIG)  # type: ignore[attr-defined]
    scorer = flow.phrases()  # type: ignore[attr-defined]
    from voicehost.host.words import number_phrase

    a, b = number_phrase(pigs[0] + 1), number_phrase(pigs[1] + 1)
    assert f"{a} and {b}" in scorer and a in scorer
    others = [i for i in range(15) if i not in pigs]
    assert f"{number_phrase(others[0] + 1)} and {a}" not in scorer


def test_play_with_no_2p_variant_switches_the_two_player_rule_off(tmp_path: Path) -> None:
    """Ruling 5: `voicehost play bimbamm --no-2p-variant` with two players logs variant2p false."""
    from voicehost.cli import main

    script = tmp_path / "game.txt"
    script.write_text("1 Ben: quit\n")
    for extra, expected in (([], True), (["--no-2p-variant"], False)):
        log = tmp_path / f"game{len(extra)}.jsonl"
        status = main(
            [
                "play",
                "bimbamm",
                "--players",
                "Anna,Ben",
                "--input",
                f"script:{script}",
                "--seed",
                "2",
                "--cards",
                "dealt",
                "--log",
                str(log),
                *extra,
            ]
        )
        assert status == 0
        assert read_events(log)[0]["state"]["variant2p"] is expected
