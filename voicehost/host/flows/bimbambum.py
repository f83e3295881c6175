"""Bim Bam Bum! by voice.

Who starts: everybody shouts "BIM BAM BUM!" once and the loudest voice (``Heard.level_db``) wins,
which also checks every microphone; typed or scripted lines have no level, so the host draws lots
with the seeded RNG and says so (``--first NAME`` skips all that).

Each turn the host names the player and their top card ("Anna: bam."). The player names a pile
and yells ("two, bam bam!"); the rules judge the yell. The time window opens when the host has
finished speaking: every action is first applied as a trial (the engine is pure) to learn what to
announce, the announcement is queued, and the same action is applied for real with ``t`` = when
the table speaker falls silent, because the engine opens the next window at the action's ``t``.

A right "BIM BAM BUM!" opens the slap race at once and the host falls silent; slaps ("slap" from
the listener for a clap or table slap, or the word "ship") are collected with their onsets until
the slap window closes or everyone who can slap has slapped, and the rules rank them by onset.
Plays during the race wait; phrases the host cannot read as a pile and a yell get a short
re-prompt. Finding the right yell in time is the game, so the window keeps running while the host
answers "help" or re-prompts, and "help" explains the kinds of yell without computing one; only
"pause", which the whole table hears, stops the clock (the window opens anew on "resume").
"""

from __future__ import annotations

import argparse
import random
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from voicehost.host.options import Check, LONG_WAIT, SLAP_WINDOW, TIME_WINDOW, Seconds, Text, Whole
from voicehost.host.session import Flow, Host
from voicehost.host.speech_text import count, join
from voicehost.host.words import COMMAND_PHRASES, LEAVING_PHRASES, Command, Heard, normalise, number, number_phrase
from voicehost.rules import bimbambum as bb
from voicehost.host.flows import bimbambum_texts as texts
from voicehost.rules.base import Event, IllegalAction, JsonObject
from voicehost.rules.bimbambum.cards import (
    CALL,
    CARDS_PER_PLAYER,
    MAX_PLAYERS,
    MIN_PLAYERS,
    player_count_problem,
)
from voicehost.speak.earcons import Earcon

HELP = (
    "Bim Bam Bum!: put your top card on a pile and yell its word once for each pile showing it; "
    "on BIM BAM BUM! everybody else slaps"
)

OPTIONS: dict[str, Check] = {
    "window": TIME_WINDOW,
    "slap_window": SLAP_WINDOW,
    "first_player": Text(),
    "shout_window": Seconds(0.0, 60.0),
    "remind_after": LONG_WAIT,
    "reminders": Whole(0, 10),
    "quick": Whole(1, 1000, optional=True),
}
"""Every option of :class:`BimBamBumSettings`, with what it accepts (checked by
:func:`voicehost.host.options.check_options` wherever options come from)."""

SHOUT_TIMER = "loudest"
INTRO_TIMER = "intro"
WINDOW_TIMER = "window"
ABSENT_WARN = 2
"""Windows a player lets pass in a row before the host asks whether they have left."""
ABSENT_LIMIT = 4
"""Windows in a row after which the game ends: an absent player's deck would loop for ever."""
SLAP_TIMER = "slap"
REMIND_TIMER = "remind"
WARN_TIMER = "time running out"
WARN_BEFORE = 1.0
"""Seconds before a play window closes when the "time running out" sound plays (at most a third
of the window, so a short window is not all warning)."""

PILE_WORDS = texts.PILE_WORDS
YELL_WORDS = frozenset(card.value for card in bb.Card)
SLAP_PHRASES = frozenset({"slap", "ship"})
"""'slap': a clap or table slap classified by the listener; 'ship': the spoken slap."""
FILLERS = frozenset({"pile", "on", "the", "number"})
"""Words a player may wrap around a play ("on pile two, bam") that change nothing."""
YELLS = tuple(" ".join([card.value] * n) for card in bb.Card for n in (1, 2, 3)) + (CALL,)
"""Every yell the rules can ask for."""
PILE_ALONE = frozenset(PILE_WORDS)
ALONE_WORDS = frozenset((*PILE_WORDS, *YELLS))
"""A pile number or a yell without the other half (``BimBamBumFlow.not_heard_from``)."""


