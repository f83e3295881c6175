"""BAM! by voice.

Each round the host reads the BAM! Master's red card; every other player hears their hand on
their own earphone, numbered, and plays by saying a number ("seven", or "seven then three" for a
double-BAM! card). When all cards are in, the host reads every combination as a fixed-up sentence
(the sentence realizer) in the engine's shuffled reading order, numbered and without names; the
master says "best two, worst four"; the host announces who won the point and who takes the red
card, passes the master role to the left and, after every player was master K times, crowns
"The True BAM! Master" (shared when the tie-breaks leave a tie).

A player who leaves: after ``reminders`` unanswered reminders the host asks the table about each
player it is waiting for ("Ben has not answered. Skip Ben? Say yes or no."); "a player has left"
asks the same at once, and typed lines may name the player ("skip Ben", "Ben has left", "drop
Ben"). A yes is the rules' ``Leave``: the leaver's cards leave the game and the round goes on
without them; a round whose master left does not count (docs/rules.md). Anything the asked-about
player says shows they are still here and drops the question.

Hand numbers stay put: the card drawn after a round takes the number of the card played, so a
player's "seven" is the same card until they play it. Without private outputs (or with
``--cards table``) the game runs in table-cards mode: players hold printed cards and play by
the number printed on them (``voicehost deck print`` with the same ``--deck``/``--tag``).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any, Sequence, TypeVar

from voicehost.decks import Deck, DeckError, GreyCard, RedCard, load_decks
from voicehost.host.options import Anything, Check, Choice, LONG_WAIT, Text, Texts, Whole
from voicehost.host.session import Flow, Host
from voicehost.host.speech_text import join
from voicehost.host.words import (
    COMMAND_PHRASES,
    LEAVING_PHRASES,
    NO_PHRASES,
    YES_PHRASES,
    Command,
    Heard,
    leaving_phrases,
    normalise,
    number,
    number_phrase,
)
from voicehost.rules import bam
from voicehost.rules.base import Event, IllegalAction, JsonObject
from voicehost.speak.earcons import Earcon
from voicehost.speak.lexicons import preload_lexicons
from voicehost.speak.realize import Filler, RealizeError, Realizer

HELP = "BAM!: fill the BAM! Master's red card with a card from your hand; the master picks the best and the worst"

OPTIONS: dict[str, Check] = {
    "decks": Texts(),
    "tags": Texts(longest=200),
    "rounds": Whole(1, 50),
    "cards": Choice(("dealt", "table"), optional=True),
    "first_master": Text(),
    "remind_after": LONG_WAIT,
    "reminders": Whole(0, 10),
    "realizer": Anything(),
}
"""Every option of :class:`BamSettings`, with what it accepts (checked by
:func:`voicehost.host.options.check_options` wherever options come from; ``realizer`` only from
a program, never from a file)."""

REMIND_TIMER = "remind"
KEEP_TIMER = "keep"
KEEP_WAIT = 6.0
"""Seconds, after the host has asked, that a double-BAM! winner has to choose the card to keep;
then the first blank's card is kept (the rulebook leaves the choice to the winner)."""
KEEP_WORDS = {"one": 1, "first": 1, "two": 2, "second": 2}
TITLE = "The True BAM! Master"
CARD_MODES = ("dealt", "table")
BEST_WORDS = frozenset({"best"})
WORST_WORDS = frozenset({"worst", "worse"})
READ_WORDS = frozenset({"read", "repeat", "again", "sentence"})
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}


@dataclass(frozen=True)
class BamSettings:
    """How the host runs BAM!."""

    decks: tuple[str, ...] = ()
    """Deck names or TOML files (none: the base deck)."""
    tags: tuple[str, ...] = ()
    """Only cards with one of these tags (none: every card)."""
    rounds: int = 1
    """Times each player is the BAM! Master (K)."""
    cards: str | None = None
    """'dealt' (hands told privately), 'table' (printed cards) or None: dealt when every player
    has a private output, else table."""
    first_master: str | None = None
    """The first BAM! Master (default: the first seated player)."""
    remind_after: float = 45.0
    """Seconds without progress before the host reminds who is still expected to speak."""
    reminders: int = 2
    """Reminders per wait before the host asks the table whether to skip the players it waits for
    (then the question again every ``remind_after`` seconds until it is answered)."""
    realizer: Realizer | None = None
    """A ready sentence realizer to share (tests); None builds one at game start."""


# ---- words → numbers and judgements -------------------------------------------------------


def spoken_numbers(phrase: str) -> list[int]:
    """Every number in a phrase, compounds joined ("seven then three" → [7, 3];
    "twenty one" → [21]; "one hundred and five" → [105]; "seven three" → [7, 3])."""
    out: list[int] = []
    current: int | None = None
    last = ""
    """What the previous word was: 'unit', 'tens', 'hundred', 'and' or '' (a number ended)."""
    for word in normalise(phrase).split():
        value = _TENS.get(word)
        if word.isdigit():
            _flush(out, current)
            out.append(int(word))
            current, last = None, ""
        elif value is not None:
            if current is not None and last in ("hundred", "and"):
                current += value
            else:
                _flush(out, current)
                current = value
            last = "tens"
        elif word == "hundred":
            if current is not None and last == "unit" and current < 10:
                current *= 100
            else:
                _flush(out, current)
                current = 100
            last = "hundred"
        elif word == "and" and last == "hundred":
            last = "and"
        elif (n := number(word)) is not None:
            if current is not None and ((last == "tens" and 0 < n < 10) or last in ("hundred", "and")):
                current += n
                last = ""
            else:
                _flush(out, current)
                current, last = n, "unit"
        else:
            _flush(out, current)
            current, last = None, ""
    _flush(out, current)
    return out


