"""Bim Bamm! by voice.

The host announces each turn; the player says "flip seven" (or just "seven"), "swap", or
"exchange". It says what the tile now shows. When five tiles show one animal, the race
opens (earcon) once the host has finished speaking, and stays open for the race window; every
shout heard in it goes to the rules in one ResolveRace, ranked by onset. The host announces the
scorer and any mistakes, asks the scorer for two tiles to turn, and goes on until 3 points.

Whom to exchange with: the recognisers never listen for player names (PocketSphinx and Vosk stop
on a name outside their dictionaries, such as "Cem"). "exchange" makes the host read the other
players out, numbered clockwise from the player's left ("One: Cem, on your left. Two: Dan. Three:
Anna, on your right."), and the player answers with the number, "my left" or "my right" (or
"cancel"); "exchange with the player on my left" (or right) does it in one go, and with two players
"exchange" needs no answer. Typed lines may name the player: "exchange with Cem".

A player who leaves: after ``reminders`` unanswered reminders the host asks the table about the
player it waits for ("Ben has not answered. Skip Ben? Say yes or no."); "a player has left" asks
the same at once, and typed lines may name the player ("skip Ben", "Ben has left", "drop Ben"). A yes
is the rules' ``Leave`` (docs/rules.md): Ben's card and won cards go under the pile and the turn
skips him. Anything Ben says shows he is still here and drops the question. Not during a race: the
host asks to say it again when the race is over.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any, Sequence

from voicehost.host.options import Check, Choice, Flag, LONG_WAIT, RACE_WINDOW, Seconds, Text, Whole
from voicehost.host.session import Flow, Host
from voicehost.host.speech_text import count, join
from voicehost.host.words import (
    LEAVING_PHRASES,
    NO_PHRASES,
    YES_PHRASES,
    Command,
    Heard,
    leaving_phrases,
    normalise,
    number,
    number_phrase,
    numbers_in,
)
from voicehost.rules import bimbamm as bb
from voicehost.host.flows import bimbamm_texts as texts
from voicehost.rules.base import Event, IllegalAction, JsonObject
from voicehost.speak.earcons import Earcon

HELP = "Bim Bamm!: flip animal tiles; when five show one animal, its holders race to shout it"

OPTIONS: dict[str, Check] = {
    "race_window": RACE_WINDOW,
    "remind_after": LONG_WAIT,
    "reminders": Whole(0, 10),
    "first_player": Text(),
    "variant2p": Flag(),
    "cards": Choice(("auto", "dealt", "table")),
    "cat_wait": LONG_WAIT,
    "verify_window": Seconds(0.0, 60.0),
}
"""Every option of :class:`BimBammSettings`, with what it accepts (checked by
:func:`voicehost.host.options.check_options` wherever options come from)."""

RACE_TIMER = "race"
REMIND_TIMER = "remind"
CAT_TIMER = "cat holder"
VERIFY_TIMER = "verify"
CHALLENGE_WORDS = frozenset({"challenge", "objection", "liar"})
ME_WORDS = ("me", "i do", "i have", "i have the cat", "cat", "i hold the cat", "here")
ANIMAL_WORDS = {a.value: a for a in bb.Animal}
SPECIAL_WORDS = ("swap", "exchange", "special", "use the special tile")
"""Use the special tile: SWAP at once; EXCHANGE asks whom (see the module doc)."""
LEFT_WORDS = ("my left", "on my left", "the player on my left", "exchange with the player on my left")
"""The exchange partner on the player's left (the next seat clockwise)."""
RIGHT_WORDS = ("my right", "on my right", "the player on my right", "exchange with the player on my right")
"""The exchange partner on the player's right (the seat before, clockwise)."""
CANCEL_WORDS = ("cancel", "never mind")
"""Back out of choosing an exchange partner (nothing was done yet)."""
PLURAL = texts.PLURAL


@dataclass(frozen=True)
class BimBammSettings:
    """How the host runs Bim Bamm!."""

    race_window: float = 2.5
    """Seconds the race stays open after the host has finished speaking."""
    remind_after: float = 20.0
    """Seconds without an answer before the host reminds the player to act."""
    reminders: int = 2
    """Reminders for one prompt before the host asks the table whether to skip the player."""
    first_player: str | None = None
    """Who starts when nobody holds the cat (default: a seeded random choice)."""
    variant2p: bool | None = None
    """The 2-player rule: None plays it exactly with 2 players; False switches it off."""
    cards: str = "auto"
    """'dealt' (the host deals privately), 'table' (players hold physical cards; the host trusts
    declarations) or 'auto' (table cards exactly when some player has no private output)."""
    cat_wait: float = 12.0
    """Table cards: seconds to wait for the cat holder to say "me" before the first seat starts."""
    verify_window: float = 5.0
    """Table cards: seconds the table has to say "challenge" when a would-be winner shows the card."""


