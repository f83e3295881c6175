"""Session fixtures: complete short games rendered to audio, with their expected event logs.

A session spec (``audio_fixtures/sessions/NAME.toml``) says who sits where, the seed, the game's
options, each player's synthetic voice and who says what when. The generator

1. plays the game from those timed lines on a simulated clock (exactly like
   ``voicehost play GAME --input script:...``), which gives the expected event log and the host's
   speech on the table speaker (audio and speaking spans);
2. renders one microphone track per player: their lines in their voice at their times, every
   line leaking into the other microphones (crosstalk), the host's voice from the table speaker
   reaching every microphone through a room path (direct sound, reflections, a reverberant
   tail), room noise and an electrical floor;
3. writes ``NAME/`` as a recorded session: mics.flac (FLAC keeps fixtures small), host.flac (what the
   table speaker played: the echo canceller's reference), spans.jsonl, session.json, events.jsonl —
   what ``voicehost play --record`` writes and ``voicehost replay`` reads.

Regenerate with ``python -m tools.session_fixtures`` (all specs) or ``--only NAME``; ``--demo``
renders the demo's spec into the package (``voicehost/data/demo/``), where ``voicehost demo`` finds
it in an installed wheel, which has neither these generators nor their synthetic voices (flite).
"""

from __future__ import annotations

import argparse
import io
import json
import shutil
import sys
import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from tools import REPO
from voicehost.commands.demo import DEMO_SESSION
from voicehost.errors import InputError

DEFAULT_DIR = REPO / "audio_fixtures" / "sessions"
DEMO = DEMO_SESSION
DEMO_DIR = REPO / "voicehost" / "data" / "demo"
"""Where the demo recording shipped in the package lives (``voicehost demo`` replays it)."""
GENERATOR_VERSION = 2
"""Bump when the rendering changes, so renders made by an older generator are made again."""
RATE = 16000
HOST_FILE = "host.flac"
"""The table speaker's audio (the host's voice as played) at 16 kHz from t = 0: the echo
canceller's reference on replay."""


class SpecError(InputError):
    """A session spec is malformed; the message names the file and the field."""


@dataclass(frozen=True)
class Line:
    """One thing a player says (or does: 'slap' is a hand slap on the table)."""

    t: float
    """Seconds: when the sound starts."""
    player: str
    text: str


@dataclass(frozen=True)
class SessionSpec:
    """A scripted game to render."""

    name: str
    game: str
    players: tuple[str, ...]
    seed: int
    lines: tuple[Line, ...]
    options: dict[str, Any] = field(default_factory=dict)
    voices: tuple[int, ...] = ()
    """Index into the English synthetic voices, per player."""
    snr_db: float = 45.0
    noise: str = "pink"
    host_db: float = -32.0
    """Level of the host's voice from the table speaker at each microphone, dBFS (active RMS)."""
    tail: float = 3.0
    """Seconds of room sound after the last line or the host's last word."""
    echo_rt60: float = 0.3
    """Seconds: reverberation time of the room path from the table speaker to the microphones."""
    engine: str = "sphinx"
    speech_rate: int = 210
    """The host's speaking rate in the fixture, words per minute (brisk keeps fixtures short)."""