def _flush(out: list[int], current: int | None) -> None:
    if current is not None:
        out.append(current)


def parse_judgement(phrase: str) -> tuple[int | None, int | None]:
    """(best, worst) named in a phrase, each None if not said.

    Numbers follow their word ("best two, worst four", "best is two and worst is four") or,
    when the phrase starts with a number, precede it ("two is best and four is worst").
    """
    words = normalise(phrase).split()
    marks = [(i, "best" if w in BEST_WORDS else "worst") for i, w in enumerate(words) if w in BEST_WORDS | WORST_WORDS]
    if not marks:
        return None, None
    before = bool(spoken_numbers(" ".join(words[: marks[0][0]])))
    found: dict[str, int] = {}
    for k, (i, kind) in enumerate(marks):
        if before:
            start = marks[k - 1][0] + 1 if k else 0
            numbers = spoken_numbers(" ".join(words[start:i]))[-1:]
        else:
            end = marks[k + 1][0] if k + 1 < len(marks) else len(words)
            numbers = spoken_numbers(" ".join(words[i + 1 : end]))[:1]
        if numbers:
            found.setdefault(kind, numbers[0])
    return found.get("best"), found.get("worst")


def has_judgement_words(phrase: str) -> bool:
    """True when a phrase says best or worst."""
    return bool(set(normalise(phrase).split()) & (BEST_WORDS | WORST_WORDS))


# ---- stable hand numbers --------------------------------------------------------------------


class HandSlots:
    """Each player's hand as numbered slots: a played card's number goes to the next card drawn.

    Fed with every logged event (live or replayed), so a resumed game numbers hands as before.
    """

    def __init__(self) -> None:
        self.slots: dict[str, list[str | None]] = {}

    def on_event(self, ev: Event) -> None:
        """Follow one event of the log."""
        if isinstance(ev, bam.GameSetup):
            hands = ev.state.hands or {}  # None with table cards: the host knows no hands
            self.slots = {p: list(hand) for p, hand in hands.items()}
        elif isinstance(ev, bam.Submitted) and ev.player in self.slots:
            played = set(ev.cards)
            slots = self.slots[ev.player]
            self.slots[ev.player] = [None if c in played else c for c in slots]
        elif isinstance(ev, bam.PlayerLeft):
            self.slots[ev.player] = []
        elif isinstance(ev, bam.Drew) and ev.cards is not None:
            slots = self.slots[ev.player]
            for card in ev.cards:
                if None in slots:
                    slots[slots.index(None)] = card
                else:
                    slots.append(card)

    def numbered(self, player: str) -> list[tuple[int, str]]:
        """(number, card id) of the cards ``player`` holds, by number."""
        return [(i, c) for i, c in enumerate(self.slots.get(player, []), start=1) if c is not None]

    def card(self, player: str, n: int) -> str | None:
        """The card at number ``n`` of ``player``'s hand, or None."""
        return dict(self.numbered(player)).get(n)


@dataclass(frozen=True)
class KeepQuestion:
    """A double-BAM! judgement waiting for the winner to choose which of their two cards to keep."""

    player: str
    """The best submission's player, who chooses."""
    master: str
    best: int
    worst: int


# ---- the flow -------------------------------------------------------------------------------


