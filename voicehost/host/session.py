"""The game session: one loop over inputs and timers that drives a game flow.

Everything happens on one injected clock. The loop asks the input for what was heard up to the
next timer's deadline, lets the global voice commands ("repeat", "score", "help", "slower",
"faster", "pause", "resume", "quit") act, hands everything else to the game's flow, and fires the
timers that came due. The flow applies rules actions, writes their events to the log (flushed to
disk as the game goes) and tells the mouth what to say.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from voicehost.clock import Clock, Timers
from voicehost.errors import VoicehostError
from voicehost.eventlog import EventLogWriter, LogWriteError
from voicehost.host.inputs import Input
from voicehost.host.mouth import Mouth
from voicehost.host.words import (
    COMMAND_PHRASES,
    NO_PHRASES,
    YES_PHRASES,
    Command,
    Heard,
    command,
    confirmation,
    contained,
    read_request,
    strip_fillers,
)
from voicehost.rules.base import Event, Game, IllegalAction, JsonObject, LogError


@dataclass
class Host:
    """What a game flow may use: the clock, timers, the mouth, the log and a seeded RNG."""

    clock: Clock
    mouth: Mouth
    players: tuple[str, ...]
    rng: random.Random
    log: EventLogWriter | None = None
    timers: Timers = field(default_factory=Timers)
    events: list[Event] = field(default_factory=list)
    """Every event of this game so far (the log's content), typed: only the log writer makes JSON."""
    on_event: Callable[[Event], None] | None = None
    listen_also: tuple[str, ...] = ()
    """Phrases the microphones listen for besides the flow's and the commands (the session's
    "yes"/"no" while it asks a player back)."""
    log_problem: LogWriteError | None = None
    """Why the last write to the log failed (the disk is full, …); None while the log is saved."""

    def record(self, events: Sequence[Event]) -> list[Event]:
        """Append a rules action's events to the log (one write, synced) and return them, typed.

        The log writer is the only place events become JSON. When the log cannot be written the
        events wait in the writer's ``pending`` list and :attr:`log_problem` says why: the session
        then pauses the game (see :meth:`Session.run`)."""
        recorded = list(events)
        if self.log is not None and recorded:
            try:
                self.log.write(recorded)
            except LogWriteError as error:
                self.log_problem = error
        self.events.extend(recorded)
        if self.on_event is not None:
            for event in recorded:
                self.on_event(event)
        return recorded

    def load(self, game: Game[Any, Any], log: Sequence[JsonObject]) -> None:
        """Take a saved game's logged events (JSON from its file) as this game's first events, typed."""
        self.events.extend(game.event_from_json(obj) for obj in log)


class Flow(ABC):
    """What the host does in one game: prompts, judging, announcements."""

    game: str = ""

    def __init__(self, host: Host) -> None:
        self.host = host

    @property
    @abstractmethod
    def over(self) -> bool:
        """True once the game has ended."""

    @abstractmethod
    def start(self) -> None:
        """Set up the game (setup events) and make the first announcement."""

    @abstractmethod
    def resume(self, events: Sequence[JsonObject]) -> None:
        """Continue a saved game from its log's events, announcing where it stands."""

    @abstractmethod
    def on_heard(self, heard: Heard) -> None:
        """A player said something that is not a global command."""

    @abstractmethod
    def on_timer(self, name: str) -> None:
        """Timer ``name`` came due."""

    @abstractmethod
    def score_text(self) -> str:
        """The standings, as one short announcement."""

    @abstractmethod
    def help_text(self, player: str) -> str:
        """What ``player`` can say right now."""

    @abstractmethod
    def quit(self, player: str | None) -> None:
        """End the game now (logged)."""

    def phrases(self) -> list[str]:
        """The phrases the microphones should listen for right now (for the recogniser)."""
        return []

    def likely(self) -> list[str]:
        """Those of :meth:`phrases` the game expects now (a race's animal): the recogniser may
        accept them on less evidence. Default: none."""
        return []

    def not_heard_from(self, player: str) -> frozenset[str]:
        """Those of :meth:`phrases` that ``player``'s microphone does not listen for now (in a Bim
        Bam Bum! turn a pile number alone, and a yell alone from anyone but the player whose turn
        it is), so table talk cannot be taken for them. Typed lines still accept them. Default:
        none."""
        return frozenset()

    def private_text(self, player: str, what: Command) -> str | None:
        """Answer "my card" / "my hand" privately, or None if the game has nothing private."""
        return None

    def table_text(self) -> str | None:
        """Answer "tiles" (the table's state in detail), or None if the game has no such thing."""
        return None

    def glance_text(self) -> str | None:
        """Answer "what's on the table" (the table at a glance); by default the same as "tiles"."""
        return self.table_text()

    def turn_text(self, player: str) -> str | None:
        """Answer "whose turn is it" for ``player``, or None if the game has no such thing."""
        return None

    def read_text(self, player: str, n: int) -> tuple[str, bool] | None:
        """Answer "read card N" (or tile, pile, sentence N): (text, private?), or None."""
        return None

    def silent_now(self) -> bool:
        """True while the host must not talk (a slap race): stray words then get no answer."""
        return False

    def accepts(self, phrase: str) -> bool:
        """True when ``phrase`` (normalised, fillers removed) is, as a whole, one the game takes now.

        The one grammar of typed, scripted and heard words: by default the recogniser's phrases
        of the moment (:meth:`phrases`); a game whose phrases are too many to list (BAM!'s printed
        numbers) recognises their shape instead."""
        return phrase in self.phrases()

    def after_pause(self) -> None:
        """The game goes on after "pause" and "resume" (the session has re-armed the timers).

        A game whose rules keep time themselves (Bim Bam Bum!'s time window) reopens it here;
        the default does nothing.
        """

    def say(self, text: str, to: str | None = None, *, barge_in: bool = False, reply: bool = False) -> None:
        """Speak at the table or to one player (``reply``: an answer, not news to repeat)."""
        self.host.mouth.say(text, to, barge_in=barge_in, reply=reply)

    def now(self) -> float:
        """Session time, seconds (rounded to microseconds, so logs read cleanly)."""
        return round(self.host.clock.now(), 6)


AFTER_GAME = 8.0
"""Seconds the host keeps listening after the game ends, for "repeat"/"summary", "score" or "goodbye"."""
CONFIRM_WINDOW = 4.0
"""Seconds after the host's question a player has to answer it."""
QUIT_WINDOW = 10.0
"""Seconds after "quit" the table has to confirm it (the game's clocks wait meanwhile)."""
HOLD_MAX = 2.0
"""Seconds a timer that came due may wait while the microphones' listener still judges a sound
that began before it: a shout whose voice began inside a race or turn window belongs to it,
though its verdict comes 0.5-1.3 s after it ends (README, "Hearing the shouts", item 36)."""
HOLD_STEP = 0.05
"""Seconds between two looks at the listener while a timer waits for it."""


def grammar(flow: Flow) -> list[str]:
    """Every phrase a player may say right now: the game's phrases of the moment, the session's
    "yes"/"no" while it asks something, and the global commands. Typed and scripted lines are
    held to this list (plus a few fillers); the microphones to :func:`microphone_grammar`."""
    extra = flow.host.listen_also
    return list(dict.fromkeys([*flow.phrases(), *extra, *COMMAND_PHRASES]))


GOODBYE_PHRASES = frozenset(p for p, what in COMMAND_PHRASES.items() if what is Command.GOODBYE)
"""'bye', 'goodbye': the microphones listen for them only once the game is over (see below)."""


def microphone_grammar(flow: Flow) -> list[str]:
    """What the microphones listen for now: :func:`grammar`, but "goodbye" only once the game is
    over (where it ends the listening). During a game it would only earn the reply "to stop the
    game, say quit", and "bye" was what real table talk was taken for most: 16 times in 13.3
    minutes of held-out talk (README, item 23). Typed lines keep it."""
    every = grammar(flow)
    return every if flow.over else [p for p in every if p not in GOODBYE_PHRASES]


def seat_grammar(flow: Flow, players: Sequence[str], every: Sequence[str] | None = None) -> dict[str, list[str]]:
    """The players whose microphones listen for less than :func:`microphone_grammar` now
    (``Flow.not_heard_from``), each with what theirs listens for; ``every``: that grammar, when
    the caller has it already."""
    if every is None:
        every = microphone_grammar(flow)
    out: dict[str, list[str]] = {}
    for player in players:
        left_out = flow.not_heard_from(player)
        if left_out:
            out[player] = [p for p in every if p not in left_out]
    return out


@dataclass
class Outcome:
    """How a session ended."""

    finished: bool
    """True when the game reached its end (a winner, or a quit)."""
    events: list[Event]
    reason: str
    """'over', 'quit' (the table stopped it: saved, it can be resumed), 'input_ended' or 'interrupted'."""


class Session:
    """Runs one game flow until it ends or the input runs out."""

    def __init__(
        self, flow: Flow, source: Input, host: Host, *, on_heard: Callable[[Heard], None] | None = None
    ) -> None:
        self.flow = flow
        self.input = source
        self.host = host
        self.on_heard = on_heard
        """Called with everything heard (e.g. to show a replay's listening on the terminal)."""
        self.paused = False
        self._paused_timers: list[tuple[str, float]] = []
        self.missing: list[str] = []
        """Players whose microphone has stopped (live input only; issue 9)."""
        self._for_microphones = False
        """True while the game is paused because a microphone stopped, not because someone said pause."""
        self._asked: dict[str, tuple[Heard, float]] = {}
        """Player → (an uncertain shout of theirs the host asked back about, answer deadline)."""
        self._paused_for_log = False
        """True once the game was paused because the log could not be written (until it can)."""
        self._quit_asked: tuple[str, float] | None = None
        """(who said quit, deadline) while the host asks the table to confirm it."""
        self.stopped = False
        """True once the table confirmed "quit": the game stops unfinished, its log can be resumed."""
        self._later: list[Heard] = []
        """Heard items that began at or after the deadline of a timer that is due but waits for the
        listener (:data:`HOLD_MAX`): the game gets them after that timer has fired."""

    def run(self, *, resume_from: Sequence[JsonObject] | None = None) -> Outcome:
        """Start (or resume) the game and loop until it is over or the input ends.

        A log that cannot be written (the disk is full) pauses the game until it can: the host
        says so, and "resume" tries again."""
        if resume_from is not None:
            self._resume_flow(resume_from)
        else:
            self.flow.start()
        self._check_log()
        while not self.flow.over and not self.stopped:
            deadline = None if self.paused else self._next_deadline()
            heard = self.input.next(deadline)
            if heard is None:
                return Outcome(False, self.host.events, "input_ended")
            # Live microphones tell which of them stopped or came back (other inputs have no such method).
            changes = getattr(self.input, "microphone_changes", None)
            for players, lost in changes() if changes is not None else ():
                self.microphones_changed(players, lost)
            due = self._due_timer()
            self._later.extend(item for item in heard if due is not None and item.onset >= due)
            self._dispatch_all([item for item in heard if due is None or item.onset < due])
            self._expire_questions()
            # While a player is asked back (or the table whether to quit), the game's timers wait:
            # a race or a turn window must not close before a confirmed shout (with its original
            # onset) reaches the game.
            if self._timers_may_fire():
                self._fire_timers()
            if self._later and self._due_timer() is None:
                later, self._later = self._later, []
                self._dispatch_all(later)
        if self.stopped:
            return Outcome(False, self.host.events, "quit")
        self._after_game()
        return Outcome(True, self.host.events, "over")

    def _after_game(self) -> None:
        """The game is over, but the table may want the summary again: keep listening for
        ``AFTER_GAME`` seconds of quiet (each answer starts them again) or until "goodbye".
        "repeat", "summary" and "score" are answered; anything else ends it."""
        deadline = self.host.clock.now() + AFTER_GAME
        while True:
            heard = self.input.next(deadline)
            if not heard:
                return  # quiet for AFTER_GAME seconds, or the input ended
            for item in heard:
                what = command(item.phrase)
                if what is Command.GOODBYE:
                    self.flow.say(f"Goodbye, {item.player}. Thank you for playing!", reply=True)
                    return
                if what is Command.REPEAT:
                    last, _ = self.host.mouth.last_for(item.player)
                    self.flow.say(last or "The game is over.", reply=True)
                elif what is Command.SCORE:
                    self.flow.say(self.flow.score_text(), reply=True)
                else:
                    return
            deadline = self.host.clock.now() + AFTER_GAME

    def _dispatch_all(self, heard: Sequence[Heard]) -> None:
        for item in heard:
            if self.flow.over or self.stopped:
                return
            self.dispatch(item)
            self._check_log()

    def _timers_may_fire(self) -> bool:
        return not self.paused and not self.flow.over and not self.stopped and not self._holding()

    def _due_timer(self) -> float | None:
        """The deadline of a timer that is due but waits for the microphones' listener (it judges
        a sound that began before it; at most :data:`HOLD_MAX`); None: no timer waits."""
        if getattr(self.input, "judging", None) is None or not self._timers_may_fire():
            return None
        due = self.host.timers.next_due()
        return due if due is not None and due <= self.host.clock.now() else None

    def _fire_timers(self) -> None:
        """Fire the timers that came due, earliest first; heard items that waited for one go to
        the game after it. A timer waits while the input (live or recorded microphones) still
        judges a sound that began before its deadline, at most :data:`HOLD_MAX`."""
        judging = getattr(self.input, "judging", None)
        now = self.host.clock.now()
        while (due := self.host.timers.next_due()) is not None and due <= now:
            if judging is not None and now < due + HOLD_MAX and judging(due):
                return
            for name in self.host.timers.pop_due(due):
                self.flow.on_timer(name)
                self._check_log()
                if self.flow.over:
                    return
            after = self.host.timers.next_due()
            before = after if after is not None and after <= now else float("inf")
            ready = [item for item in self._later if item.onset < before]
            self._later = [item for item in self._later if item.onset >= before]
            self._dispatch_all(ready)
            if not self._timers_may_fire():
                return

    def _holding(self) -> bool:
        """True while the game's clocks wait for an answer to the host's question."""
        return bool(self._asked) or self._quit_asked is not None

    def _resume_flow(self, events: Sequence[JsonObject]) -> None:
        """Rebuild the game from a log's events; a log the rules cannot replay is a LogError."""
        try:
            self.flow.resume(events)
        except VoicehostError:
            raise
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as error:
            raise LogError(
                f"the event log does not describe a game this host can continue ({type(error).__name__}: {error})"
            ) from error

    def _check_log(self) -> None:
        """Pause the game, saying why, when the log has just stopped being written."""
        problem = self.host.log_problem
        if problem is None or self._paused_for_log:
            return
        self._paused_for_log = True
        fix = "make room" if "full" in problem.reason else "fix it"
        text = f"I cannot save the game: {problem.reason}. The game is paused: {fix}, then say resume."
        if self.paused:
            self.flow.say(text)
        else:
            self._for_microphones = False
            self._pause(text)

    def _log_saved_again(self) -> bool:
        """Before going on after a log problem: write what waits; False (and say so) if it still fails."""
        if self.host.log_problem is None:
            return True
        assert self.host.log is not None
        try:
            self.host.log.retry()
        except LogWriteError as error:
            self.host.log_problem = error
            self.flow.say(f"I still cannot save the game: {error.reason}. Say resume when there is room.")
            return False
        self.host.log_problem = None
        self._paused_for_log = False
        self.flow.say("The game is saved again.")
        return True

    def dispatch(self, heard: Heard) -> None:
        """Global commands first, then the game flow (which never sees a paused game's input).

        A shout the recogniser was unsure of is never dropped in silence: the host asks its player
        back ("Ben: cat?"); "yes" or the word again hands it to the game with its original onset,
        "no" drops it, and without an answer within ``CONFIRM_WINDOW`` the host says so."""
        if self.on_heard is not None:
            self.on_heard(heard)
        said = strip_fillers(heard.phrase)
        if not said:
            return  # "um": nothing to act on, nothing to answer
        if said != heard.phrase:
            heard = Heard(
                heard.player,
                said,
                heard.onset,
                heard.end,
                heard.confidence,
                heard.source,
                heard.level_db,
                heard.uncertain,
            )
        if self._quit_asked is not None and self._quit_answer(heard):
            return
        if heard.uncertain and not self.paused:
            self._ask_back(heard)
            return
        asked = self._asked.get(heard.player)
        if asked is not None:
            answer = confirmation(heard.phrase, asked[0].phrase)
            del self._asked[heard.player]
            self._update_listening()
            if answer is True:
                self._to_flow(
                    Heard(
                        asked[0].player,
                        asked[0].phrase,
                        asked[0].onset,
                        asked[0].end,
                        asked[0].confidence,
                        asked[0].source,
                        asked[0].level_db,
                    )
                )
                return
            if answer is False:
                self.flow.say(f"Sorry, {heard.player}.", reply=True)
                return
        self._to_flow(heard)

    def _to_flow(self, heard: Heard) -> None:
        what = command(heard.phrase)
        if what is not None and self._command(heard, what):
            return
        if what is not None and not self.flow.accepts(heard.phrase):
            self.flow.say(f"{heard.player}, there is no {what.value} in this game.", reply=True)
            return
        if self.paused:
            self.flow.say("The game is paused. Say resume to go on.", reply=True)
            return
        if self._read(heard):
            return  # a question, never a move: BAM!'s "read card three" must not play card three
        if not self.flow.accepts(heard.phrase):
            self._stray(heard)
            return
        mouth, before = self.host.mouth, len(self.host.events)
        mouth.replying_to = heard.player
        try:
            self.flow.on_heard(heard)
        except IllegalAction as error:
            self.flow.say(f"{heard.player}: {error}")
        finally:
            mouth.end_reply(news=len(self.host.events) > before)

    def _read(self, heard: Heard) -> bool:
        """Answer "read card N" (tile, pile, sentence N); False if the phrase is not such a question."""
        n = read_request(heard.phrase)
        answer = self.flow.read_text(heard.player, n) if n is not None else None
        if answer is None:
            return False
        text, private = answer
        if private and self.host.mouth.private_outputs:
            self.flow.say(text, to=heard.player)
        elif private:
            self.flow.say(
                f"{heard.player}, I cannot tell you privately: you hold your own cards at this table.", reply=True
            )
        else:
            self.flow.say(text, reply=True)
        return True

    def _stray(self, heard: Heard) -> None:
        """A sentence that is not, as a whole, a phrase of the moment: never acted on.

        If it holds one ("I think I'll go for eleven"), the host asks whether the player meant it
        and how to say it; else it says it did not understand."""
        player = heard.player
        if self.flow.silent_now():
            return
        meant = contained(heard.phrase, [p for p in grammar(self.flow) if p not in YES_PHRASES + NO_PHRASES])
        if meant is not None:
            self.flow.say(f"{player}, did you mean {meant}? Then say just {meant}.", reply=True)
        else:
            self.flow.say(f"Sorry {player}, I did not understand. Say help to hear what you can say.", reply=True)

    def _ask_back(self, heard: Heard) -> None:
        """Ask ``heard``'s player whether they said its phrase (see :meth:`dispatch`)."""
        self.flow.say(f"{heard.player}: {heard.phrase}?", reply=True)
        self._asked[heard.player] = (heard, self.host.mouth.silent_at() + CONFIRM_WINDOW)
        self._update_listening()

    def _update_listening(self) -> None:
        self.host.listen_also = (*YES_PHRASES, *NO_PHRASES) if self._holding() else ()

    def _next_deadline(self) -> float | None:
        due = [deadline for _, deadline in self._asked.values()]
        if self._quit_asked is not None:
            due.append(self._quit_asked[1])
        timer = self.host.timers.next_due()
        if timer is not None and not self._holding():
            now = self.host.clock.now()
            # a due timer waiting for the listener: look again soon
            due.append(min(now + HOLD_STEP, timer + HOLD_MAX) if timer <= now else timer)
        return min(due) if due else None

    def _ask_quit(self, player: str) -> None:
        """Ask the table to confirm that ``player``'s "quit" should stop everyone's game."""
        if self._quit_asked is not None:
            return
        self.flow.say(
            f"{player} wants to stop the game. Anyone else, say yes to stop it here, "
            "saved to continue later, or no to go on.",
            reply=True,
        )
        self._quit_asked = (player, self.host.mouth.silent_at() + QUIT_WINDOW)
        self._update_listening()

    def _quit_answer(self, heard: Heard) -> bool:
        """Take an answer to "stop the game?"; False if ``heard`` is not one (the game takes it)."""
        assert self._quit_asked is not None
        asker = self._quit_asked[0]
        said = heard.phrase
        yes = said in YES_PHRASES or command(said) is Command.QUIT
        if said in NO_PHRASES:
            self._quit_asked = None
            self._update_listening()
            self.flow.say("We go on.", reply=True)
            return True
        if yes and heard.player != asker:
            self._quit_asked = None
            self._update_listening()
            self._stop(asker)
            return True
        if yes:
            self.flow.say(f"{asker}, someone else must say yes.", reply=True)
            return True
        return False

    def _stop(self, player: str) -> None:
        """Stop the game unfinished: nothing is logged as an end, so ``voicehost resume`` goes on."""
        self.stopped = True
        log = self.host.log
        where = "" if log is None else " To go on later, run voicehost resume with its log."
        self.flow.say(f"The game stops here. {self.flow.score_text()} It is saved.{where}")

    def _expire_questions(self) -> None:
        now = self.host.clock.now()
        if self._quit_asked is not None and now >= self._quit_asked[1]:
            self._quit_asked = None
            self.flow.say("Nobody said yes: the game goes on.")
        for player, (heard, deadline) in list(self._asked.items()):
            if now >= deadline:
                del self._asked[player]
                self.flow.say(f"{player}, I did not hear {heard.phrase} clearly: it does not count.")
        self._update_listening()

    def _command(self, heard: Heard, what: Command) -> bool:
        """Carry out a global command; False if the flow should handle the phrase instead."""
        flow, mouth, player = self.flow, self.host.mouth, heard.player
        if what is Command.REPEAT:
            last, private = mouth.last_for(player)
            if private and mouth.private_outputs:
                mouth.say(last, to=player)
            else:
                mouth.say(last or "Nothing to repeat yet.", reply=True)
        elif what is Command.SCORE:
            flow.say(flow.score_text(), reply=True)
        elif what is Command.HELP:
            flow.say(flow.help_text(player), reply=True)
        elif what is Command.SLOWER:
            mouth.slower()
            flow.say("I will speak more slowly.", reply=True)
        elif what is Command.FASTER:
            mouth.faster()
            flow.say("I will speak faster.", reply=True)
        elif what is Command.PAUSE:
            self._for_microphones = False
            self._pause()
        elif what is Command.RESUME:
            self._resume()
        elif what is Command.QUIT:
            self._ask_quit(player)
        elif what in (Command.TILES, Command.TABLE, Command.WHOSE_TURN):
            answer = (
                flow.table_text()
                if what is Command.TILES
                else flow.glance_text()
                if what is Command.TABLE
                else flow.turn_text(player)
            )
            if answer is None:
                return False
            flow.say(answer, reply=True)
        elif what is Command.GOODBYE:
            flow.say(f"{player}, to stop the game, say quit.", reply=True)
        elif what in (Command.MY_CARD, Command.MY_HAND):
            secret = flow.private_text(player, what)
            if secret is None:
                return False
            if mouth.private_outputs:
                flow.say(secret, to=player)
            else:
                flow.say(f"{player}, I cannot tell you privately: you hold your own cards at this table.", reply=True)
        return True

    def microphones_changed(self, players: Sequence[str], lost: bool) -> None:
        """``players``' microphone stopped (``lost``) or is back.

        A stopped microphone pauses the game until it is back, unless the players say "continue"
        (the game then goes on without hearing them); when it comes back the game goes on by itself
        if it was paused for it alone.
        """
        if lost:
            new = [p for p in players if p in self.host.players and p not in self.missing]
            self.missing.extend(new)
            if not new:
                return
            they, them = ("it is", "it") if len(new) == 1 else ("they are", "them")
            text = f"{_microphones(new)} stopped: the game is paused until {they} back."
            if len(self.missing) < len(self.host.players):
                text += f" Say continue to go on without {them}."
            if self.paused:
                self.flow.say(text)
            else:
                self._for_microphones = True
                self._pause(text)
            return
        back = [p for p in players if p in self.missing]
        self.missing = [p for p in self.missing if p not in back]
        if not back:
            return
        text = f"{_microphones(back)} {'is' if len(back) == 1 else 'are'} back."
        if self.paused and self._for_microphones and not self.missing:
            self._resume(f"{text} Let's go on.")
        elif self.paused:
            self.flow.say(text + ("" if self._for_microphones else " Say resume to go on."))
        else:
            self.flow.say(text, reply=True)

    def _pause(self, text: str = "Paused. Say resume when you are ready.") -> None:
        if self.paused:
            return
        now = self.host.clock.now()
        timers = self.host.timers
        self._paused_timers = []
        while (due := timers.next_due()) is not None:
            for name in timers.pop_due(due):
                self._paused_timers.append((name, max(0.0, due - now)))
        self.paused = True
        self.flow.say(text)

    def _resume(self, text: str | None = None) -> None:
        if not self.paused or not self._log_saved_again():
            return
        if text is None:
            text = (
                f"We go on without {_microphones(self.missing)}."
                if self.missing and self._for_microphones
                else "Let's go on."
            )
        self.paused = False
        self._for_microphones = False
        self.flow.say(text)
        start = self.host.mouth.silent_at()
        for name, remaining in self._paused_timers:
            self.host.timers.start(name, start + remaining)
        self._paused_timers = []
        self.flow.after_pause()


def _microphones(players: Sequence[str]) -> str:
    """Say "Ben's microphone", or "Anna's and Ben's microphones" for several."""
    names = [f"{p}'s" for p in players]
    if len(names) == 1:
        return f"{names[0]} microphone"
    return f"{', '.join(names[:-1])} and {names[-1]} microphones"


def log_path_for(folder: Path, game: str, seed: int) -> Path:
    """A fresh log file name in ``folder``: GAME-SEED-N.jsonl."""
    folder.mkdir(parents=True, exist_ok=True)
    n = 1
    while (path := folder / f"{game}-{seed}-{n}.jsonl").exists():
        n += 1
    return path