def load_spec(path: Path) -> SessionSpec:
    """Read and check one spec file."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise SpecError(f"{path}: cannot read ({error})") from error
    except tomllib.TOMLDecodeError as error:
        raise SpecError(f"{path}: {error}") from error
    known = {
        "game",
        "players",
        "seed",
        "options",
        "voices",
        "snr_db",
        "noise",
        "host_db",
        "tail",
        "engine",
        "script",
        "speech_rate",
        "echo_rt60",
    }
    unknown = set(data) - known
    if unknown:
        raise SpecError(f"{path}: unknown field(s) {', '.join(sorted(unknown))}")
    for key in ("game", "players", "seed", "script"):
        if key not in data:
            raise SpecError(f"{path}: missing field '{key}'")
    players = tuple(str(p) for p in data["players"])
    lines = []
    for number, raw in enumerate(str(data["script"]).splitlines(), start=1):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        stamp, _, rest = text.partition(" ")
        name, _, said = rest.partition(":")
        if name.strip() not in players or not said.strip():
            raise SpecError(f"{path}: script line {number}: expected 'SECONDS NAME: words', got {text!r}")
        lines.append(Line(float(stamp), name.strip(), said.strip()))
    return SessionSpec(
        name=Path(path).stem,
        game=str(data["game"]),
        players=players,
        seed=int(data["seed"]),
        lines=tuple(lines),
        options=dict(data.get("options", {})),
        voices=tuple(int(v) for v in data.get("voices", range(len(players)))),
        snr_db=float(data.get("snr_db", 45.0)),
        noise=str(data.get("noise", "pink")),
        host_db=float(data.get("host_db", -32.0)),
        tail=float(data.get("tail", 3.0)),
        engine=str(data.get("engine", "sphinx")),
        speech_rate=int(data.get("speech_rate", 210)),
        echo_rt60=float(data.get("echo_rt60", 0.3)),
    )


DECISION_LATENCY = 0.45
"""Seconds from the end of a line until the listener has decided it (the quiet that closes an
event, the refinement's look-back, one replay block): the scripted game hears each line then,
as the replay will."""


class LineTiming:
    """How long each player's line lasts in their synthetic voice (rendered once, cached)."""

    def __init__(self, players: Sequence[str], voices: Sequence[int]) -> None:
        import tools.listen_fixtures as lf
        from tools.synth import ENGLISH_VOICES

        self.renderer = lf.Renderer()
        self.voices = {
            p: ENGLISH_VOICES[(voices[i] if i < len(voices) else i) % len(ENGLISH_VOICES)]
            for i, p in enumerate(players)
        }

    def duration(self, player: str, text: str) -> float:
        """Seconds from the line's first to its last audible sound."""
        import tools.listen_fixtures as lf

        if text.lower() in ("slap", "clap"):
            return 0.1
        return len(lf.audible(self.renderer.speech(spoken_text(text), self.voices[player]))) / RATE


class SpokenLinesInput:
    """Timed lines on a simulated clock, each heard when a listener would have decided it: at
    its true end (from its rendered length) plus :data:`DECISION_LATENCY`."""

    def __init__(self, lines: Sequence[Line], clock: Any, timing: LineTiming, tail: float = 10.0) -> None:
        self._lines = sorted(lines, key=lambda line: line.t)
        self._clock = clock
        self._timing = timing
        self._end = (self._lines[-1].t + 3.0 if self._lines else 0.0) + tail

    def next(self, deadline: float | None) -> Any:
        """The next line once it is decided, unless a deadline comes first."""
        from voicehost.host.words import Heard, normalise

        if not self._lines:
            if deadline is None or deadline > self._end:
                return None
            self._clock.advance_to(deadline)
            return []
        first = self._lines[0]
        end = first.t + self._timing.duration(first.player, first.text)
        heard = end + DECISION_LATENCY
        if deadline is not None and heard > deadline:
            self._clock.advance_to(deadline)
            return []
        self._lines.pop(0)
        self._clock.advance_to(heard)
        return [Heard(first.player, normalise(first.text), first.t, end, 1.0, "script")]

    def close(self) -> None:
        """Nothing to release."""


def play_script(
    spec: SessionSpec, folder: Path, timing: LineTiming
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], np.ndarray, str]:
    """Play the spec's lines on a simulated clock: (events, host spans, table audio at 16 kHz, transcript)."""
    from voicehost.eventlog import read_events
    from voicehost.host.build import PlaySettings, build_offline
    from voicehost.host.session import Session
    from voicehost.speak.output import TABLE
    from voicehost.audio.resample import resample

    script = folder / "script.txt"
    script.write_text("".join(f"{line.t:.3f} {line.player}: {line.text}\n" for line in spec.lines))
    log = folder / "events.jsonl"
    wav = folder / "table.wav"
    options = {k: (tuple(v) if isinstance(v, list) else v) for k, v in spec.options.items()}
    settings = PlaySettings(
        spec.game, spec.players, f"script:{script}", spec.seed, log, wav, True, options, speech_rate=spec.speech_rate
    )
    out = io.StringIO()
    built = build_offline(settings, stdout=out)
    built.input = SpokenLinesInput(spec.lines, built.host.clock, timing)
    try:
        Session(built.flow, built.input, built.host).run()
        spans = [
            {"start": round(s.start, 4), "end": round(s.end, 4), "text": s.text}
            for s in built.service.spans(TABLE)
            if s.end > s.start
        ]
    finally:
        built.close()
    import soundfile

    table, rate = soundfile.read(str(wav), dtype="float32")
    return read_events(log), spans, resample(table, rate, RATE), out.getvalue()