class BamFlow(Flow):
    """The host's side of BAM!."""

    game = "bam"

    def __init__(self, host: Host, seed: int, settings: BamSettings = BamSettings()) -> None:
        super().__init__(host)
        if settings.cards not in (None, *CARD_MODES):
            raise bam.BadSetup(f"--cards must be dealt or table, not {settings.cards!r}")
        self.seed = seed
        self.settings = settings
        self.state: bam.BamState | None = None
        self.engine = bam.BamGame(host.rng)
        self.realizer = settings.realizer
        self.deck: Deck | None = None
        self.red_cards: dict[str, RedCard] = {}
        self.grey_cards: dict[str, GreyCard] = {}
        self.slots = HandSlots()
        self.last_numbers: list[int] = []
        """The numbers of the last submission tried (for explaining a refusal)."""
        self.sentences: list[str] = []
        """This round's sentences in reading order (sentence 1 first)."""
        self.pending: dict[str, int] = {}
        """A judgement said in parts: 'best' or 'worst' → number, until both are known."""
        self.reminders = 0
        self._printed: dict[int, str] | None = None
        self.keeping: KeepQuestion | None = None
        """A double-BAM! judgement whose winner is choosing the card to keep."""
        self.asking: list[str] = []
        """Players the host asks the table whether to skip, the one asked about now first."""

    # ---- life cycle -----------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.state is not None and self.state.phase is bam.Phase.OVER

    @property
    def mode(self) -> str:
        """'dealt' (the host tells hands privately) or 'table' (printed cards)."""
        if self.state is not None:
            return self.state.card_mode.value
        if self.settings.cards is not None:
            return self.settings.cards
        return "dealt" if self.host.mouth.private_outputs else "table"

    def start(self) -> None:
        if self.mode == "dealt" and not self.host.mouth.private_outputs:
            raise bam.BadSetup(
                "--cards dealt needs a private earphone for every player: "
                "without them play with printed cards (--cards table)"
            )
        deck = self._load_deck(required=True)
        assert deck is not None
        self._ready_realizer()
        state, events = self.engine.start(
            self.host.players,
            deck.red,
            deck.grey,
            seed=self.seed,
            rounds_per_player=self.settings.rounds,
            first_master=self.settings.first_master,
            t=self.now(),
            card_mode=self.mode,
        )
        self.state = state
        self._welcome()
        self._after(self._record(events))

    def resume(self, events: Sequence[JsonObject]) -> None:
        self._load_deck(required=False)
        self._ready_realizer()
        state = bam.replay(events)
        self.host.load(bam.GAME, events)
        for ev in self.host.events:
            self.slots.on_event(ev)
        state, new = self.engine.resume(state, self.now())
        self.state = state
        self._record(new)
        self.say(
            f"Welcome back to BAM! Round {number_phrase(state.round)} of {number_phrase(state.rounds_total)}. "
            f"{self.score_text()}"
        )
        if state.phase is bam.Phase.JUDGING:
            self._read_sentences()
        elif state.phase is bam.Phase.SUBMITTING:
            self._announce_round(again=True)
        self._arm_reminder()

    def quit(self, player: str | None) -> None:
        if not self.over:
            self._apply(bam.Quit(t=self.now()), player or "")

    # ---- what players say -----------------------------------------------------------------

    def on_heard(self, heard: Heard) -> None:
        state = self._state()
        if state.phase is bam.Phase.OVER:
            return
        if heard.player not in self.asking:
            self._heard(heard)
            return
        # The player the table is asked about spoke: they are still here.
        current = self.asking[0] == heard.player
        self.asking.remove(heard.player)
        if heard.phrase in YES_PHRASES + NO_PHRASES:
            self.say(f"{heard.player} is here: we wait for {heard.player}.")
        else:
            self._heard(heard)
        if current and not self.over:
            self._ask_next()

    def _heard(self, heard: Heard) -> None:
        state = self._state()
        named = self._named_leaver(heard.phrase)
        if named is not None:
            self.asking = [p for p in self.asking if p != named]
            self._leave(named)
        elif heard.phrase in LEAVING_PHRASES:
            self._ask_skip(self._awaited(), "")
        elif self.asking and heard.phrase in YES_PHRASES:
            self._leave(self.asking.pop(0))
            self._ask_next()
        elif self.asking and heard.phrase in NO_PHRASES:
            self.say(f"We wait for {self.asking.pop(0)}.")
            self._ask_next()
        elif heard.player in state.gone:
            self.say(f"{heard.player}, you have left this game.")
        elif self.keeping is not None:
            self._keep_says(heard, self.keeping)
        elif has_judgement_words(heard.phrase):
            self._judge_says(heard)
        elif state.phase is bam.Phase.SUBMITTING:
            self._submit_says(heard)
        else:
            self._judging_says(heard)

    def _submit_says(self, heard: Heard) -> None:
        state, player = self._state(), heard.player
        if player == state.master:
            self.say(f"{player}, you are the BAM! Master this round: wait for the sentences, then choose.")
            return
        if player in state.submitted:
            self.say(f"{player}, your card is already in.")
            return
        numbers = spoken_numbers(heard.phrase)
        if not numbers:
            self.say(f"Sorry {player}. {self._submit_help(player)}")
            return
        if len(numbers) != state.blanks:
            self.say(self._count_prompt(player))
            return
        cards = [self._card_for(player, n) for n in numbers]
        missing = [n for n, c in zip(numbers, cards) if c is None]
        if missing:
            self.say(self._no_such_card(player, missing[0]))
            return
        self.last_numbers = numbers
        self._apply(bam.Submit(player, tuple(c for c in cards if c is not None), t=self.now()), player)

    def _judge_says(self, heard: Heard) -> None:
        state, player = self._state(), heard.player
        if state.phase is bam.Phase.SUBMITTING or player != state.master:
            # The rules say why (not yet, not the master); the numbers do not matter.
            self._apply(bam.Judge(player, 1, 2, t=self.now()), player)
            return
        best, worst = parse_judgement(heard.phrase)
        if best is not None:
            self.pending["best"] = best
        if worst is not None:
            self.pending["worst"] = worst
        if "best" in self.pending and "worst" in self.pending:
            best, worst = self.pending.pop("best"), self.pending.pop("worst")
            problem = bam.judge_problem(state, player, best, worst, 1)
            if state.blanks == 2 and problem is None:
                self._ask_keep(KeepQuestion(state.submissions[best - 1].player, player, best, worst))
            else:
                self._apply(bam.Judge(player, best, worst, t=self.now()), player)
        elif "best" in self.pending:
            self.say(f"Best: {number_phrase(self.pending['best'])}. And the worst?")
        elif "worst" in self.pending:
            self.say(f"Worst: {number_phrase(self.pending['worst'])}. And the best?")
        else:
            self.say(f"{player}, {self._judge_example()}")

    def _ask_keep(self, question: KeepQuestion) -> None:
        """Ask the double-BAM! winner which card to keep; the first one after KEEP_WAIT seconds."""
        state = self._state()
        first, second = (self._grey_text(c) for c in state.submissions[question.best - 1].cards)
        self.keeping = question
        self.host.timers.cancel(REMIND_TIMER)
        self.say(
            f"Best: {number_phrase(question.best)}, worst: {number_phrase(question.worst)}. "
            f'{question.player}, which card do you keep as your point: one, "{first}", or two, '
            f'"{second}"? Say one or two.'
        )
        self.host.timers.start(KEEP_TIMER, self.host.mouth.silent_at() + KEEP_WAIT)

    def _keep_says(self, heard: Heard, question: KeepQuestion) -> None:
        """Only the winner's "one"/"two" (or "first"/"second") settles the question."""
        choice = [KEEP_WORDS[w] for w in heard.phrase.split() if w in KEEP_WORDS]
        if heard.player != question.player:
            self.say(f"{heard.player}, {question.player} is choosing which card to keep.")
        elif len(set(choice)) != 1:
            self.say(f"{question.player}, say one or two: which card do you keep?")
        else:
            self._keep(question, choice[0])

    def _keep(self, question: KeepQuestion, keep: int) -> None:
        self.keeping = None
        self.host.timers.cancel(KEEP_TIMER)
        self._apply(bam.Judge(question.master, question.best, question.worst, keep=keep, t=self.now()), question.master)

    def _judging_says(self, heard: Heard) -> None:
        state, player = self._state(), heard.player
        words = set(heard.phrase.split())
        numbers = spoken_numbers(heard.phrase)
        if words & READ_WORDS and len(numbers) == 1 and 1 <= numbers[0] <= len(self.sentences):
            self.say(f"{number_phrase(numbers[0]).capitalize()}: {self.sentences[numbers[0] - 1]}")
        elif player == state.master:
            self.say(f"{player}, {self._judge_example()}")
        else:
            self.say(f"{player}, all cards are in: {state.master} is choosing.")

    # ---- players who leave ----------------------------------------------------------------

    def _named_leaver(self, phrase: str) -> str | None:
        """The player a typed "skip Ben" / "Ben has left" / "drop Ben" is about, if it is one."""
        return next((p for p in self._state().players if phrase in leaving_phrases(p)), None)

    def _awaited(self) -> list[str]:
        """The players the game is waiting for now: the double-BAM! winner choosing, the master
        judging, or those still to play."""
        state = self._state()
        if self.keeping is not None:
            return [self.keeping.player]
        if state.phase is bam.Phase.JUDGING:
            return [state.master]
        return list(state.waiting_for)

    def _ask_skip(self, players: list[str], why: str) -> None:
        """Ask the table, one player at a time, whether to skip ``players`` (they leave the game)."""
        self.asking = list(players)
        if not players:
            self.say(
                "Nobody is keeping the game waiting. If a player has left, I ask about them when it is their turn."
            )
            return
        self.say(f"{why}Skip {players[0]}? Say yes or no.")

    def _ask_next(self) -> None:
        """After an answer: the question about the next player still awaited, or wait again."""
        awaited = self._awaited() if not self.over else []
        self.asking = [p for p in self.asking if p in awaited]
        if self.asking:
            self.say(f"Skip {self.asking[0]}? Say yes or no.")
        elif not self.over:
            self.reminders = 0
            self.host.timers.cancel(REMIND_TIMER)
            self._arm_reminder()

    def _leave(self, player: str) -> None:
        """``player`` leaves the game (the rules' Leave): a judgement or keep question in progress
        is dropped, since the submissions it named may be renumbered or gone."""
        if self.keeping is not None:
            self.keeping = None
            self.host.timers.cancel(KEEP_TIMER)
        self.pending.clear()
        self._apply(bam.Leave(player, t=self.now()), player)

    # ---- timers ---------------------------------------------------------------------------

    def on_timer(self, name: str) -> None:
        state = self._state()
        if name == KEEP_TIMER and self.keeping is not None:
            self.say(f"{self.keeping.player} keeps the first card.")
            self._keep(self.keeping, 1)
            return
        if name != REMIND_TIMER or state.phase is bam.Phase.OVER:
            return
        if self.asking:
            self.say(f"Skip {self.asking[0]}? Say yes or no.")
            self._arm_reminder()
            return
        if self.reminders >= self.settings.reminders:
            awaited = self._awaited()
            self._ask_skip(awaited, f"{join(awaited)} {'has' if len(awaited) == 1 else 'have'} not answered. ")
            self._arm_reminder()
            return
        self.reminders += 1
        if state.phase is bam.Phase.JUDGING:
            self.say(f"{state.master}, {self._judge_example()}")
            self.host.mouth.earcon(Earcon.YOUR_TURN, to=self._private_or_none(state.master))
        else:
            waiting = list(state.waiting_for)
            card = "the number printed on your card" if self.mode == "table" else "the number of your card"
            self.say(f"Still waiting for {join(waiting)}: say {card}.")
            for player in waiting:
                self.host.mouth.earcon(Earcon.YOUR_TURN, to=self._private_or_none(player))
        self._arm_reminder()

    # ---- applying actions and announcing --------------------------------------------------

    def _apply(self, action: bam.Action, player: str) -> None:
        before = self._state()
        try:
            new, events = self.engine.apply(before, action)
        except IllegalAction as error:
            self.pending.clear()
            self.say(self._explain(error, player))
            return
        self.state = new
        self.host.mouth.barge_in_next()
        self._after(self._record(events), before)

    def _record(self, events: Sequence[Event]) -> list[Event]:
        recorded = self.host.record(events)
        for ev in recorded:
            self.slots.on_event(ev)
        return recorded

    def _after(self, events: list[Event], before: bam.BamState | None = None) -> None:
        """Announce what the rules did (in this order, whatever the events' order), then wait for
        the next speaker. ``before``: the state the action was applied to."""
        for left in _of(events, bam.PlayerLeft):
            assert before is not None
            self._announce_left(left, before, events)
        for submitted in _of(events, bam.Submitted):
            self._confirm(submitted)
        best, worst = _of(events, bam.BestChosen), _of(events, bam.WorstChosen)
        if best and worst:
            self._award(best[0], worst[0])
        if best and self.mode == "table":
            self._table_chores(best[0], bool(_of(events, bam.Drew)), bool(_of(events, bam.Reshuffled)))
        for ended in _of(events, bam.BamGameOver):
            self._announce_end(ended)
        if _of(events, bam.RoundStarted):
            self._announce_round()
        if _of(events, bam.ReadingOrder):
            self._read_sentences()
        if any(isinstance(e, (bam.RoundStarted, bam.ReadingOrder, bam.BamGameOver)) for e in events):
            self.asking = []  # the game waits for someone else now
        if events:
            self.reminders = 0
            self.pending.clear()
        self.host.timers.cancel(REMIND_TIMER)
        if not self.over:
            self._arm_reminder()

    def _announce_left(self, left: bam.PlayerLeft, before: bam.BamState, events: list[Event]) -> None:
        """A player left: where their cards go, and what becomes of the round."""
        state, player = self._state(), left.player
        played = player in before.submitted
        if self.mode == "table":
            also = f", with the card{'s' if before.blanks > 1 else ''} {player} played this round" if played else ""
            text = f"{player} has left the game: put {player}'s cards back in the box{also}."
        else:
            also = (
                ", the one played this round too"
                if played and before.blanks == 1
                else (", the ones played this round too" if played else "")
            )
            text = f"{player} has left the game: {player}'s cards are out of the game{also}."
        if _of(events, bam.RoundVoided):
            text += " " + self._void_text(player, before, events)
        elif state.phase is bam.Phase.SUBMITTING:
            text += f" Still to play: {join(list(state.waiting_for))}."
        self.say(text)
        if state.phase is bam.Phase.JUDGING and before.phase is bam.Phase.JUDGING:
            self._read_sentences(again=True)

    def _void_text(self, player: str, before: bam.BamState, events: list[Event]) -> str:
        """Why the round does not count, and (printed cards) what the players do with their cards."""
        if player == before.master:
            why = f"{player} was the BAM! Master, so this round does not count"
        else:
            left = [p for p in before.round_players if p != player]
            why = f"Only {join(left)} {'is' if len(left) == 1 else 'are'} left to play this round, so it does not count"
        text = f"{why}: nobody scores, and the red card goes back under the red pile."
        if self.mode == "table" and _of(events, bam.Discarded):
            text += " Put the cards played this round on the discard pile."
        if self.mode == "table" and _of(events, bam.Drew):
            text += f" Everyone who played: draw back to {number_phrase(self._state().hand_size)} cards."
        if self.mode == "table" and _of(events, bam.Reshuffled):
            text += " The draw pile runs out: shuffle the discard pile into a new one and go on drawing."
        return text

    def _welcome(self) -> None:
        state = self._state()
        rounds = "once" if state.rounds_per_player == 1 else f"{number_phrase(state.rounds_per_player)} times"
        how = (
            "You will hear your cards privately, numbered: play one by saying its number."
            if self.mode == "dealt"
            else f"Shuffle the printed grey cards and deal {number_phrase(state.hand_size)} to each player: play "
            "a card by saying the number printed in its corner."
        )
        self.say(
            f"Welcome to BAM! Players, clockwise: {join(list(state.players))}. Each round the BAM! Master "
            f"reads a red card with a blank, and everyone else fills it with a grey card. {how} "
            f"The master picks the best and the worst. Everyone is master {rounds}."
        )

    def _announce_round(self, again: bool = False) -> None:
        state = self._state()
        assert state.red is not None
        red = self._red_text(state.red)
        double = state.blanks == 2
        players = list(state.waiting_for)
        ask = (
            f"{join(players)}: play two cards, first blank first, for example seven then three."
            if double
            else (
                f"{join(players)}: play a card by saying "
                f"{'the number printed on it' if self.mode == 'table' else 'its number'}."
            )
        )
        opening = "" if again else f"Round {number_phrase(state.round)} of {number_phrase(state.rounds_total)}. "
        card = "A double BAM! card" if double else "The red card"
        self.say(f"{opening}{state.master} is the BAM! Master. {card}: {red} {ask}")
        if self.mode == "dealt":
            for player in players:
                self.host.mouth.earcon(Earcon.YOUR_TURN, to=self._private_or_none(player))
                self._tell_hand(player)

    def _confirm(self, ev: bam.Submitted) -> None:
        """Tell a player what they played: privately with earphones, else at the table (by number)."""
        player = ev.player
        if self.mode == "table":
            # Never which numbers: the table must not learn who played what before the reading.
            self.say(f"{player}'s {'cards are' if len(ev.cards) > 1 else 'card is'} in.")
        elif self.host.mouth.private_outputs:
            texts = [self._grey_text(c) for c in ev.cards]
            self.say(f"{player}, you played: {' then '.join(texts)}.", to=player)

    def _read_sentences(self, again: bool = False) -> None:
        """Every combination as a sentence, numbered, in reading order, without names (``again``:
        renumbered after a player left)."""
        state = self._state()
        assert state.red is not None
        self.sentences = [self._sentence(state.red, s.cards) for s in state.submissions]
        readings = " ".join(f"{number_phrase(i).capitalize()}: {text}" for i, text in enumerate(self.sentences, 1))
        opening = (
            f"{state.master}, here are the sentences again, numbered anew."
            if again
            else f"All cards are in. {state.master}, here are the sentences."
        )
        self.say(f"{opening} {readings} {state.master}, which is best and which is worst?")

    def _award(self, best: bam.BestChosen, worst: bam.WorstChosen) -> None:
        self.host.mouth.earcon(Earcon.POINT)
        self.say(
            f"Best: {number_phrase(best.submission)}. {best.player} wins a point with "
            f'"{self._grey_text(best.card)}". Worst: {number_phrase(worst.submission)}. '
            f"{worst.player} takes the red card."
        )

    def _table_chores(self, best: bam.BestChosen, draw: bool, reshuffle: bool) -> None:
        """Printed cards: what the players do with their cards after a judgement."""
        state = self._state()
        kept = number_words(self._printed_number(best.card))
        text = f"{best.player}, keep card {kept} as your point; the other played cards go on the discard pile."
        if draw:
            text += f" Everyone who played: draw back to {number_phrase(state.hand_size)} cards."
        if reshuffle:
            text += " The draw pile runs out: shuffle the discard pile into a new one and go on drawing."
        self.say(text)

    def _announce_end(self, ev: bam.BamGameOver) -> None:
        active = list(self._state().active)
        why = {
            "rounds_done": "That was the last round.",
            "red_cards_out": "There are no red cards left.",
            "grey_cards_out": "There are not enough grey cards left.",
            "quit": "The game is over.",
            "too_few_players": f"Only {join(active)} are left, and BAM! needs at least "
            f"{number_phrase(bam.MIN_PLAYERS)} players: the game ends here.",
        }
        self.say(f"{why.get(ev.reason, 'The game is over.')} {self._title_text(ev)} {self.score_text()}")

    def _title_text(self, ev: bam.BamGameOver) -> str:
        """Who is The True BAM! Master, with the tie-breaks spelled out."""
        scores = ev.scores
        grey = ev.grey_won
        winners: list[str] = list(ev.winners)
        top = scores[winners[0]]
        if len(winners) > 1:
            return (
                f"{join(winners)} share the title {TITLE}: {_points(top)} and "
                f"{_count_cards(grey[winners[0]])} won each!"
            )
        winner = winners[0]
        tied = [p for p in self._state().active if scores[p] == top]
        if len(tied) > 1:
            others = [p for p in tied if p != winner]
            return (
                f"{join(tied)} have {_points(top)} each; {winner} won more grey cards "
                f"({grey[winner]} to {max(grey[p] for p in others)}), so {winner} is {TITLE}!"
            )
        return f"{winner} is {TITLE} with {_points(top)}!"

    def _tell_hand(self, player: str) -> None:
        text = self.private_text(player, Command.MY_HAND)
        if text and self.host.mouth.private_outputs:
            self.say(text, to=player)

    def _arm_reminder(self) -> None:
        self.host.timers.start(REMIND_TIMER, self.host.mouth.silent_at() + self.settings.remind_after)

    def _private_or_none(self, player: str) -> str | None:
        return player if self.host.mouth.private_outputs else None

    # ---- texts ----------------------------------------------------------------------------

    def score_text(self) -> str:
        state = self._state()
        return (
            "Scores: "
            + join(
                [f"{p} {_signed(n)}{' (left the game)' if p in state.gone else ''}" for p, n in state.scores.items()]
            )
            + "."
        )

    def help_text(self, player: str) -> str:
        state = self._state()
        also = "You can also say repeat, score, my hand, slower, faster, pause or quit."
        if state.phase is bam.Phase.OVER:
            return "The game is over. You can say score or repeat."
        if player in state.gone:
            return "You have left this game. You can say score or repeat."
        if self.asking:
            return f"I am asking the table whether to skip {self.asking[0]}: say yes or no. {also}"
        if self.keeping is not None:
            return f"{self.keeping.player} is choosing which card to keep: say one or two. {also}"
        if state.phase is bam.Phase.JUDGING:
            if player == state.master:
                return f"{self._judge_example().capitalize()} Say read and a number to hear one sentence again. {also}"
            return f"{state.master} is choosing the best and the worst. {also}"
        if player == state.master:
            return (
                "You are the BAM! Master: when all cards are in, I read the sentences "
                f"and you say the best and the worst. {also}"
            )
        if player in state.submitted:
            return f"Your card is in. Wait for the sentences. {also}"
        if player not in state.round_players:
            return f"You sit out this round: you have too few cards. {also}"
        return f"{self._submit_help(player)} {also}"

    def private_text(self, player: str, what: Command) -> str | None:
        state = self._state()
        if self.mode == "table":
            return f"{player}, you hold printed cards in this game: play one by saying the number printed on it."
        cards = self.slots.numbered(player)
        if not cards:
            return f"{player}, you hold no cards."
        listed = "; ".join(f"{number_phrase(n)}, {self._grey_text(c)}" for n, c in cards)
        master = (
            " You are the BAM! Master this round."
            if player == state.master and state.phase is not bam.Phase.OVER
            else ""
        )
        return f"{player}, your cards: {listed}.{master}"

    def accepts(self, phrase: str) -> bool:
        """A phrase of the moment; a typed "skip Ben" / "Ben has left" / "drop Ben"; with printed
        cards (too many numbers to list) any phrase made of number words and "then" while cards are
        played, and of best/worst and numbers while judging."""
        if phrase in self.phrases():
            return True
        state, words = self._state(), phrase.split()
        numbers = set(_TENS) | {"hundred", "and"}
        if state.phase is bam.Phase.OVER:
            return False
        if self._named_leaver(phrase) is not None:
            return True
        if self.keeping is not None:
            return False
        if has_judgement_words(phrase):  # the master's choice; said too early, the host explains
            return all(w in BEST_WORDS | WORST_WORDS | {"is", "and", "the"} or number(w) is not None for w in words)
        # Numbers alone: a card played, or (judging) a half-said choice the host explains; never acted on.
        return all(w in numbers or w == "then" or number(w) is not None for w in words)

    def glance_text(self) -> str | None:
        """The red card of the round, read again."""
        state = self._state()
        if state.red is None or state.phase is bam.Phase.OVER:
            return "There is no red card on the table."
        return f"The red card: {self._red_text(state.red)}"

    def turn_text(self, player: str) -> str | None:
        state = self._state()
        if state.phase is bam.Phase.OVER:
            return "The game is over."
        if state.phase is bam.Phase.JUDGING or self.keeping is not None:
            return f"{state.master} is choosing the best and the worst."
        waiting = list(state.waiting_for)
        mine = " You still have to play." if player in waiting else ""
        return f"{state.master} is the BAM! Master. Still to play: {join(waiting)}.{mine}"

    def read_text(self, player: str, n: int) -> tuple[str, bool] | None:
        """ "read card N": your card N, privately, while cards are played; sentence N while judging."""
        state = self._state()
        if state.phase is bam.Phase.JUDGING and 1 <= n <= len(self.sentences):
            return f"{number_phrase(n).capitalize()}: {self.sentences[n - 1]}", False
        if state.phase is bam.Phase.JUDGING:
            return f"{player}, the sentences are numbered one to {number_phrase(len(self.sentences))}.", False
        if self.mode == "table":
            card = self.printed.get(n)
            return (
                f"Card {number_words(n)}: {self._grey_text(card)}."
                if card
                else f"{player}, there is no card {number_words(n)} in this deck."
            ), False
        card = self.slots.card(player, n)
        return (
            f"{player}, your card {number_phrase(n)}: {self._grey_text(card)}."
            if card
            else self._no_such_card(player, n)
        ), True

    def phrases(self) -> list[str]:
        """The game's phrases of the moment, "a player has left" (and "yes"/"no" while the table
        is asked whether to skip someone), and the commands. Never a player's name: names outside
        the recognisers' dictionaries would stop them (typed lines may name players: :meth:`accepts`)."""
        state = self._state()
        commands = list(COMMAND_PHRASES)
        if state.phase is bam.Phase.OVER:
            return commands
        answers = [*YES_PHRASES, *NO_PHRASES] if self.asking else []
        return [*self._play_phrases(state), *LEAVING_PHRASES, *answers, *commands]

    def not_heard_from(self, player: str) -> frozenset[str]:
        """Short answers mean something only from the one they are asked of, so the others'
        microphones do not listen for them ("tree" in talk is not a card): while the winner
        chooses a card to keep, "one"/"two" from anyone else; while the master judges, a number,
        "best" or "worst" alone from anyone else (a whole "best two worst one" and "read two" stay
        heard); while the cards come in, the master's numbers."""
        state = self._state()
        if state.phase is bam.Phase.OVER:
            return frozenset()
        if self.keeping is not None:
            return frozenset(KEEP_WORDS) if player != self.keeping.player else frozenset()
        own = self._play_phrases(state)
        if state.phase is bam.Phase.JUDGING and player != state.master:
            return frozenset(p for p in own if len(p.split()) == 1)
        if state.phase is bam.Phase.SUBMITTING and player == state.master:
            return frozenset(p for p in own if p not in ("best", "worst") and not p.startswith("read "))
        return frozenset()

    def _play_phrases(self, state: bam.BamState) -> list[str]:
        if self.keeping is not None:
            return list(KEEP_WORDS)
        if state.phase is bam.Phase.JUDGING:
            n = [number_phrase(i) for i in range(1, len(state.submissions) + 1)]
            return [
                *(f"best {a} worst {b}" for a in n for b in n if a != b),
                *(f"best {a}" for a in n),
                *(f"worst {a}" for a in n),
                *(f"read {a}" for a in n),
                *(f"read sentence {a}" for a in n),
                *n,
                "best",
                "worst",
            ]
        top = max(self.printed) if self.mode == "table" and self.printed else state.hand_size
        n = [number_words(i) for i in range(1, top + 1)]
        pairs = [f"{a} then {b}" for a in n for b in n if a != b] if state.blanks == 2 and len(n) <= 20 else []
        reads = [f"read card {number_phrase(i)}" for i in range(1, state.hand_size + 1)] if self.mode == "dealt" else []
        return [*n, *pairs, "then", "best", "worst", *reads]

    def _submit_help(self, player: str) -> str:
        state = self._state()
        what = "the number printed on" if self.mode == "table" else "the number of"
        if state.blanks == 2:
            return f"Say {what} two cards, first blank first, for example seven then three."
        return f"Say {what} the card you play, for example seven."

    def _count_prompt(self, player: str) -> str:
        if self._state().blanks == 2:
            return (
                f"{player}, this card has two blanks: say two numbers, first blank first, for example seven then three."
            )
        return f"{player}, this card has one blank: say one number."

    def _no_such_card(self, player: str, n: int) -> str:
        if self.mode == "table":
            return f"{player}, there is no card {number_words(n)} in this deck."
        held = [number_phrase(k) for k, _ in self.slots.numbered(player)]
        return (
            f"{player}, you have no card {number_words(n)}: your cards are numbered {held[0]} to {held[-1]}."
            if held
            else f"{player}, you hold no cards."
        )

    def _out_of_play(self, player: str, reason: str) -> str:
        """Printed cards: why the card a player named cannot be played."""
        state = self._state()
        won = {c for stack in state.won_grey.values() for c in stack}
        where = {
            "already_played": set(state.table),
            "won_card": won,
            "discarded": set(state.discard),
            "set_aside": set(state.set_aside),
        }.get(reason, set())
        number = next((n for n in self.last_numbers if self.printed.get(n) in where), None)
        card = f"card {number_words(number)}" if number is not None else "that card"
        why = {
            "already_played": "is already on the table this round",
            "won_card": "was won as a point",
            "discarded": "is on the discard pile",
            "set_aside": "left the game with a player who left",
        }.get(reason, "is not in this deck")
        return f"{player}, {card} {why}: play another."

    def _judge_example(self) -> str:
        count = len(self._state().submissions)
        a, b = (2, 1) if count < 4 else (2, 4)
        return f"say best and worst, for example best {number_phrase(a)}, worst {number_phrase(b)}."

    def _explain(self, error: IllegalAction, player: str) -> str:
        state = self._state()
        reason = error.reason
        if reason == "master_submits":
            return f"{player}, you are the BAM! Master this round: wait for the sentences, then choose."
        if reason == "already_submitted":
            return f"{player}, your card is already in."
        if reason == "same_card_twice":
            return f"{player}, play two different cards."
        if reason == "wrong_number_of_cards":
            return self._count_prompt(player)
        if reason == "sitting_out":
            return f"{player}, you sit out this round: you have too few cards."
        if reason == "not_in_hand":
            return f"{player}, that card is not in your hand."
        if reason == "left_the_game":
            return f"{player} has already left the game."
        if reason in ("no_such_card", "already_played", "won_card", "discarded", "set_aside"):
            return self._out_of_play(player, reason)
        if reason == "not_master":
            return f"{player}, {state.master} is the BAM! Master and chooses."
        if reason == "not_all_submitted":
            return f"{player}, not yet: still waiting for {join(list(state.waiting_for))}."
        if reason == "no_such_submission":
            return f"{player}, the sentences are numbered one to {number_phrase(len(state.submissions))}."
        if reason == "best_is_worst":
            return f"{player}, the best and the worst must be different sentences."
        if reason == "game_over":
            return "The game is over."
        return f"{player}: {error}"

    # ---- cards ----------------------------------------------------------------------------

    def _load_deck(self, *, required: bool) -> Deck | None:
        """The decks of the settings; when resuming, a missing deck only costs grammar hints."""
        try:
            deck = load_decks(list(self.settings.decks), list(self.settings.tags))
        except DeckError:
            if required:
                raise
            return None
        self.deck = deck
        self.red_cards = {c.id: c for c in deck.red}
        self.grey_cards = {c.id: c for c in deck.grey}
        return deck

    def _ready_realizer(self) -> None:
        if self.realizer is None:
            preload_lexicons()
            self.realizer = Realizer()
        self.realizer.lexicon  # load the word knowledge now, not in the middle of a round

    @property
    def printed(self) -> dict[int, str]:
        """Printed card number → grey card id, as 'voicehost deck print' numbers the cards."""
        if self._printed is None:
            self._printed = self._state().printed_grey()
        return self._printed

    def _printed_number(self, card: str) -> int:
        return next(n for n, c in self.printed.items() if c == card)

    def _card_for(self, player: str, n: int) -> str | None:
        """The card a player means by number ``n``: a hand slot, or a printed number."""
        if self.mode == "table":
            return self.printed.get(n)
        return self.slots.card(player, n)

    def _grey_text(self, card: str) -> str:
        return self._state().cards[card].text.rstrip(".")

    def _red_text(self, card: str) -> str:
        return self._state().cards[card].text

    def _filler(self, card: str) -> Filler:
        text = self._state().cards[card].text
        known = self.grey_cards.get(card)
        if known is None or known.text != text:
            return Filler(text)
        return Filler(
            text, number=known.number, mass=known.mass or None, proper=known.proper or None, article=known.article
        )

    def _sentence(self, red: str, cards: Sequence[str]) -> str:
        """The red card read with ``cards`` in its blanks, grammar fixed."""
        text = self._red_text(red)
        known = self.red_cards.get(red)
        template = known.template if known is not None and known.text == text else None
        assert self.realizer is not None
        try:
            return self.realizer.realize(text, [self._filler(c) for c in cards], template=template)
        except RealizeError:
            # Never stop a game over grammar: read the card as printed with the words in.
            for card in cards:
                text = text.replace("BAM!", self._grey_text(card), 1)
            return text

    def _state(self) -> bam.BamState:
        assert self.state is not None, "the game has not started"
        return self.state


