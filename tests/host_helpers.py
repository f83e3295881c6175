"""Helpers for hosting tests: build an offline session and capture what the host says."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Callable

from voicehost.clock import SimClock
from voicehost.host.build import PlaySettings, build_offline
from voicehost.host.inputs import Input
from voicehost.host.session import Outcome, Session
from voicehost.host.words import Heard


class BotInput:
    """Players played by a function of the flow's state, on a simulated clock.

    ``decide(flow, now)`` returns the lines to say next as (delay seconds, player, phrase) or an
    empty list to stay silent; it is asked again only after the game state changed.
    """

    def __init__(
        self, clock: SimClock, decide: Callable[[object, float], list[tuple[float, str, str]]], *, limit: int = 5000
    ) -> None:
        self.clock = clock
        self.decide = decide
        self.flow: object | None = None
        self._asked_at: object = None
        self._pending: list[tuple[float, str, str]] = []
        self.limit = limit

    def next(self, deadline: float | None) -> list[Heard] | None:
        self.limit -= 1
        if self.limit < 0:
            return None
        marker = (getattr(self.flow, "state", None), len(getattr(self.flow.host, "events", [])) if self.flow else 0)  # type: ignore[union-attr]
        if not self._pending and marker != self._asked_at:
            self._asked_at = marker
            now = self.clock.now()
            self._pending = sorted((now + d, p, s) for d, p, s in self.decide(self.flow, now))
        if not self._pending:
            if deadline is None:
                return None
            self.clock.advance_to(deadline)
            return []
        t = self._pending[0][0]
        if deadline is not None and t > deadline:
            self.clock.advance_to(deadline)
            return []
        heard = []
        while self._pending and self._pending[0][0] <= t + 1e-9:
            start, player, phrase = self._pending.pop(0)
            heard.append(Heard(player, phrase, start, start + 0.5, 1.0, "script"))
        self.clock.advance_to(t + 0.5)
        return heard

    def close(self) -> None:
        pass


def run_offline(
    game: str,
    players: str,
    *,
    seed: int = 1,
    lines: str | None = None,
    tmp: Path,
    bot: Callable[[object, float], list[tuple[float, str, str]]] | None = None,
    options: dict[str, object] | None = None,
) -> tuple[Outcome, str, object]:
    """Run a game from a script text (or a bot) and return (outcome, transcript, flow)."""
    script = None
    if lines is not None:
        script = tmp / "script.txt"
        script.write_text(lines)
    settings = PlaySettings(
        game,
        tuple(players.split(",")),
        f"script:{script}" if script else "script:/dev/null",
        seed,
        tmp / "game.jsonl",
        None,
        True,
        options or {},
    )
    out = io.StringIO()
    built = build_offline(settings, stdout=out)
    source: Input = built.input
    if bot is not None:
        clock = built.host.clock
        assert isinstance(clock, SimClock)
        bot_input = BotInput(clock, bot)
        bot_input.flow = built.flow
        source = bot_input
    try:
        outcome = Session(built.flow, source, built.host).run()
    finally:
        built.close()
    return outcome, out.getvalue(), built.flow


class HeardInput:
    """Given :class:`Heard` items (e.g. uncertain microphone shouts), each delivered at its onset + 0.5 s
    on a simulated clock; timers fire in between; the input ends ``tail`` seconds after the last."""

    def __init__(self, items: list[Heard], clock: SimClock, *, tail: float = 12.0) -> None:
        self._items = sorted(items, key=lambda h: h.onset)
        self._clock = clock
        self._end = (self._items[-1].onset if self._items else 0.0) + tail

    def next(self, deadline: float | None) -> list[Heard] | None:
        if not self._items:
            if deadline is None or deadline > self._end:
                return None
            self._clock.advance_to(max(deadline, self._clock.now()))
            return []
        due = self._items[0].onset + 0.5
        if deadline is not None and due > deadline:
            self._clock.advance_to(max(deadline, self._clock.now()))
            return []
        self._clock.advance_to(max(due, self._clock.now()))
        return [self._items.pop(0)]

    def close(self) -> None:
        pass