def render(spec: SessionSpec, table: np.ndarray, renderer: Any = None) -> np.ndarray:
    """The microphones: players' lines with crosstalk and room noise, plus the host's voice."""
    import tools.listen_fixtures as lf
    from tools.synth import ENGLISH_VOICES

    end = max([line.t + 2.5 for line in spec.lines] + [len(table) / RATE]) + spec.tail
    sounds = []
    for line in spec.lines:
        seat = spec.players.index(line.player)
        voice = ENGLISH_VOICES[spec.voices[seat] % len(ENGLISH_VOICES)]
        if line.text.lower() in ("slap", "clap"):
            sounds.append(lf.Sound(line.player, line.text.lower(), line.t))
        else:
            sounds.append(lf.Sound(line.player, "shout", line.t, spoken_text(line.text), voice))
    scenario = lf.Scenario(
        spec.name, "bimbamm", spec.players, tuple(sounds), round(end, 3), spec.noise, spec.snr_db, spec.seed
    )
    tracks = (renderer or lf.Renderer()).render(scenario).tracks.astype(np.float64)
    level = lf.active_rms_db(table) if np.any(table) else 0.0
    rng = np.random.default_rng(spec.seed + 17)
    for j in range(tracks.shape[1]):
        path = room_path(rng, spec.echo_rt60) * 10 ** ((spec.host_db - level + rng.uniform(-1.5, 1.5)) / 20)
        echo = convolve(table.astype(np.float64), path)[: tracks.shape[0]]
        tracks[: len(echo), j] += echo
    peak = float(np.max(np.abs(tracks)))
    if peak > 0.99:
        tracks *= 0.99 / peak
    return tracks.astype(np.float32)


def room_path(rng: np.random.Generator, rt60: float) -> np.ndarray:
    """Impulse response from the table speaker to one microphone at 16 kHz, unit gain on the
    direct sound: the direct path 2-6 ms away, six early reflections (walls, table top) within
    25 ms and a diffuse tail decaying by 60 dB in ``rt60`` seconds (a furnished living room:
    0.2-0.4 s), 12 dB under the direct sound. The host's voice reaches every microphone
    through such a path, so cancelling it takes more than a gain and a delay."""
    length = int((0.006 + max(rt60, 0.01) * 0.6) * RATE)
    path = np.zeros(length)
    direct = int(rng.uniform(0.002, 0.006) * RATE)
    path[direct] = 1.0
    for _ in range(6):
        path[direct + int(rng.uniform(0.003, 0.025) * RATE)] += rng.uniform(0.1, 0.4) * rng.choice([-1.0, 1.0])
    t = np.arange(length - direct) / RATE
    tail = rng.standard_normal(length - direct) * np.exp(-6.9 * t / max(rt60, 0.01))
    tail *= 10 ** (-12 / 20) / (np.sqrt(np.sum(tail**2)) + 1e-12)
    path[direct:] += tail
    return path


def convolve(x: np.ndarray, h: np.ndarray) -> np.ndarray:
    """Linear convolution by FFT (a direct one of a whole session with a room path is too slow)."""
    size = 1 << int(np.ceil(np.log2(len(x) + len(h))))
    return np.fft.irfft(np.fft.rfft(x, size) * np.fft.rfft(h, size), size)[: len(x) + len(h) - 1]


def spoken_text(text: str) -> str:
    """What the synthetic voice reads for a script line ("two, bam bam!" stays as it is)."""
    return text