@dataclass(frozen=True)
class BimBamBumSettings:
    """How the host runs Bim Bam Bum!."""

    window: float | None = 3.0
    """Seconds a player has to play, from when the host has named their card; None: no limit."""
    slap_window: float = 2.0
    """Seconds after a right "BIM BAM BUM!" in which slaps count."""
    first_player: str | None = None
    """Who starts (default: the loudest "BIM BAM BUM!", or lots when levels are unknown)."""
    shout_window: float = 3.0
    """Seconds the host listens for the loudest shout after asking for it."""
    remind_after: float = 15.0
    """Without a time window: seconds of silence before the host reminds the player."""
    reminders: int = 3
    """Reminders for one turn before the host waits silently."""
    quick: int | None = None
    """A quick game: deal this many cards per player instead of the rulebook's number."""


@dataclass(frozen=True)
class PlayWords:
    """What a phrase says about a play: the pile and the yelled words, or what is missing."""

    pile: int | None
    """0, 1 or 2; None if no pile was named."""
    said: str
    """The yelled words ("bam bam"), normalised; "" if none."""
    problem: str | None = None
    """None for a complete play; else 'no_pile', 'no_yell', 'bad_pile', 'two_piles' or 'unknown'."""


def read_play(phrase: str) -> PlayWords:
    """'two, bam bam!' → pile 1 and 'bam bam'; a missing or doubtful part names the problem.

    Words other than pile numbers, bim/bam/bum and a few fillers make the phrase 'unknown' (a
    misheard phrase is re-prompted rather than judged as a wrong yell).
    """
    piles: list[int] = []
    yell: list[str] = []
    unknown = False
    for word in normalise(phrase).split():
        value = number(word)
        if word in YELL_WORDS:
            yell.append(word)
        elif value is not None:
            piles.append(value)
        elif word not in FILLERS:
            unknown = True
    said = " ".join(yell)
    pile = piles[0] - 1 if len(piles) == 1 and 1 <= piles[0] <= len(PILE_WORDS) else None
    if unknown or not (piles or yell):
        return PlayWords(pile, said, "unknown")
    if len(piles) > 1:
        return PlayWords(None, said, "two_piles")
    if piles and pile is None:
        return PlayWords(None, said, "bad_pile")
    if pile is None:
        return PlayWords(None, said, "no_pile")
    if not yell:
        return PlayWords(pile, said, "no_yell")
    return PlayWords(pile, said)