E = TypeVar("E", bound=Event)


def _of(events: Sequence[Event], kind: type[E]) -> list[E]:
    """The events of one type, in log order (an action can bring several of a type: draws)."""
    return [e for e in events if isinstance(e, kind)]


def _signed(n: int) -> str:
    return f"minus {-n}" if n < 0 else str(n)


def _points(n: int) -> str:
    return f"{_signed(n)} point{'' if abs(n) == 1 else 's'}"


def _count_cards(n: int) -> str:
    return f"{n} grey card{'' if n == 1 else 's'}"


def number_words(n: int) -> str:
    """A printed number as said: 'seven', 'twenty one', 'one hundred and five'."""
    if n <= 20:
        return number_phrase(n)
    if n < 100:
        tens = next(w for w, v in _TENS.items() if v == n - n % 10)
        return tens if n % 10 == 0 else f"{tens} {number_phrase(n % 10)}"
    if n < 1000:
        rest = n % 100
        head = f"{number_phrase(n // 100)} hundred"
        return head if rest == 0 else f"{head} and {number_words(rest)}"
    return str(n)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """BAM!'s own ``play`` options."""
    from voicehost.host.options import whole_type

    parser.add_argument(
        "--deck",
        action="append",
        metavar="NAME|FILE",
        help="deck to play with: base (default) or a deck file; repeat to combine decks",
    )
    parser.add_argument(
        "--tag", action="append", metavar="T", help="only cards with this tag, e.g. family; repeat for several tags"
    )
    parser.add_argument(
        "--rounds", type=whole_type(1, 50), metavar="K", help="times each player is the BAM! Master (default 1)"
    )
    parser.add_argument(
        "--cards",
        choices=CARD_MODES,
        help="dealt: the host tells each player their hand privately; table: players hold "
        "printed cards and play by their number (default: dealt when every player has "
        "a private earphone, else table)",
    )
    parser.add_argument("--first", metavar="NAME", help="the first BAM! Master (default: the first player)")


def options_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The settings those options ask for."""
    options: dict[str, Any] = {}
    if args.deck:
        options["decks"] = tuple(args.deck)
    if args.tag:
        options["tags"] = tuple(args.tag)
    if args.rounds is not None:
        options["rounds"] = args.rounds
    if args.cards is not None:
        options["cards"] = args.cards
    if args.first is not None:
        options["first_master"] = args.first
    return options


def make_flow(host: Host, seed: int, options: dict[str, Any]) -> BamFlow:
    """The flow for ``voicehost play bam``."""
    return BamFlow(host, seed, BamSettings(**options))