def generate(spec: SessionSpec, out: Path) -> dict[str, Any]:
    """Render one spec into ``out/NAME/``; returns a summary."""
    import soundfile

    target = out / spec.name
    with tempfile.TemporaryDirectory(prefix="voicehost-session-") as tmp:
        timing = LineTiming(spec.players, spec.voices)
        events, spans, table, transcript = play_script(spec, Path(tmp), timing)
        mics = render(spec, table, timing.renderer)
        if target.exists():
            shutil.rmtree(target)
        target.mkdir(parents=True)
        soundfile.write(str(target / "mics.flac"), mics, RATE, subtype="PCM_16", format="FLAC")
        host = np.zeros(len(mics), dtype=np.float32)
        host[: min(len(host), len(table))] = table[: len(host)]
        soundfile.write(str(target / HOST_FILE), np.clip(host, -1.0, 1.0), RATE, subtype="PCM_16", format="FLAC")
        shutil.copy(Path(tmp) / "events.jsonl", target / "events.jsonl")
    (target / "spans.jsonl").write_text("".join(json.dumps(s) + "\n" for s in spans))
    session = {
        "game": spec.game,
        "players": list(spec.players),
        "seed": spec.seed,
        "options": spec.options,
        "lang": "en",
        "engine": spec.engine,
        "model": None,
        "rate": RATE,
        "start_frame": 0,
        "seats": list(spec.players),
        "fixture": spec.name,
        "speech_rate": spec.speech_rate,
        "spec_sha256": spec_digest(spec),
    }
    (target / "session.json").write_text(json.dumps(session, indent=2) + "\n")
    (target / "transcript.txt").write_text(transcript)
    over = events[-1]["type"] == "game_over"
    return {
        "name": spec.name,
        "events": len(events),
        "seconds": round(len(mics) / RATE, 1),
        "over": over,
        "bytes": (target / "mics.flac").stat().st_size,
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: regenerate the session fixtures."""
    parser = argparse.ArgumentParser(
        prog="python -m tools.session_fixtures",
        description=(
            "Render the scripted session specs in audio_fixtures/sessions/*.toml into recorded sessions "
            "(mics.wav, spans.jsonl, session.json, events.jsonl) that 'voicehost replay' checks."
        ),
    )
    parser.add_argument("--specs", type=Path, default=DEFAULT_DIR, help="folder with the NAME.toml specs")
    parser.add_argument(
        "--out", type=Path, default=None, help="where to write NAME/ folders (default: next to the specs)"
    )
    parser.add_argument("--only", action="append", metavar="NAME", help="render only this spec (repeatable)")
    parser.add_argument(
        "--demo",
        action="store_true",
        help=f"render the demo's spec into the package ({DEMO_DIR.relative_to(REPO)}/); "
        "then check it replays exactly: voicehost replay " + str((DEMO_DIR / DEMO).relative_to(REPO)),
    )
    args = parser.parse_args(argv)
    if args.demo:
        args.only, args.out = [DEMO], DEMO_DIR
    specs = sorted(args.specs.glob("*.toml"))
    if args.only:
        specs = [p for p in specs if p.stem in args.only]
    if not specs:
        print(f"no session specs found in {args.specs}", file=sys.stderr)
        return 2
    if len(specs) > 1:
        for i, path in enumerate(specs, start=1):
            print(f"[{i}/{len(specs)}] {path.stem} …", file=sys.stderr, flush=True)
            generate_fresh(path, args.out or args.specs)
        return 0
    summary = generate(load_spec(specs[0]), args.out or args.specs)
    print(json.dumps(summary))
    return 0


def generate_fresh(path: Path, out: Path) -> None:
    """:func:`generate` the spec at ``path`` into ``out`` in a process of its own.

    espeak-ng, which renders the host's words, keeps state from one text to the next within a
    process (measured: one sentence rendered 142166, 142429 or 143514 samples long depending on
    the text before it), so a session rendered after others would differ from the same session
    rendered alone — and from what 'voicehost replay', a fresh process, says. One process per spec
    makes every fixture the same whatever was rendered before it."""
    import subprocess

    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tools.session_fixtures",
            "--specs",
            str(path.parent),
            "--only",
            path.stem,
            "--out",
            str(out),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=900,
    )
    if done.returncode != 0:
        raise RuntimeError(f"rendering the session fixture {path.stem} failed:\n{done.stdout}{done.stderr}")
    print(done.stdout, end="")


# ---- drafting a script with bots (a developer tool: the result is frozen in a spec file) -----


class DraftInput:
    """Bots that speak a little after the host falls silent; every line is kept for the spec."""

    def __init__(self, flow: Any, clock: Any, decide: Any, timing: LineTiming, limit: int = 400) -> None:
        self.flow, self.clock, self.decide, self.timing = flow, clock, decide, timing
        self.lines: list[Line] = []
        self._pending: list[tuple[float, str, str]] = []
        self._seen: object = None
        self._limit = limit

    def next(self, deadline: float | None) -> Any:
        from voicehost.host.words import Heard, normalise

        marker = (len(self.flow.host.events), getattr(self.flow, "state", None) is None)
        if not self._pending and marker != self._seen:
            self._seen = marker
            base = self.flow.host.mouth.silent_at()
            self._pending = sorted((round(base + d, 2), p, s) for d, p, s in self.decide(self.flow))
        if not self._pending or len(self.lines) >= self._limit:
            if deadline is None:
                return None
            self.clock.advance_to(deadline)
            return []
        t, player, text = self._pending[0]
        if deadline is not None and t > deadline:
            self.clock.advance_to(deadline)
            return []
        self._pending.pop(0)
        self.lines.append(Line(t, player, text))
        end = t + self.timing.duration(player, text)
        self.clock.advance_to(end + DECISION_LATENCY)
        return [Heard(player, normalise(text), t, end, 1.0, "script")]

    def close(self) -> None:
        pass


def _bimbamm_bot(rng: Any) -> Any:
    from voicehost.host.words import number_phrase
    from voicehost.rules import bimbamm as bb

    def decide(flow: Any) -> list[tuple[float, str, str]]:
        state = flow.state
        if state is None or state.over:
            return []
        if state.phase is bb.Phase.TURN:
            flips = [a for a in bb.legal_actions(state, 0.0) if isinstance(a, bb.Flip)]
            held = {h for h in state.hands if h is not None}

            def gain(a: Any) -> tuple[int, float]:
                other = (
                    state.tiles[a.tile].black if state.tiles[a.tile].up.value == "white" else state.tiles[a.tile].white
                )
                return (state.counts()[other] + 1 if other in held else 0, rng.random())

            best = max(flips, key=gain)
            return [(0.7, state.turn, f"flip {number_phrase(best.tile + 1)}")]
        if state.phase is bb.Phase.RACE:
            holders = [p for p in state.players if state.hand(p) in state.race]
            return [(0.4 + 0.35 * i, p, state.hand(p).value) for i, p in enumerate(holders)]
        if state.phase is bb.Phase.SCORER:
            pairs = [a for a in bb.legal_actions(state, 0.0) if isinstance(a, bb.ScorerFlips)]
            a, b = rng.choice(pairs).tiles
            return [(0.7, state.scorer, f"{number_phrase(a + 1)} and {number_phrase(b + 1)}")]
        return []

    return decide


def _bimbambum_bot(rng: Any) -> Any:
    from voicehost.host.words import number_phrase
    from voicehost.rules import bimbambum as bb

    def decide(flow: Any) -> list[tuple[float, str, str]]:
        state = flow.state
        if state is None:
            if getattr(flow, "first", None) is not None or getattr(flow, "shouts", None):
                return []  # the first player is known (or the shouts are in): wait for the deal
            return [(0.5 + 0.3 * i, p, "bim bam bum") for i, p in enumerate(flow.host.players)]
        if state.is_over:
            return []
        if state.phase is bb.Phase.SLAP:
            others = [p for p in state.players if p != state.caller]
            rng.shuffle(others)
            return [(0.3 + 0.25 * i, p, "ship" if i % 2 else "slap") for i, p in enumerate(others)]
        pile = rng.randrange(3)
        said = state.expected(pile)
        return [(0.6, state.turn, f"{number_phrase(pile + 1)} {said}")]

    return decide


def _bam_bot(rng: Any) -> Any:
    from voicehost.host.words import number_phrase

    def decide(flow: Any) -> list[tuple[float, str, str]]:
        state = flow.state
        if state is None or state.phase.value == "over":
            return []
        if state.phase.value == "awaiting_judgement" or state.phase.value == "judging":
            n = len(state.submissions)
            best, worst = rng.sample(range(1, n + 1), 2)
            return [(1.0, state.master, f"best {number_phrase(best)} worst {number_phrase(worst)}")]
        lines = []
        for i, player in enumerate(state.waiting_for):
            slots = flow.slots.slots.get(player, [])
            numbers = [k + 1 for k, c in enumerate(slots) if c is not None]
            picks = rng.sample(numbers, state.blanks)
            text = " then ".join(number_phrase(k) for k in picks)
            lines.append((1.0 + 1.5 * i, player, text))
        return lines

    return decide


def draft(
    game: str,
    players: tuple[str, ...],
    seed: int,
    options: dict[str, Any],
    bot_seed: int = 1,
    speech_rate: int = 210,
    voices: Sequence[int] = (),
) -> tuple[list[Line], list[dict[str, Any]]]:
    """Play a game with bots on a simulated clock; the lines they said and the events."""
    import random

    from voicehost.host.build import PlaySettings, build_offline
    from voicehost.host.session import Session

    rng = random.Random(bot_seed)
    bots = {"bimbamm": _bimbamm_bot, "bimbambum": _bimbambum_bot, "bam": _bam_bot}
    with tempfile.TemporaryDirectory(prefix="voicehost-draft-") as tmp:
        settings = PlaySettings(
            game,
            players,
            "script:/dev/null",
            seed,
            Path(tmp) / "log.jsonl",
            None,
            True,
            options,
            speech_rate=speech_rate,
        )
        built = build_offline(settings, stdout=io.StringIO())
        source = DraftInput(
            built.flow, built.host.clock, bots[game](rng), LineTiming(players, voices or range(len(players)))
        )
        try:
            Session(built.flow, source, built.host).run()
        finally:
            built.close()
        return source.lines, [event.to_json() for event in built.host.events]


def spec_text(
    game: str,
    players: tuple[str, ...],
    seed: int,
    options: dict[str, Any],
    lines: list[Line],
    voices: Sequence[int] = (),
) -> str:
    """A spec file for a drafted game."""
    opts = ", ".join(f"{k} = {json.dumps(v)}" for k, v in options.items())
    script = "\n".join(f"{line.t:.2f} {line.player}: {line.text}" for line in lines)
    return (
        f'game = "{game}"\nplayers = {json.dumps(list(players))}\nseed = {seed}\n'
        f"options = {{ {opts} }}\nvoices = {json.dumps(list(voices or range(len(players))))}\n"
        f'script = """\n{script}\n"""\n'
    )


def spec_digest(spec: SessionSpec) -> str:
    """A fingerprint of a spec (and of the generator's version), to know when a render is stale."""
    import hashlib

    return hashlib.sha256(repr((GENERATOR_VERSION, spec)).encode("utf-8")).hexdigest()


def ensure_session(name: str, specs: Path = DEFAULT_DIR) -> Path:
    """The folder of session fixture ``name``, rendering it first if missing or made from another spec."""
    folder = specs / name
    spec = load_spec(specs / f"{name}.toml")
    try:
        current = json.loads((folder / "session.json").read_text()).get("spec_sha256")
    except (OSError, json.JSONDecodeError):
        current = None
    has_audio = (folder / "mics.flac").exists() or (folder / "mics.wav").exists()
    if not has_audio or current != spec_digest(spec):
        print(f"(rendering the session fixture {name}: a few seconds)", file=sys.stderr, flush=True)
        generate_fresh(specs / f"{name}.toml", specs)
    return folder


if __name__ == "__main__":
    sys.exit(main())