class BimBamBumFlow(Flow):
    """The host's side of Bim Bam Bum!."""

    game = "bimbambum"

    def __init__(self, host: Host, seed: int, settings: BimBamBumSettings = BimBamBumSettings()) -> None:
        super().__init__(host)
        if not MIN_PLAYERS <= len(host.players) <= MAX_PLAYERS:
            raise bb.SetupError(player_count_problem(len(host.players)))
        self.seed = seed
        self.settings = settings
        self.rules = bb.Settings(window=settings.window, slap_window=settings.slap_window)
        self.state: bb.State | None = None
        """None until the first player is chosen and the cards are dealt."""
        self.shouts: dict[str, float | None] = {}
        """Who shouted while the host chose the first player: the loudest level heard, dBFS."""
        self.slaps: list[tuple[str, float]] = []
        """(player, onset seconds) of the open slap race, in arrival order."""
        self.reminders = 0
        self.missed: dict[str, int] = {}
        """Windows each player let pass in a row (a play resets it)."""
        self.first: str | None = settings.first_player
        """Who starts, once known (before the deal: the host is explaining the rules)."""
        self._quit_early = False

    # ---- life cycle -----------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self._quit_early or (self.state is not None and self.state.over)

    def start(self) -> None:
        """Welcome; then the loudest shout (unless --first) and the rules, all before the deal.

        The long talk comes before the deal so that only the short cue ("Anna starts. Anna:
        bam.") lies between the deal and the first window.
        """
        welcome = f"Welcome to Bim Bam Bum! Players, clockwise: {join(list(self.host.players))}."
        if self.first is not None:
            self.say(f"{welcome} {self._rules_text()}")
            self.host.timers.start(INTRO_TIMER, self._silent_at())
            return
        self.say(f"{welcome} Who starts? Everybody, shout bim bam bum, once, as loud as you can. Now!")
        self.host.timers.start(SHOUT_TIMER, self._silent_at() + self.settings.shout_window)

    def resume(self, events: Sequence[JsonObject]) -> None:
        state = bb.replay(events)
        self.host.load(bb.GAME, events)
        self.state = state
        if state.over:
            self.say(f"This game is over. {self.score_text()}")
            return
        self.say(f"Welcome back to Bim Bam Bum! {self.score_text()} {self.table_text()}")
        self._act(lambda t: bb.Resume(t=t), player_acted=False)

    def after_pause(self) -> None:
        """Reopen the window (play or slap) after a pause, with a "resumed" event."""
        if self.state is None or self.over:
            return
        self.slaps = []
        self._act(lambda t: bb.Resume(t=t), player_acted=False)

    def quit(self, player: str | None) -> None:
        if self.state is None:
            self._quit_early = True
            self.host.timers.cancel(SHOUT_TIMER)
            self.host.timers.cancel(INTRO_TIMER)
            self.say("The game is over before it began.")
            return
        self._act(lambda t: bb.Quit(t=t))

    # ---- before the deal: the loudest shout, the rules ----------------------------------------

    def _before_deal(self, heard: Heard) -> None:
        """A shout while choosing; during the rules, a whole play deals at once and is judged."""
        if self.first is None:
            self._shouted(heard)
        elif read_play(heard.phrase).problem is None:
            self._deal(early=True)
            self.on_heard(heard)

    def _shouted(self, heard: Heard) -> None:
        level = heard.level_db
        before = self.shouts.get(heard.player)
        if heard.player not in self.shouts or (level is not None and (before is None or level > before)):
            self.shouts[heard.player] = level
        if len(self.shouts) == len(self.host.players):
            self._choose_first()

    def _choose_first(self) -> None:
        """The loudest shout starts (ties: seating order); without levels, seeded lots."""
        self.host.timers.cancel(SHOUT_TIMER)
        players = self.host.players
        levels = {p: level for p, level in self.shouts.items() if level is not None}
        if levels:
            loudest = max(levels.values())
            first = next(p for p in players if levels.get(p) == loudest)
            text = f"{first} was the loudest!"
            silent = [p for p in players if p not in self.shouts]
            if silent:
                text += (
                    f" I did not hear {join(silent)}: "
                    f"please check {'that microphone' if len(silent) == 1 else 'those microphones'}."
                )
        else:
            first = players[self.host.rng.randrange(len(players))]
            why = "I cannot hear how loud typed words are" if self.shouts else "I heard nobody"
            text = f"{why}, so I drew lots: it is {first}."
        self.first = first
        self.host.mouth.barge_in_next()
        self.say(f"{text} {self._rules_text()}")
        self.host.timers.start(INTRO_TIMER, self._silent_at())

    def _deal(self, *, early: bool = False) -> None:
        """Deal and name the first card; the first window opens when that is said.

        ``early``: a player made a whole play during the rules, which are cut short.
        """
        assert self.first is not None
        self.host.timers.cancel(INTRO_TIMER)
        players, first = self.host.players, self.first
        trial_rng = random.Random()
        trial_rng.setstate(self.host.rng.getstate())
        trial, _ = bb.new_game(
            players,
            trial_rng,
            self.seed,
            first_player=first,
            settings=self.rules,
            t=self.now(),
            each=self.settings.quick,
        )
        self.say(f"{first} starts. {self._turn_text(first, trial.top(first))}", barge_in=early)
        state, events = bb.new_game(
            players,
            self.host.rng,
            self.seed,
            first_player=first,
            settings=self.rules,
            t=self._silent_at(),
            each=self.settings.quick,
        )
        self.state = state
        self.host.record(events)
        self._arm()

    # ---- what players say -----------------------------------------------------------------

    def on_heard(self, heard: Heard) -> None:
        if self.state is None:
            self._before_deal(heard)
            return
        state = self.state
        if state.over:
            return
        if heard.phrase in LEAVING_PHRASES:
            self._leaves(None, "A player has left")
            return
        if heard.phrase in SLAP_PHRASES:
            if state.phase is bb.Phase.SLAP:
                self._slap(heard)
            return  # a slap with no race open changes nothing
        if state.phase is bb.Phase.SLAP:
            return  # plays wait until the race is judged; the host stays silent
        words = read_play(heard.phrase)
        if heard.player != state.turn:
            if words.problem is None:  # a whole play out of turn is the rulebook's mistake
                self._play(heard, words)
            else:
                self.say(f"{heard.player}, it is {state.turn}'s turn.")
            return
        if words.problem is not None:
            self.say(self._reprompt(heard.player, words))
            return
        self._play(heard, words)

    def _leaves(self, name: str | None, why: str) -> None:
        """A player left (the table said so, or they were silent for ABSENT_LIMIT windows): the
        game ends with the cards left. Bim Bam Bum! cannot go on without a player's deck
        (docs/rules.md), so it does not matter who: the phrases name nobody, which also keeps
        player names (not all in the recognisers' dictionaries) out of the grammar."""
        whose = f"{name}'s" if name else "their"
        self.say(f"{why}: Bim Bam Bum! cannot go on without {whose} cards, so the game ends here.")
        self._act(lambda t: bb.Quit(t=t), player_acted=False)

    def _play(self, heard: Heard, words: PlayWords) -> None:
        assert words.pile is not None
        self.missed[heard.player] = 0
        pile, said, onset = words.pile, words.said, heard.onset
        self._act(lambda t: bb.Play(heard.player, pile, said, min(onset, t), t=t))

    def _slap(self, heard: Heard) -> None:
        """Keep each player's first slap inside the window; judge early once everyone slapped."""
        state = self._state()
        assert state.caller is not None and state.slap_opens is not None and state.slap_closes is not None
        if not state.slap_opens <= heard.onset <= state.slap_closes:
            return
        if any(p == heard.player for p, _ in self.slaps):
            return
        self.slaps.append((heard.player, heard.onset))
        if self._race_decided(state):
            self._judge_race()

    def _race_decided(self, state: bb.State) -> bool:
        """True once the caller or every other player has slapped: no need to wait any longer."""
        assert state.caller is not None
        slapped = {p for p, _ in self.slaps}
        return state.caller in slapped or all(p in slapped for p in state.after(state.caller))

    def _judge_race(self) -> None:
        """Send the slaps (cleared in ``_act`` once judged); the rules rank them by onset."""
        state = self._state()
        assert state.slap_closes is not None
        slaps = tuple(self.slaps)
        closes = 0.0 if self._race_decided(state) else state.slap_closes
        self._act(lambda t: bb.SlapRace(slaps, t=max(t, closes)))

    # ---- timers ---------------------------------------------------------------------------

    def on_timer(self, name: str) -> None:
        if self.state is None and not self._quit_early:
            if name == SHOUT_TIMER and self.first is None:
                self._choose_first()
            elif name == INTRO_TIMER and self.first is not None:
                self._deal()
            return
        state = self.state
        if state is None or state.over:
            return
        closes = state.window_closes
        if name == WINDOW_TIMER and state.phase is bb.Phase.PLAY and closes is not None:
            late = state.turn
            self.missed[late] = self.missed.get(late, 0) + 1
            if self.missed[late] >= ABSENT_LIMIT:
                self._leaves(late, f"{late} has not played {number_phrase(ABSENT_LIMIT)} times in a row")
                return
            self._act(lambda t: bb.Timeout(t=max(t, closes)), player_acted=False)
            if self.missed[late] == ABSENT_WARN and not self.over:
                self.say(f"{late} has missed two turns. If {late} has left the table, say: a player has left.")
        elif name == WARN_TIMER and state.phase is bb.Phase.PLAY and closes is not None:
            self.host.mouth.earcon(Earcon.TIME_RUNNING_OUT)
        elif name == SLAP_TIMER and state.phase is bb.Phase.SLAP:
            self._judge_race()
        elif name == REMIND_TIMER and state.phase is bb.Phase.PLAY and closes is None:
            if self.reminders < self.settings.reminders:
                self.reminders += 1
                self.say(f"{state.turn}, your turn: {self._card(state.turn)}. Say a pile and the yell.")
                self._arm_reminder()

    # ---- applying actions and announcing --------------------------------------------------

    def _act(self, make: Callable[[float], bb.Action], *, player_acted: bool = True) -> None:
        """Trial-apply to learn what to say, say it, then apply for real when the host is silent.

        A right "BIM BAM BUM!" is applied at once (the race starts with the yell) and the host
        stops talking so the microphones hear the slaps.
        """
        state = self._state()
        now = max(self.now(), state.t)
        try:
            trial, events = bb.apply(state, make(now))
        except IllegalAction as error:
            self.say(str(error))
            return
        if player_acted:
            self.host.mouth.barge_in_next()
        t = now
        if any(isinstance(e, bb.Called) for e in events):
            self.host.mouth.interrupt()
        elif self._announce(state, events, trial) and not trial.over:
            t = max(now, self._silent_at())
        new, events = bb.apply(state, make(t))
        self.state = new
        self.reminders = 0
        if new.phase is not bb.Phase.SLAP:
            self.slaps = []
        self.host.record(events)
        self._arm()

    def _arm(self) -> None:
        """Timers for the new state: the window's close, the slap window's close, or a reminder."""
        timers, state = self.host.timers, self._state()
        for name in (WINDOW_TIMER, SLAP_TIMER, REMIND_TIMER, WARN_TIMER):
            timers.cancel(name)
        if state.over:
            return
        if state.phase is bb.Phase.SLAP:
            assert state.slap_closes is not None
            timers.start(SLAP_TIMER, state.slap_closes)
        elif state.window_closes is not None:
            timers.start(WINDOW_TIMER, state.window_closes)
            if self.rules.window is not None:
                timers.start(WARN_TIMER, state.window_closes - min(WARN_BEFORE, self.rules.window / 3))
        else:
            self._arm_reminder()

    def _arm_reminder(self) -> None:
        self.host.timers.start(REMIND_TIMER, self._silent_at() + self.settings.remind_after)

    def _announce(self, before: bb.State, events: Sequence[Event], after: bb.State) -> bool:
        """Say what an action's events mean, in one short utterance; False if nothing to say."""
        parts: list[str] = []
        for ev in events:
            if isinstance(ev, bb.MistakeMade):
                self.host.mouth.earcon(Earcon.MISTAKE)
            text = texts.announcement(ev, before, events, after)
            if text:
                parts.append(text)
        if parts:
            self.say(" ".join(parts))
        return bool(parts)

    # ---- texts ----------------------------------------------------------------------------

    def _turn_text(self, player: str, card: bb.Card | None) -> str:
        return texts.turn(player, card)

    def _rules_text(self) -> str:
        cards = count(self.settings.quick or CARDS_PER_PLAYER[len(self.host.players)], "card")
        window = self.rules.window
        if window is None:
            limit = "There is no time limit."
        else:
            seconds = number_phrase(int(window)) if float(window).is_integer() else f"{window:g}"
            limit = f"You have {seconds} {'second' if window == 1 else 'seconds'} to play."
        return (
            f"Each of you has {cards}. I name your top card; say a pile, one to three, and yell "
            "the word once for each pile top showing it, or bim bam bum when all three show. "
            f"Then everybody else slaps, or says ship: the last one loses. {limit}"
        )

    def _card(self, player: str) -> str:
        card = self._state().top(player)
        return card.value if card else "no card"

    def _cards_text(self, state: bb.State) -> str:
        return texts.cards_left(state)

    def _reprompt(self, player: str, words: PlayWords) -> str:
        example = f"two {self._card(player)}"
        if words.problem == "no_yell" and words.pile is not None:
            return f"{player}: pile {PILE_WORDS[words.pile]}, and the yell?"
        if words.problem == "no_pile":
            return f"{player}: which pile? Say it with the yell, like {example}."
        if words.problem in ("bad_pile", "two_piles"):
            return f"{player}: one pile, one, two or three, then the yell."
        return f"{player}, say a pile and the yell, like {example}."

    def score_text(self) -> str:
        if self.state is None:
            return (
                "Everybody starts with "
                f"{count(self.settings.quick or CARDS_PER_PLAYER[len(self.host.players)], 'card')}."
            )
        return self._cards_text(self.state)

    def accepts(self, phrase: str) -> bool:
        """A phrase of the moment, or one made only of pile numbers, yells and pile words ("on pile
        two, bam"; a half play such as "two" or "bam bam" gets a re-prompt, never a judgement)."""
        if phrase in self.phrases():
            return True
        state = self.state
        playing = (state is None and self.first is not None) or (state is not None and state.phase is bb.Phase.PLAY)
        return playing and read_play(phrase).problem != "unknown"

    def silent_now(self) -> bool:
        return self.state is not None and self.state.phase is bb.Phase.SLAP

    def private_text(self, player: str, what: Command) -> str | None:
        if self.state is None:
            return f"{player}, the cards are not dealt yet."
        return f"{player}, your top card is {self._card(player)}."

    def turn_text(self, player: str) -> str | None:
        state = self.state
        if state is None:
            return "The cards are not dealt yet."
        if state.over:
            return "The game is over."
        if state.phase is bb.Phase.SLAP:
            return "A slap race is on!"
        return (
            f"It is your turn, {player}: {self._card(player)}."
            if player == state.turn
            else f"It is {state.turn}'s turn."
        )

    def read_text(self, player: str, n: int) -> tuple[str, bool] | None:
        """ "read pile N": that pile's top card, at the table."""
        if self.state is None or not 1 <= n <= len(PILE_WORDS):
            return None
        top = self.state.visible[n - 1]
        return f"Pile {PILE_WORDS[n - 1]}: {top.value if top else 'empty'}.", False

    def table_text(self) -> str:
        if self.state is None:
            return "The piles are empty: nobody has played yet."
        tops = [f"{PILE_WORDS[i]} {top.value if top else 'empty'}" for i, top in enumerate(self.state.visible)]
        return f"Piles: {join(tops)}."

    def help_text(self, player: str) -> str:
        state = self.state
        if state is None:
            if self.first is None:
                return "Shout bim bam bum, as loud as you can: the loudest starts."
            return f"{player}, the game starts in a moment: {self.first} begins."
        if state.phase is bb.Phase.SLAP:
            if player == state.caller:
                return f"{player}, do not slap: it was your bim bam bum."
            return f"{player}, slap the table or say ship, quick!"
        if player == state.turn:
            return (
                f"{player}, your card is {self._card(player)}. Put it on pile one, two or three and yell "
                "its word once for each pile top showing it, your card included: twice skips the next "
                "player, three times reverses the order. If the tops then show a bim, a bam and a bum, "
                "yell bim bam bum. Your time is running; say pause to stop the game for everyone."
            )
        return (
            f"{player}, wait for your turn: it is {state.turn}'s. When someone yells bim bam bum, "
            "slap or say ship, fast. You can also say repeat, score, table, my card, slower, "
            "faster, pause or quit."
        )

    def phrases(self) -> list[str]:
        commands = sorted(COMMAND_PHRASES)
        state = self.state
        if state is None and self.first is None:
            return [CALL, *commands]
        if state is None:
            return [*(f"{pile} {yell}" for pile in PILE_WORDS for yell in YELLS), *commands]
        if state.phase is bb.Phase.SLAP:
            return [*sorted(SLAP_PHRASES), *commands]
        plays = [f"{pile} {yell}" for pile in PILE_WORDS for yell in YELLS]
        return [*plays, *PILE_WORDS, *YELLS, *sorted(SLAP_PHRASES), *LEAVING_PHRASES, *commands]

    def not_heard_from(self, player: str) -> frozenset[str]:
        """During a turn no microphone listens for a pile number alone: it is no play (the host
        could only ask for the yell), and "tree" in talk sounds just like "three" (held out, real
        talk: 22 of 37 words taken in 13 minutes). A yell alone means something only from the
        player whose turn it is (the host asks which pile; from anyone else it could only say
        "it is Anna's turn"), so the others' microphones do not listen for it either. A whole play
        out of turn (the rulebook's mistake), a slap and the commands stay heard; typed lines keep
        the whole grammar."""
        state = self.state
        if state is None or state.phase is not bb.Phase.PLAY:
            return frozenset()
        return PILE_ALONE if player == state.turn else ALONE_WORDS

    def likely(self) -> list[str]:
        """On a turn, the yells of the card the host named (its word once, twice or thrice, with or
        without a pile), and "BIM BAM BUM!" on a pile where that card completes the three words;
        nothing in a slap race or before the deal."""
        state = self.state
        if state is None or state.phase is not bb.Phase.PLAY:
            return []
        card = state.top(state.turn)
        if card is None:
            return []
        yells = [" ".join([card.value] * n) for n in (1, 2, 3)]
        out = [*yells, *(f"{pile} {yell}" for pile in PILE_WORDS for yell in yells)]
        for i, pile in enumerate(PILE_WORDS):
            after = [card if j == i else top for j, top in enumerate(state.visible)]
            if set(after) == set(bb.Card):
                out += [CALL, f"{pile} {CALL}"]
        return list(dict.fromkeys(out))

    def _silent_at(self) -> float:
        """Session time when the table speaker has said everything queued (never before now)."""
        return max(self.now(), round(self.host.mouth.silent_at(), 6))

    def _state(self) -> bb.State:
        assert self.state is not None, "the cards have not been dealt"
        return self.state


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Bim Bam Bum!'s own ``play`` options."""
    from voicehost.host.options import SLAP_WINDOW, TIME_WINDOW, seconds_type, whole_type

    window = parser.add_mutually_exclusive_group()
    window.add_argument(
        "--window",
        type=seconds_type(TIME_WINDOW),
        metavar="S",
        help="seconds a player has to play, counted from when the host has named their card (default 3)",
    )
    window.add_argument(
        "--no-window", action="store_true", help="no time limit: a slow player gets a reminder instead of a mistake"
    )
    parser.add_argument(
        "--slap-window",
        type=seconds_type(SLAP_WINDOW),
        metavar="S",
        help="seconds after a BIM BAM BUM! in which slaps count (default 2)",
    )
    parser.add_argument("--first", metavar="NAME", help="who starts (default: whoever shouts BIM BAM BUM! loudest)")
    parser.add_argument(
        "--quick",
        type=whole_type(1, 1000),
        metavar="N",
        help="a quick game: deal N cards to each player instead of the full deal",
    )


def options_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The settings those options ask for."""
    options: dict[str, Any] = {}
    if args.no_window:
        options["window"] = None
    elif args.window is not None:
        options["window"] = args.window
    if args.slap_window is not None:
        options["slap_window"] = args.slap_window
    if args.first is not None:
        options["first_player"] = args.first
    if args.quick is not None:
        options["quick"] = args.quick
    return options


def make_flow(host: Host, seed: int, options: dict[str, Any]) -> BimBamBumFlow:
    """The flow for ``voicehost play bimbambum``; ``--first`` is matched ignoring case."""
    first = options.get("first_player")
    if first is not None:
        matches = [p for p in host.players if p.lower() == str(first).strip().lower()]
        if not matches:
            raise bb.SetupError(f"--first {first}: nobody of that name is at the table ({', '.join(host.players)})")
        options = {**options, "first_player": matches[0]}
    quick = options.get("quick")
    full = bb.CARDS_PER_PLAYER.get(len(host.players))
    if quick is not None and full is not None and not 1 <= int(quick) <= full:
        raise bb.SetupError(f"--quick {quick}: deal 1 to {full} cards each to {len(host.players)} players")
    return BimBamBumFlow(host, seed, BimBamBumSettings(**options))