class BimBammFlow(Flow):
    """The host's side of Bim Bamm!."""

    game = "bimbamm"

    def __init__(self, host: Host, seed: int, settings: BimBammSettings = BimBammSettings()) -> None:
        super().__init__(host)
        self.seed = seed
        self.settings = settings
        self.state: bb.State | None = None
        self.race_calls: list[bb.Call] = []
        self.race_opened_at = 0.0
        self.first_tile: dict[str, int] = {}
        """A scorer's first tile while they name the second."""
        self.reminders = 0
        self.table_cards = False
        self.waiting_for_cat = False
        self.refuted: list[bb.Refuted] = []
        """Table cards: claims the table has rejected while the host verified a would-be winner."""
        self.verifying: bb.Call | bb.Claim | None = None
        """Table cards: the would-be winner asked to show their card; the table may say challenge."""
        self.pending_challenge = False
        """Table cards: the verification belongs to a challenge of the scorer (not to a race)."""
        self.choosing: str | None = None
        """The turn player who said "exchange" and is choosing whom to exchange with."""
        self.asking: str | None = None
        """The player the host asks the table whether to skip (they do not answer)."""

    # ---- life cycle -----------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.state is not None and self.state.over

    @property
    def started(self) -> bool:
        """False while the host waits for the cat holder (table cards)."""
        return self.state is not None

    def start(self) -> None:
        mode = self.settings.cards
        self.table_cards = mode == "table" or (mode == "auto" and not self.host.mouth.private_outputs)
        if self.table_cards:
            self.waiting_for_cat = True
            self.say(
                "Welcome to Bim Bamm! We play with your own cards: shuffle the fifteen animal cards, "
                "deal one to each player, face down, and put the rest in a pile. "
                "Whoever holds a cat, say me."
            )
            self.host.timers.start(CAT_TIMER, self.host.mouth.silent_at() + self.settings.cat_wait)
            return
        players = self.host.players
        first = self.settings.first_player or players[self.host.rng.randrange(len(players))]
        self._begin(first)

    def _begin(self, first: str) -> None:
        """Set up the game (the setup event) and make the opening announcements."""
        self.waiting_for_cat = False
        self.host.timers.cancel(CAT_TIMER)
        state, events = bb.new_game(
            self.host.players,
            self.host.rng,
            self.seed,
            first_player=first,
            variant2p=self.settings.variant2p,
            t=self.now(),
            cards="table" if self.table_cards else "dealt",
        )
        self.state = state
        self.host.record(events)
        self._welcome()
        self._announce_turn(first_time=True)

    def resume(self, events: Sequence[JsonObject]) -> None:
        state = bb.replay(events)
        self.table_cards = state.cards is bb.Cards.TABLE
        self.host.load(bb.GAME, events)
        state, new = bb.resume(state, max(self.now(), state.last_t))
        self.state = state
        self.host.record(new)
        self.say(f"Welcome back to Bim Bamm! {self.score_text()}")
        self.say(self._counts_text())
        self._after_events([])

    def quit(self, player: str | None) -> None:
        if self.state is None:
            self._begin(self.settings.first_player or self.host.players[0])
        self._apply(bb.Quit(player=player, t=self.now()))

    # ---- what players say -----------------------------------------------------------------

    def on_heard(self, heard: Heard) -> None:
        if self.state is None:
            if heard.phrase in ME_WORDS:
                self.say(f"{heard.player} holds the cat.")
                self._begin(heard.player)
            else:
                self.say("Whoever holds a cat, say me.")
            return
        state = self._state()
        if self.asking == heard.player:  # the player the table is asked about spoke: still here
            self._still_here(heard.player, silent=heard.phrase not in YES_PHRASES + NO_PHRASES)
            if heard.phrase in YES_PHRASES + NO_PHRASES:
                return
        if self._leaving_said(heard):
            return
        if heard.player in state.gone:
            if state.phase is not bb.Phase.RACE:
                self.say(f"{heard.player}, you have left this game.")
            return
        words = heard.phrase.split()
        if self.table_cards and CHALLENGE_WORDS & set(words):
            self._challenge_said(heard)
            return
        animal = next((ANIMAL_WORDS[w] for w in words if w in ANIMAL_WORDS), None)
        if state.phase is bb.Phase.RACE:
            if animal is not None:
                self.race_calls.append(bb.Call(heard.player, animal, heard.onset))
            return
        if animal is not None:
            self._apply(bb.Shout(heard.player, animal, heard.onset, t=self.now()))
            return
        if state.phase is bb.Phase.SCORER:
            self._scorer_says(heard)
        elif state.phase is bb.Phase.TURN:
            self._turn_says(heard)

    # ---- players who leave ----------------------------------------------------------------

    def _leaving_said(self, heard: Heard) -> bool:
        """ "a player has left", a typed "skip Ben", or the table's yes/no to "Skip Ben?"; False if
        ``heard`` is none of them."""
        phrase = heard.phrase
        named = self._named_leaver(phrase)
        answer = self.asking is not None and phrase in YES_PHRASES + NO_PHRASES
        if named is None and phrase not in LEAVING_PHRASES and not answer:
            return False
        if self._racing():
            self.say(f"{heard.player}, first the race: say it again when it is over.")
        elif named is not None:
            self._leave(named)
        elif phrase in LEAVING_PHRASES:
            self._ask_skip(self._awaited(), "")
        elif self.asking is not None and phrase in YES_PHRASES:
            self._leave(self.asking)
        elif self.asking is not None:
            self.say(f"We wait for {self.asking}.")
            self._still_here(self.asking, silent=True)
        return True

    def _named_leaver(self, phrase: str) -> str | None:
        """The player a typed "skip Ben" / "Ben has left" / "drop Ben" is about, if it is one."""
        return next((p for p in self._state().players if phrase in leaving_phrases(p)), None)

    def _racing(self) -> bool:
        """A race window is open, or the host is verifying a would-be winner's card."""
        return self._state().phase is bb.Phase.RACE or self.verifying is not None

    def _awaited(self) -> list[str]:
        """The player the game waits for: the turn player or the scorer (nobody during a race)."""
        state = self._state()
        return [state.to_act] if state.to_act is not None and not self._racing() else []

    def _ask_skip(self, players: list[str], why: str) -> None:
        """Ask the table whether to skip the awaited player (they would leave the game)."""
        if not players:
            self.asking = None
            self.say(
                "Nobody is keeping the game waiting. If a player has left, I ask about them when it is their turn."
            )
            return
        self.asking = players[0]
        self.say(f"{why}Skip {players[0]}? Say yes or no.")
        self._arm_reminder()

    def _still_here(self, player: str, *, silent: bool) -> None:
        """No skipping ``player``: the reminders start again."""
        self.asking = None
        self.reminders = 0
        if not silent:
            self.say(f"{player} is here: we wait for {player}.")
        self._arm_reminder()

    def _leave(self, player: str) -> None:
        """``player`` leaves the game (the rules' Leave)."""
        self.asking = None
        self.first_tile.pop(player, None)
        self._apply(bb.Leave(player, t=self.now()))

    # ---- turns ----------------------------------------------------------------------------

    def _turn_says(self, heard: Heard) -> None:
        state = self._state()
        player, phrase = heard.player, heard.phrase
        if player != state.turn:
            self.say(f"{player}, it is {state.turn}'s turn.")
            return
        if self.choosing == player and self._choosing_says(player, phrase):
            return
        numbers = [n for n in numbers_in(phrase) if 1 <= n <= 15]
        if phrase in SPECIAL_WORDS:
            self._use_special(player)
        elif phrase in LEFT_WORDS + RIGHT_WORDS or phrase.startswith("exchange with "):
            partner = self._partner(player, phrase)
            if state.special is not bb.Special.EXCHANGE:
                self.say(f"{player}, the special tile shows swap: say swap, or flip a tile.")
            elif partner is not None:
                self._exchange(player, partner)
            else:
                self._use_special(player)
        elif numbers:
            self.choosing = None
            self._apply(bb.Flip(player, numbers[0] - 1, t=self.now()))
        else:
            self.say(f"Sorry {player}. {self.help_text(player)}")

    def _choosing_says(self, player: str, phrase: str) -> bool:
        """The answer to "exchange with whom?"; False if ``phrase`` is no answer (a flip, "swap" …)."""
        partners = self._partners(player)
        said = number(phrase)
        if phrase in CANCEL_WORDS:
            self.choosing = None
            self.say(f"{player}, flip a tile or use the special tile.")
        elif said is not None and 1 <= said <= len(partners):
            self._exchange(player, partners[said - 1])
        elif said is not None:
            self.say(
                f"{player}, you are choosing whom to exchange with: say a number from one to "
                f"{number_phrase(len(partners))}, or cancel. To flip a tile, say flip and its number."
            )
        elif (partner := self._partner(player, phrase)) is not None:
            self._exchange(player, partner)
        else:
            return False
        return True

    def _use_special(self, player: str) -> None:
        """SWAP at once; EXCHANGE with the only other player, or ask whom."""
        state = self._state()
        partners = self._partners(player)
        if state.special is bb.Special.SWAP:
            self._apply(bb.UseSpecial(player, t=self.now()))
        elif len(partners) == 1:
            self._exchange(player, partners[0])
        else:
            self.choosing = player
            self.say(self._partner_question(player))

    def _exchange(self, player: str, partner: str) -> None:
        self.choosing = None
        self._apply(bb.UseSpecial(player, partner, t=self.now()))

    def _partners(self, player: str) -> list[str]:
        """The other players still in the game, clockwise from ``player``'s left (the last one sits
        on their right)."""
        state = self._state()
        players = list(state.players)
        seat = players.index(player)
        return [p for p in players[seat + 1 :] + players[:seat] if p not in state.gone]

    def _partner(self, player: str, phrase: str) -> str | None:
        """The partner a phrase names: left or right, or (typed lines) a name, with or without
        "exchange with"; None if it names nobody."""
        partners = self._partners(player)
        if phrase in LEFT_WORDS:
            return partners[0]
        if phrase in RIGHT_WORDS:
            return partners[-1]
        name = phrase.removeprefix("exchange with ")
        return next((p for p in partners if normalise(p) == name), None)

    def _partner_question(self, player: str) -> str:
        """ "Ben, exchange with whom? One: Cem, on your left. Two: Anna, on your right. Say the number."."""
        partners = self._partners(player)
        listed = [
            f"{number_phrase(i + 1).capitalize()}: {p}{', on your left' if i == 0 else ''}"
            f"{', on your right' if i == len(partners) - 1 else ''}."
            for i, p in enumerate(partners)
        ]
        return f"{player}, exchange with whom? {' '.join(listed)} Say the number."

    def _scorer_says(self, heard: Heard) -> None:
        state = self._state()
        if heard.player != state.scorer:
            return
        numbers = [n - 1 for n in numbers_in(heard.phrase) if 1 <= n <= 15]
        pending = self.first_tile.pop(heard.player, None)
        if pending is not None:
            numbers = [pending, *numbers]
        wrong = [n for n in numbers[:2] if state.tiles[n].showing is not state.scored]
        if wrong:
            right = [n for n in numbers[:2] if n not in wrong]
            if right:
                self.first_tile[heard.player] = right[0]
            self.say(self._wrong_tile_text(heard.player, wrong[0], right[0] if right else None))
        elif len(numbers) >= 2 and numbers[0] == numbers[1]:
            self.first_tile[heard.player] = numbers[0]
            self.say(f"{heard.player}, you chose tile {number_phrase(numbers[0] + 1)} already: say another.")
        elif len(numbers) >= 2:
            self._apply(bb.ScorerFlips(heard.player, (numbers[0], numbers[1]), t=self.now()))
        elif len(numbers) == 1:
            self.first_tile[heard.player] = numbers[0]
            self.say(f"Tile {number_phrase(numbers[0] + 1)}. And the second?")
        else:
            self.say(self._scorer_prompt())

    def _wrong_tile_text(self, player: str, tile: int, kept: int | None) -> str:
        """A scorer named a tile that does not show the scored animal (numbers as players say them)."""
        state = self._state()
        animal = state.scored.value if state.scored else "animal"
        text = f"{player}, tile {number_phrase(tile + 1)} shows a {state.tiles[tile].showing.value}, not a {animal}."
        if kept is not None:
            return f"{text} Tile {number_phrase(kept + 1)} counts: say the second."
        return f"{text} {self._scorer_prompt()}"

    # ---- timers ---------------------------------------------------------------------------

    def on_timer(self, name: str) -> None:
        if name == CAT_TIMER and self.state is None:
            first = self.settings.first_player or self.host.players[0]
            self.say(f"Nobody said me, so {first} begins.")
            self._begin(first)
            return
        state = self._state()
        if name == VERIFY_TIMER and self.verifying is not None:
            self.say(f"No challenge: {self.verifying.player} holds the {self.verifying.animal.value}.")
            self.verifying = None
            self._finish_pending()
        elif name == RACE_TIMER and state.phase is bb.Phase.RACE:
            self._close_race()
        elif name == REMIND_TIMER and self.asking is not None and not state.over:
            self.say(f"Skip {self.asking}? Say yes or no.")
            self._arm_reminder()
        elif name == REMIND_TIMER and self._awaited() and self.reminders >= self.settings.reminders:
            late = self._awaited()
            self._ask_skip(late, f"{late[0]} has not answered. ")
        elif name == REMIND_TIMER and state.to_act is not None and self.reminders < self.settings.reminders:
            self.reminders += 1
            player = state.to_act
            if state.phase is bb.Phase.SCORER:
                prompt = self._scorer_prompt()
            elif self.choosing == player:
                prompt = self._partner_question(player)
            else:
                prompt = f"{player}, it is your turn: flip a tile, or use the special tile."
            self.say(prompt)
            self.host.mouth.earcon(Earcon.YOUR_TURN, to=self._private_or_none(player))
            self._arm_reminder()

    # ---- races and table-card declarations ------------------------------------------------

    def _close_race(self) -> None:
        """Resolve the race; with table cards, a would-be winner shows the card first."""
        state = self._state()
        calls = tuple(sorted(self.race_calls, key=lambda c: c.onset))
        if self.table_cards:
            winner = bb.would_score(state, calls, self.refuted)
            if winner is not None and state.score(winner.player) == bb.WINNING_POINTS - 1:
                self._verify(winner)
                return
        self.race_calls = []
        refuted, self.refuted = tuple(self.refuted), []
        action = bb.ResolveRace(calls, refuted, t=self.now())
        try:
            _, trial = bb.apply(state, action)  # pure: learn whether someone scores, to say it first
        except IllegalAction:
            trial = []
        if not any(isinstance(e, bb.PointEvent) for e in trial):
            raced = join([a.value for a in state.race], "and")
            self.say(f"The race for the {raced} is over: nobody scored.")
        self._apply(action)

    def _verify(self, claim: bb.Call | bb.Claim) -> None:
        """Ask a would-be winner to show the card; the table may say challenge."""
        self.verifying = claim
        self.say(
            f"{claim.player}, that is your third point: show your card! "
            f"If it is not the {claim.animal.value}, say challenge."
        )
        self.host.timers.start(VERIFY_TIMER, self.host.mouth.silent_at() + self.settings.verify_window)

    def _challenge_said(self, heard: Heard) -> None:
        state = self._state()
        if self.verifying is not None:
            if heard.player == self.verifying.player:
                return
            self.host.timers.cancel(VERIFY_TIMER)
            self.say(f"Challenge! {self.verifying.player} does not hold the {self.verifying.animal.value}.")
            self.refuted.append(bb.Refuted(self.verifying.player, self.verifying.animal))
            self.verifying = None
            if self.pending_challenge:
                self._challenge_scorer()
            else:
                self._close_race()
        elif state.phase is bb.Phase.SCORER and heard.player != state.scorer:
            self._challenge_scorer()
        else:
            self.say(f"{heard.player}, there is nothing to challenge now.")

    def _challenge_scorer(self) -> None:
        """The table says the scorer does not hold the card; the next claim may need showing too."""
        state = self._state()
        nxt = bb.next_claim(state, self.refuted)
        if nxt is not None and state.score(nxt.player) == bb.WINNING_POINTS - 1:
            self.pending_challenge = True
            self._verify(nxt)
            return
        self.pending_challenge = False
        refuted, self.refuted = tuple(self.refuted), []
        assert state.scorer is not None
        self._apply(bb.Challenge(state.scorer, refuted, t=self.now()))

    def _finish_pending(self) -> None:
        """The would-be winner showed the card unchallenged: carry on with what was waiting."""
        if self.pending_challenge:
            self.pending_challenge = False
            state = self._state()
            refuted, self.refuted = tuple(self.refuted), []
            assert state.scorer is not None
            self._apply(bb.Challenge(state.scorer, refuted, t=self.now()))
        else:
            state = self._state()
            calls = tuple(sorted(self.race_calls, key=lambda c: c.onset))
            self.race_calls = []
            refuted, self.refuted = tuple(self.refuted), []
            if state.phase is bb.Phase.RACE:
                self._apply(bb.ResolveRace(calls, refuted, t=self.now()))

    # ---- applying actions and announcing --------------------------------------------------

    def _apply(self, action: bb.Action) -> None:
        state = self._state()
        try:
            new, events = bb.apply(state, action)
        except IllegalAction as error:
            self.say(self._explain(error, action))
            return
        self.state = new
        self.host.mouth.barge_in_next()
        self._after_events(self.host.record(events), state)

    def _after_events(self, events: list[Event], before: bb.State | None = None) -> None:
        """Announce what the rules did and wait for the next speaker (``before``: the state the
        action was applied to)."""
        state = self._state()
        for ev in events:
            if isinstance(ev, bb.LeftEvent):
                self._announce_left(ev, before or state)
            else:
                self._announce(ev)
        self.host.timers.cancel(REMIND_TIMER)
        if events:
            self.reminders = 0
        if state.phase is not bb.Phase.TURN or state.turn != self.choosing:
            self.choosing = None
        if self.asking is not None and self.asking not in self._awaited():
            self.asking = None  # the game waits for someone else now
        if state.over:
            self.host.timers.cancel(RACE_TIMER)
            return
        if state.phase is bb.Phase.RACE:
            if not self.host.timers.running(RACE_TIMER):
                self._open_race()
            return
        if state.phase is bb.Phase.SCORER:
            self.say(self._scorer_prompt())
        elif any(isinstance(e, bb.TurnEvent) for e in events) or not events:
            self._announce_turn()
        self._arm_reminder()

    def _announce(self, ev: Event) -> None:
        if isinstance(ev, bb.FlipEvent):
            self.say(texts.flipped(ev))
        elif isinstance(ev, bb.PointEvent):
            self._announce_point(ev)
        elif isinstance(ev, bb.MistakeEvent):
            self._announce_mistake(ev)
        elif isinstance(ev, bb.SwapEvent):
            self.say(texts.swapped(ev, self.table_cards))
            self._tell_card(ev.player, ev.drew)
        elif isinstance(ev, bb.ExchangeEvent):
            self.say(texts.exchanged(ev, self.table_cards))
            self._tell_card(ev.player, ev.got)
            self._tell_card(ev.with_, ev.gave)
        elif isinstance(ev, bb.ChallengeEvent):
            self.say(texts.challenged(ev))
        elif isinstance(ev, bb.GameOverEvent):
            self._announce_end(ev)

    def _open_race(self) -> None:
        """The race opens once the host has finished speaking; the earcon marks it."""
        self.host.mouth.earcon(Earcon.RACE_OPEN)
        self.race_opened_at = self.host.mouth.silent_at()
        self.host.timers.start(RACE_TIMER, self.race_opened_at + self.settings.race_window)

    def _announce_point(self, ev: bb.PointEvent) -> None:
        self.host.mouth.earcon(Earcon.POINT)
        self.say(texts.scored(ev))
        if ev.points >= bb.WINNING_POINTS:
            return
        if self.table_cards:
            self.say(texts.show_card(ev))
        else:
            self._tell_card(ev.player, ev.drew, new=True)

    def _announce_mistake(self, ev: bb.MistakeEvent) -> None:
        shout = self.host.events[ev.shout] if 0 <= ev.shout < len(self.host.events) else None
        animal = shout.animal if isinstance(shout, bb.ShoutEvent) else None
        self.host.mouth.earcon(Earcon.MISTAKE)
        self.say(texts.mistake(ev, animal))

    def _announce_left(self, ev: bb.LeftEvent, before: bb.State) -> None:
        """Where the leaver's cards go (the won ones are public; the held one stays secret), and a
        scorer's point that leaves with them."""
        player, state = ev.player, self._state()
        won = f"the {join([a.value for a in ev.won])} {player} won" if ev.won else ""
        if self.table_cards:
            text = f"put {player}'s card under the pile{', then ' + won if won else ''}."
        elif ev.card is None and not won:
            text = f"{player} held no card and had no points."
        else:
            held = f"{player}'s card" if ev.card is not None else ""
            text = f"{join([x for x in (held, won) if x])} {'go' if held and won else 'goes'} under the pile."
        text = f"{player} has left the game: {text}"
        if before.phase is bb.Phase.SCORER and before.scorer == player and before.scored is not None:
            text += f" The point for the {before.scored.value} leaves with {player}: nobody turns tiles."
        if not state.over:
            text += f" Still playing: {join(list(state.active))}."
        self.say(text)

    def _announce_end(self, ev: bb.GameOverEvent) -> None:
        winner = ev.winner
        if winner:
            self.say(f"{winner} wins Bim Bamm with three points! {self.score_text()}")
        elif ev.reason == bb.EndReason.TOO_FEW_PLAYERS:
            left = list(self._state().active)
            self.say(
                f"Only {join(left)} {'is' if len(left) == 1 else 'are'} left, and Bim Bamm! needs at least "
                f"two players: the game ends here. {self.score_text()}"
            )
        else:
            self.say(f"The game is over. {self.score_text()}")

    def _announce_turn(self, first_time: bool = False) -> None:
        state = self._state()
        if state.phase is not bb.Phase.TURN:
            return
        player = state.turn
        if first_time:
            self.say(f"{player} begins. {player}, flip a tile: say a number from one to fifteen, or say swap.")
        else:
            self.say(f"{player}.")
        self.host.mouth.earcon(Earcon.YOUR_TURN, to=self._private_or_none(player))

    def _welcome(self) -> None:
        state = self._state()
        hello = "" if self.table_cards else "Welcome to Bim Bamm! "
        self.say(
            f"{hello}Players, clockwise: {join(list(state.players))}. "
            "Fifteen tiles, numbered one to fifteen, lie white side up. "
            f"{self._counts_text()} When five tiles show the same animal and you hold that animal's card, "
            "shout its name! First to three points wins."
        )
        for player in state.players:
            self._tell_card(player, state.hand(player))

    def _tell_card(self, player: str, animal: str | None, *, new: bool = False) -> None:
        """Tell one player their card, privately; never at the table (nor with table cards)."""
        if self.table_cards or not self.host.mouth.private_outputs:
            return
        if animal is None:
            self.say(f"{player}, you hold no card for now: the pile is empty.", to=player)
        else:
            self.say(f"{player}, your {'new ' if new else ''}card is the {animal}.", to=player)

    def _private_or_none(self, player: str) -> str | None:
        return player if self.host.mouth.private_outputs else None

    def _arm_reminder(self) -> None:
        self.host.timers.start(REMIND_TIMER, self.host.mouth.silent_at() + self.settings.remind_after)

    # ---- texts ----------------------------------------------------------------------------

    def _counts_text(self) -> str:
        counts = self._state().counts()
        return "Showing: " + join([count(n, a.value, PLURAL[a.value]) for a, n in counts.items() if n]) + "."

    def _scorer_prompt(self) -> str:
        state = self._state()
        animal = state.scored.value if state.scored else "animal"
        tiles = [number_phrase(i + 1) for i, t in enumerate(state.tiles) if t.showing is state.scored]
        return f"{state.scorer}, turn over two {animal} tiles: say two of {join(tiles, 'or')}."

    def score_text(self) -> str:
        if self.state is None:
            return "The game has not started yet."
        state = self._state()
        return (
            "Points: "
            + join(
                [f"{p} {n}{' (left the game)' if p in state.gone else ''}" for p, n in state.points_by_name().items()]
            )
            + "."
        )

    def help_text(self, player: str) -> str:
        if self.state is None:
            return "Whoever holds a cat, say me."
        state = self._state()
        if player in state.gone:
            return "You have left this game. You can say score or repeat."
        if self.asking is not None:
            return f"I am asking the table whether to skip {self.asking}: say yes or no."
        if state.phase is bb.Phase.SCORER and player == state.scorer:
            return self._scorer_prompt()
        if state.phase is bb.Phase.TURN and player == state.turn and self.choosing == player:
            return (
                f"{self._partner_question(player)} Or say my left, my right, or cancel. "
                "To flip a tile instead, say flip and its number."
            )
        if state.phase is bb.Phase.TURN and player == state.turn:
            special = (
                "swap"
                if state.special is bb.Special.SWAP
                else "exchange, and then whom; or exchange with the player on my left, or on my right"
            )
            return f"Say a tile number from one to fifteen to flip it, or {special}."
        if state.phase is bb.Phase.RACE:
            return "Shout the animal if you hold its card."
        return (
            "Wait for your turn; shout an animal when five show and you hold its card. "
            "You can also say repeat, score, tiles, my card, slower, faster, pause or quit."
        )

    def glance_text(self) -> str | None:
        """How many of each animal show (the quick answer to "what's on the table")."""
        if self.state is None:
            return "No tile is turned yet."
        return self._counts_text()

    def turn_text(self, player: str) -> str | None:
        if self.state is None:
            return "The game starts when the cat holder says me."
        state = self._state()
        if state.over:
            return "The game is over."
        if state.phase is bb.Phase.RACE:
            return "A race is open: shout the animal if you hold its card."
        if state.phase is bb.Phase.SCORER:
            return (
                "It is your turn to turn over two tiles."
                if player == state.scorer
                else f"{state.scorer} is turning over two tiles."
            )
        return f"It is your turn, {player}." if player == state.turn else f"It is {state.turn}'s turn."

    def read_text(self, player: str, n: int) -> tuple[str, bool] | None:
        """ "read tile N": what tile N shows, at the table."""
        if self.state is None:
            return None
        if not 1 <= n <= len(self._state().tiles):
            return f"{player}, the tiles are numbered one to fifteen.", False
        return f"Tile {number_phrase(n)} shows a {self._state().tiles[n - 1].showing.value}.", False

    def table_text(self) -> str | None:
        if self.state is None:
            return None
        state = self._state()
        tiles = [f"{number_phrase(i + 1)} {t.showing.value}" for i, t in enumerate(state.tiles)]
        return f"Tiles: {join(tiles)}. The special tile shows {state.special.value}."

    def private_text(self, player: str, what: Command) -> str | None:
        if self.table_cards or self.state is None:
            return None
        state = self._state()
        held = state.hand(player)
        return f"{player}, your card is the {held.value}." if held else f"{player}, you hold no card."

    def phrases(self) -> list[str]:
        animals = [a.value for a in bb.Animal]
        if self.state is None:
            return list(dict.fromkeys([*ME_WORDS, *animals]))
        state = self._state()
        if state.over:
            return []
        extra = [
            *(sorted(CHALLENGE_WORDS) if self.table_cards else []),
            *LEAVING_PHRASES,
            *(YES_PHRASES + NO_PHRASES if self.asking is not None else ()),
        ]
        if state.phase is bb.Phase.RACE:
            return [*animals, *extra]
        if state.phase is bb.Phase.SCORER:
            tiles = [number_phrase(i + 1) for i, t in enumerate(state.tiles) if t.showing is state.scored]
            pairs = [f"{a} and {b}" for a in tiles for b in tiles if a != b]
            return [
                *animals,
                *extra,
                *tiles,
                *pairs,
                *(f"flip {t}" for t in tiles),
                *(f"flip {pair}" for pair in pairs),
            ]
        numbers = [number_phrase(n) for n in range(1, 16)]
        flips = [*(f"flip {n}" for n in numbers), *(f"flip tile {n}" for n in numbers)]
        if state.special is bb.Special.SWAP:
            return [*animals, *extra, *numbers, *flips, *SPECIAL_WORDS]
        neighbours = [LEFT_WORDS[-1], RIGHT_WORDS[-1]]
        if self.choosing == state.turn:
            neighbours = [*LEFT_WORDS, *RIGHT_WORDS, *CANCEL_WORDS]
        return [*animals, *extra, *numbers, *flips, *SPECIAL_WORDS, *neighbours]

    def accepts(self, phrase: str) -> bool:
        """A phrase of the moment, a typed "skip Ben" / "Ben has left" / "drop Ben", or a typed
        exchange partner's name ("exchange with Cem"; "Cem" while choosing): names are never in
        :meth:`phrases`, since a name outside a recogniser's dictionary would stop it."""
        if phrase in self.phrases():
            return True
        state = self.state
        if state is None or state.over:
            return False
        if self._named_leaver(phrase) is not None:
            return True
        if state.phase is not bb.Phase.TURN:
            return False
        if phrase.startswith("exchange with "):
            return self._partner(state.turn, phrase) is not None
        return self.choosing == state.turn and self._partner(state.turn, phrase) is not None

    def not_heard_from(self, player: str) -> frozenset[str]:
        """A tile number, a flip, the special tile or a neighbour means something only from the
        player who must act (the turn's player, or the scorer choosing tiles): the others'
        microphones do not listen for them then, so "tree" or "won" in their talk is not taken for
        a tile. Animals (a shout), a challenge, the leaving phrases and yes/no stay heard."""
        state = self.state
        owner = state.to_act if state is not None and not state.over else None
        if owner is None or player == owner:
            return frozenset()
        everyone = {*(a.value for a in bb.Animal), *CHALLENGE_WORDS, *LEAVING_PHRASES, *YES_PHRASES, *NO_PHRASES}
        return frozenset(p for p in self.phrases() if p not in everyone)

    def likely(self) -> list[str]:
        """While a race is open, the animal(s) showing five times: the shout the rules expect."""
        if self.state is None or self.state.phase is not bb.Phase.RACE:
            return []
        return [a.value for a in self.state.race]

    def racing(self) -> list[str]:
        """While a race is open, every animal: a player who shouts one just after another player
        most likely shouts too, the racing animal or, by mistake, their own."""
        if self.state is None or self.state.phase is not bb.Phase.RACE:
            return []
        return [a.value for a in bb.Animal]

    def _explain(self, error: IllegalAction, action: object) -> str:
        state = self._state()
        reason = getattr(error, "reason", "")
        player = getattr(action, "player", "")
        if reason == "restricted_tile":
            animals = join([a.value for a in state.restricted], "or")
            return (
                f"{player}, you may not flip a tile showing a {animals}: "
                f"{state.restricted_by} just revealed {'it' if len(state.restricted) == 1 else 'them'}."
            )
        if reason == "no_such_tile":
            return f"{player}, the tiles are numbered one to fifteen."
        if reason == "not_your_turn":
            return f"{player}, it is {state.to_act}'s turn."
        if reason == "left_the_game":
            return f"{player} has already left the game."
        return f"{player}: {error}"

    def _state(self) -> bb.State:
        assert self.state is not None, "the game has not started"
        return self.state


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Bim Bamm!'s own ``play`` options."""
    from voicehost.host.options import RACE_WINDOW, seconds_type

    parser.add_argument(
        "--cards",
        choices=["auto", "dealt", "table"],
        default="auto",
        help="dealt: the host deals and tells each player their card privately; "
        "table: players hold their own physical cards and the host trusts what they shout; "
        "auto (default): table cards unless every player has a private earphone",
    )
    parser.add_argument(
        "--race-window",
        type=seconds_type(RACE_WINDOW),
        metavar="S",
        help="seconds a race stays open after the host stops talking (default 2.5)",
    )
    parser.add_argument("--first", metavar="NAME", help="who starts when nobody holds the cat (default: random)")
    parser.add_argument(
        "--no-2p-variant",
        dest="variant2p",
        action="store_false",
        default=None,
        help="with 2 players, play without the 2-player rule (no flipping a tile showing "
        "an animal the other player just revealed); on by default",
    )


def options_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The settings those options ask for."""
    options: dict[str, Any] = {"cards": args.cards}
    if args.race_window is not None:
        options["race_window"] = args.race_window
    if args.first is not None:
        options["first_player"] = args.first
    if args.variant2p is False:
        options["variant2p"] = False
    return options


def make_flow(host: Host, seed: int, options: dict[str, Any]) -> BimBammFlow:
    """The flow for ``voicehost play bimbamm``."""
    return BimBammFlow(host, seed, BimBammSettings(**options))
