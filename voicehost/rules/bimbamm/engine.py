"""The Bim Bamm! rules: ``apply(state, action) -> (state, events)``, pure and deterministic.

Randomness enters only through :func:`new_game` (the caller's seeded RNG shuffles the cards and,
unless a tile set is given, arranges the tiles); times enter with the actions. A rejected action
raises :class:`~voicehost.rules.base.IllegalAction` with a short ``reason`` code, and since states
are frozen the caller's state is untouched. Every choice where the rulebook is silent is listed in
docs/rules.md ("Bim Bamm!").

Table cards (``new_game(cards="table")``): players hold physical cards, so the engine knows no
hand and no pile. It trusts the earliest shouter of a raced animal to hold it, as the physical game
trusts the card the scorer shows, and leaves the check to the table: :class:`Challenge` (or
``ResolveRace.refuted``) turns a false claim into a no_card mistake. Cards drawn, swapped or
exchanged are logged as null.

A player who leaves (:class:`~.actions.Leave`, e.g. the table skips a player who does not answer)
is out for good: their card and won cards go under the pile, the turn skips them (it passes to
their left if it was theirs, or if they were the scorer choosing tiles: that point left with them),
and fewer than two players left end the game (``too_few_players``).
"""

from __future__ import annotations

import math
from itertools import combinations
from typing import Sequence

from voicehost.errors import InputError
from voicehost.rules.base import Event, IllegalAction, PlayerName, Resumed, Rng
from voicehost.rules.bimbamm.actions import (
    Action,
    Call,
    Challenge,
    Flip,
    Leave,
    Quit,
    Refuted,
    ResolveRace,
    Resume,
    ScorerFlips,
    Shout,
    UseSpecial,
)
from voicehost.rules.bimbamm.events import (
    GAME_NAME,
    ChallengeEvent,
    EndReason,
    ExchangeEvent,
    FlipEvent,
    Illegal,
    FlipReason,
    GameOverEvent,
    LeftEvent,
    MistakeEvent,
    MistakeReason,
    PointEvent,
    RaceEvent,
    SetupEvent,
    ShoutEvent,
    SwapEvent,
    TurnEvent,
)
from voicehost.rules.bimbamm.replay import evolve
from voicehost.rules.bimbamm.state import (
    FIVE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    RULES_VERSION,
    WINNING_POINTS,
    Cards,
    Claim,
    Phase,
    State,
)
from voicehost.rules.bimbamm.tiles import COPIES, TILE_COUNT, Animal, Side, Special, Tile, default_tiles


class SetupError(InputError):
    """A game cannot start with these players or options."""


class _Step:
    """The events of one action being decided, each folded into the state as it is made.

    Deciding reads ``state`` (the state after the events so far); only :func:`~.replay.evolve`
    changes it, so the live game and a replay of its log build their states the same way.
    """

    __slots__ = ("state", "t", "events")

    def __init__(self, state: State, t: float) -> None:
        self.state = state
        self.t = t
        self.events: list[Event] = []

    @property
    def seq(self) -> int:
        """The seq the next event must carry."""
        return self.state.seq

    def add(self, event: Event) -> None:
        self.state = evolve(self.state, event)
        self.events.append(event)

    def done(self) -> tuple[State, list[Event]]:
        return self.state, self.events


# -- setup ------------------------------------------------------------------------------------


def new_game(
    players: Sequence[PlayerName],
    rng: Rng,
    seed: int,
    *,
    first_player: PlayerName | None = None,
    tiles: Sequence[Tile] | None = None,
    variant2p: bool | None = None,
    t: float = 0.0,
    cards: Cards | str = Cards.DEALT,
    rules: int = RULES_VERSION,
) -> tuple[State, list[Event]]:
    """Set up a game: tiles white side up, special on SWAP, one card each, the rest the pile.

    ``rng`` (seeded by the caller with ``seed``, which goes into the log) shuffles the cards and
    arranges the default tiles when ``tiles`` is None. The cat holder starts; when several players
    hold a cat, the first of them in seating order; when nobody does, ``first_player`` (the host's
    choice, e.g. the youngest), by default the first seat. ``variant2p`` defaults to on exactly
    when there are 2 players. Returns the state and the events "setup" and "turn".

    With ``cards="table"`` the players deal physical cards themselves: the engine shuffles none
    (the same seed gives the same default tiles as a dealt game), knows no hand, and the host asks
    who holds a cat and passes that player as ``first_player`` (by default the first seat).
    """
    mode = cards_mode(cards)
    names = _check_players(players)
    if rules not in (1, RULES_VERSION):
        raise SetupError(f"rules version {rules} is unknown: this voicehost plays 1 to {RULES_VERSION}")
    table = tuple(Tile(x.white, x.black, Side.WHITE) for x in tiles) if tiles is not None else default_tiles(rng)
    if len(table) != TILE_COUNT:
        raise SetupError(f"a tile set has {TILE_COUNT} tiles, not {len(table)}")
    if variant2p is None:
        variant2p = len(names) == 2
    if variant2p and len(names) != 2:
        raise SetupError("the 2-player variant needs exactly 2 players")
    if first_player is not None and first_player not in names:
        raise SetupError(f"first player {first_player!r} is not at the table")
    if mode is Cards.TABLE:
        hands: tuple[Animal | None, ...] = (None,) * len(names)
        deck: tuple[Animal, ...] = ()
        turn = first_player or names[0]
    else:
        shuffled = [a for a in Animal for _ in range(COPIES)]
        rng.shuffle(shuffled)
        hands, deck = tuple(shuffled[: len(names)]), tuple(shuffled[len(names) :])
        cat_holders = [p for p, h in zip(names, hands) if h is Animal.CAT]
        turn = cat_holders[0] if cat_holders else (first_player or names[0])
    state = State(
        players=names,
        tiles=table,
        special=Special.SWAP,
        hands=hands,
        deck=deck,
        points=tuple(() for _ in names),
        turn=turn,
        variant2p=variant2p,
        seed=seed,
        last_t=t,
        cards=mode,
        rules=rules,
    )
    setup = SetupEvent(0, t, GAME_NAME, names, seed, mode.value, _setup_json(state), rules)
    first = TurnEvent(1, t, turn)
    return evolve(evolve(None, setup), first), [setup, first]


def cards_mode(cards: object) -> Cards:
    """The cards mode ``cards`` names: "dealt" or "table" (a SetupError for anything else)."""
    try:
        return Cards(cards if isinstance(cards, str) else repr(cards))
    except ValueError:
        raise SetupError(f"cards must be 'dealt' or 'table', not {cards!r}") from None


def _check_players(players: Sequence[PlayerName]) -> tuple[PlayerName, ...]:
    """2 to 8 distinct, non-empty names."""
    names = tuple(players)
    if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        raise SetupError(f"Bim Bamm! needs {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(names)}")
    if any(not isinstance(n, str) or not n.strip() for n in names):
        raise SetupError("every player needs a non-empty name")
    if len(set(names)) != len(names):
        raise SetupError(f"player names must differ: {', '.join(names)}")
    return names


def _setup_json(state: State) -> dict[str, object]:
    """The setup event's "state": the fields the issue names, nothing else."""
    full = state.to_json()
    return {k: full[k] for k in ("tiles", "special", "hands", "deck", "points", "turn", "variant2p")}


# -- dispatch ---------------------------------------------------------------------------------


def apply(state: State, action: Action) -> tuple[State, list[Event]]:
    """Apply one action and return the new state and the events it caused, in log order.

    Raises IllegalAction (state unchanged) when the rules forbid the action now.
    """
    if state.over:
        raise IllegalAction(Illegal.GAME_OVER, "the game is over")
    _check_time(state, action.t)
    step = _Step(state, action.t)
    if isinstance(action, Flip):
        _flip(step, action)
    elif isinstance(action, UseSpecial):
        _special(step, action)
    elif isinstance(action, ResolveRace):
        _resolve(step, action)
    elif isinstance(action, ScorerFlips):
        _scorer_flips(step, action)
    elif isinstance(action, Shout):
        _lone_shout(step, action)
    elif isinstance(action, Challenge):
        _challenge(step, action)
    elif isinstance(action, Leave):
        _leave(step, action)
    elif isinstance(action, Quit):
        _quit(step, action)
    elif isinstance(action, Resume):
        step.add(Resumed(step.seq, step.t))
    else:
        raise IllegalAction(Illegal.UNKNOWN_ACTION, f"not a Bim Bamm! action: {action!r}")
    return step.done()


def resume(state: State, t: float) -> tuple[State, list[Event]]:
    """Mark a loaded game as continuing at ``t`` (the "resumed" event; seq and t continue)."""
    return apply(state, Resume(t=t))


def _check_time(state: State, t: float) -> None:
    """Actions come in game-clock order."""
    if not isinstance(t, (int, float)) or not math.isfinite(t):
        raise IllegalAction(Illegal.BAD_TIME, f"the action time must be a number of seconds, not {t!r}")
    if t < state.last_t:
        raise IllegalAction(Illegal.TIME_BACKWARDS, f"the action at t={t} comes before the last one (t={state.last_t})")


def _check_player(state: State, player: PlayerName) -> int:
    """The seat of a known player."""
    if player not in state.players:
        raise IllegalAction(Illegal.UNKNOWN_PLAYER, f"{player!r} is not at the table ({', '.join(state.players)})")
    return state.seat(player)


def _expect_turn(state: State, player: PlayerName) -> int:
    """A turn action needs phase TURN and the turn player."""
    seat = _check_player(state, player)
    if state.phase is Phase.RACE:
        raise IllegalAction(Illegal.RACE_OPEN, f"a race for {_names(state.race)} is open: resolve it first")
    if state.phase is Phase.SCORER:
        raise IllegalAction(Illegal.AWAITING_SCORER, f"{state.scorer} must first turn 2 {state.scored} tiles")
    if player != state.turn:
        raise IllegalAction(Illegal.NOT_YOUR_TURN, f"it is {state.turn}'s turn, not {player}'s")
    return seat


def _names(animals: Sequence[Animal]) -> str:
    """'cat' or 'cat and dog'."""
    return " and ".join(a.value for a in animals)


# -- turns ------------------------------------------------------------------------------------


def _flip(step: _Step, action: Flip) -> None:
    """A turn flip; a race opens if any animal now shows five or more times."""
    state = step.state
    _expect_turn(state, action.player)
    tile = _check_tile(action.tile)
    if restricted_tile(state, action.player, tile):
        raise IllegalAction(
            Illegal.RESTRICTED_TILE,
            f"2-player rule: tile {tile} shows {state.tiles[tile].showing}, which {state.restricted_by} just revealed",
        )
    _after_flips(step, action.player, _turn_tile(step, action.player, tile, FlipReason.TURN))


def restricted_tile(state: State, player: PlayerName, tile: int) -> bool:
    """True if the 2-player rule forbids ``player`` to flip ``tile`` now."""
    return state.variant2p and state.restricted_by != player and state.tiles[tile].showing in state.restricted


def _check_tile(tile: object) -> int:
    """A tile index 0-14."""
    if isinstance(tile, bool) or not isinstance(tile, int) or not 0 <= tile < TILE_COUNT:
        raise IllegalAction(
            Illegal.NO_SUCH_TILE, f"there is no tile {tile!r}: tiles are numbered 0 to {TILE_COUNT - 1}"
        )
    return tile


def _turn_tile(step: _Step, player: PlayerName, tile: int, reason: FlipReason) -> dict[Animal, int]:
    """Turn one tile over and log it with the counts after the flip (which it returns)."""
    state = step.state
    before = state.tiles[tile]
    shown, showing = (before.white, before.black) if before.up is Side.WHITE else (before.black, before.white)
    counts = state.counts()
    counts[shown] -= 1
    counts[showing] += 1
    step.add(FlipEvent(step.seq, step.t, player, tile, showing, counts, reason))
    return counts


def _after_flips(step: _Step, actor: PlayerName, counts: dict[Animal, int]) -> None:
    """Open a race per animal showing five or more times, or pass the turn to the actor's left."""
    fives = [animal for animal, n in counts.items() if n >= FIVE]
    if not fives:
        _pass_turn(step, actor)
    for animal in fives:
        step.add(RaceEvent(step.seq, step.t, animal))


def _pass_turn(step: _Step, after: PlayerName) -> None:
    """The player to the left of ``after`` takes the next turn."""
    step.add(TurnEvent(step.seq, step.t, step.state.left_of(after)))


def _special(step: _Step, action: UseSpecial) -> None:
    """SWAP or EXCHANGE, then the special tile turns over and the turn passes."""
    state = step.state
    seat = _expect_turn(state, action.player)
    if state.special is Special.SWAP:
        if action.target is not None:
            raise IllegalAction(Illegal.SWAP_HAS_NO_TARGET, "the special tile shows SWAP, which takes no other player")
        _swap(step, seat)
    else:
        if action.target is None or action.target == action.player or action.target not in state.active:
            others = ", ".join(p for p in state.active if p != action.player)
            raise IllegalAction(
                Illegal.BAD_TARGET, f"EXCHANGE needs another player's name ({others}), not {action.target!r}"
            )
        _exchange(step, seat, state.seat(action.target))
    _pass_turn(step, action.player)


def _swap(step: _Step, seat: int) -> None:
    """Put the held card under the pile, draw the top card; the tile turns to EXCHANGE.

    With table cards the player does it with physical cards: only the tile is tracked.
    """
    state = step.state
    if state.table_cards:
        step.add(SwapEvent(step.seq, step.t, state.players[seat], None, None))
        return
    held = state.hands[seat]
    deck = state.deck + ((held,) if held is not None else ())
    step.add(SwapEvent(step.seq, step.t, state.players[seat], held, deck[0] if deck else None))


def _exchange(step: _Step, seat: int, other: int) -> None:
    """Swap cards with the named player; the tile turns to SWAP (table cards: unknown cards, null)."""
    state = step.state
    gave, got = state.hands[seat], state.hands[other]
    step.add(ExchangeEvent(step.seq, step.t, state.players[seat], state.players[other], gave, got))


# -- races and shouts -------------------------------------------------------------------------


def _resolve(step: _Step, action: ResolveRace) -> None:
    """Judge every shout of the race window in onset order; the earliest valid one scores.

    With table cards a shout of a raced animal is valid unless the table refuted it; the later
    claims are kept with the scorer's :class:`Declaration` in case the scorer is challenged.
    """
    state = step.state
    if state.phase is not Phase.RACE:
        raise IllegalAction(Illegal.NO_RACE, "no race is open")
    for call in action.shouts:
        _check_shout(state, call.player, call.animal, call.onset)
    refuted = _check_refuted(state, action.refuted)
    held, race, actor = state.hands, state.race, state.turn
    scoring: int | None = None
    erred: list[PlayerName] = []
    for call in sorted(action.shouts, key=lambda c: c.onset):
        shout = step.seq
        seat = state.seat(call.player)
        fault = _race_fault(state.cards, race, held[seat], refuted, call.player, call.animal)
        marked = state.rules > 1 and (call.player, call.animal) in refuted and call.animal in race
        step.add(ShoutEvent(shout, step.t, call.player, call.animal, call.onset, refuted=marked))
        state = step.state
        if (
            fault is MistakeReason.NO_CARD
            and state.rules > 1
            and state.phase is not Phase.RACE
            and call.player == state.scorer
            and state.hands[seat] is call.animal
        ):
            fault = None  # the scorer's card drawn in this window: a late shout, not a false one
        if fault is not None and (state.rules == 1 or call.player not in erred):
            erred.append(call.player)
            _mistake(step, seat, fault, shout)
        elif fault is not None:
            pass  # one mistake per player per window: a referee counts the first wrong shout
        elif scoring is None:
            scoring = shout
            if _point(step, seat, call.animal, shout):
                return
        # else a later valid shout scores nothing (table cards: the fold keeps it as a later claim)
        state = step.state
    if scoring is None:
        _pass_turn(step, actor)


def _race_fault(
    cards: Cards,
    race: tuple[Animal, ...],
    held: Animal | None,
    refuted: frozenset[tuple[PlayerName, Animal]],
    player: PlayerName,
    animal: Animal,
) -> MistakeReason | None:
    """The mistake a race shout is, judged on the race and the cards held when it opened; None if valid.

    Table cards: a raced animal is trusted unless the table refuted that player's claim to it.
    """
    if animal not in race:
        return MistakeReason.WRONG_ANIMAL
    if cards is Cards.TABLE:
        return MistakeReason.NO_CARD if (player, animal) in refuted else None
    return MistakeReason.NO_CARD if held is not animal else None


def _check_refuted(state: State, refuted: Sequence[Refuted]) -> frozenset[tuple[PlayerName, Animal]]:
    """Refuted claims come only with table cards and name a player and an animal."""
    if refuted and not state.table_cards:
        raise IllegalAction(
            Illegal.CARDS_KNOWN, "with dealt cards the host knows every hand: claims are judged, not refuted"
        )
    for claim in refuted:
        _check_player(state, claim.player)
        if not isinstance(claim.animal, Animal):
            raise IllegalAction(Illegal.NOT_AN_ANIMAL, f"{claim.animal!r} is not an animal")
    return frozenset((c.player, c.animal) for c in refuted)


def would_score(state: State, shouts: Sequence[Call], refuted: Sequence[Refuted] = ()) -> Call | None:
    """The shout that would score if the open race closed now with these shouts (None: nobody).

    With table cards the host uses it to ask a would-be winner (2 points already) to show the card
    before it closes the window, since a third point ends the game at once and cannot be challenged.
    """
    if state.phase is not Phase.RACE:
        return None
    known = frozenset((c.player, c.animal) for c in refuted)
    for call in sorted(shouts, key=lambda c: c.onset):
        held = state.hands[state.seat(call.player)] if call.player in state.players else None
        if (
            call.player in state.players
            and _race_fault(state.cards, state.race, held, known, call.player, call.animal) is None
        ):
            return call
    return None


def _check_shout(state: State, player: PlayerName, animal: object, onset: object) -> None:
    """A shout names a player still in the game, an animal and a finite onset."""
    _check_player(state, player)
    if player in state.gone:
        raise IllegalAction(Illegal.LEFT, f"{player} has left the game and can no longer shout")
    if not isinstance(animal, Animal):
        raise IllegalAction(Illegal.NOT_AN_ANIMAL, f"{animal!r} is not an animal")
    if isinstance(onset, bool) or not isinstance(onset, (int, float)) or not math.isfinite(onset):
        raise IllegalAction(Illegal.BAD_ONSET, f"a shout's onset must be seconds on the game clock, not {onset!r}")


def _point(step: _Step, seat: int, animal: Animal, shout: int) -> bool:
    """The card becomes a point, the player draws, then turns 2 tiles — or wins at 3 points
    (then True: the game is over).

    With table cards the player draws a physical card: "drew" is null and no hand changes.
    """
    state = step.state
    player = state.players[seat]
    won = len(state.points[seat]) + 1
    drew = None if state.table_cards or not state.deck else state.deck[0]
    step.add(PointEvent(step.seq, step.t, player, animal, drew, won, shout))
    if won >= WINNING_POINTS:
        _end(step, player, EndReason.THREE_POINTS, None)
        return True
    return False


def _mistake(step: _Step, seat: int, reason: MistakeReason, shout: int) -> None:
    """The player's last won card goes under the pile; with none, nothing happens.

    With table cards the pile is physical: the card leaves the points and the host names it.
    """
    state = step.state
    won = state.points[seat]
    step.add(MistakeEvent(step.seq, step.t, state.players[seat], reason, won[-1] if won else None, shout))


def next_claim(state: State, refuted: Sequence[Refuted] = ()) -> Claim | None:
    """Table cards, while the scorer chooses tiles: the claim that would be trusted if the scorer
    were challenged now (None: nobody's), skipping ``refuted`` claims.

    Like :func:`would_score` before a race closes, it lets the host ask a would-be winner to show
    the card before it submits the :class:`Challenge`.
    """
    claim, scorer, animal = state.declaration, state.scorer, state.scored
    if state.phase is not Phase.SCORER or claim is None:
        return None
    known = frozenset((c.player, c.animal) for c in refuted)
    for other in claim.later:
        if not (other.player == scorer and other.animal is animal) and (other.player, other.animal) not in known:
            return other
    return None


def _lone_shout(step: _Step, action: Shout) -> None:
    """A shout outside a race window, judged against the table; it can never score."""
    state = step.state
    if state.phase is Phase.RACE:
        raise IllegalAction(Illegal.RACE_OPEN, "a race is open: submit its shouts with ResolveRace")
    _check_shout(state, action.player, action.animal, action.onset)
    shout = step.seq
    step.add(ShoutEvent(shout, step.t, action.player, action.animal, action.onset, in_race=False))
    seat = state.seat(action.player)
    fives = state.fives()
    if not fives:
        _mistake(step, seat, MistakeReason.NO_FIVE, shout)
    elif action.animal not in fives:
        _mistake(step, seat, MistakeReason.WRONG_ANIMAL, shout)
    elif not state.table_cards and state.hands[seat] is not action.animal:
        _mistake(step, seat, MistakeReason.NO_CARD, shout)


def _challenge(step: _Step, action: Challenge) -> None:
    """Table cards: the scorer's claim was false. Take the point back, judge the shout no_card
    (with its penalty), judge their other claims of that animal and the refuted claims the same,
    trust the next claim."""
    state = step.state
    _check_player(state, action.player)
    if not state.table_cards:
        raise IllegalAction(Illegal.CARDS_KNOWN, "with dealt cards the host knows every hand and judges no_card itself")
    claim, animal = state.declaration, state.scored
    if state.phase is not Phase.SCORER or claim is None or animal is None:
        raise IllegalAction(Illegal.NO_CLAIM, "only a scorer's claim can be challenged, before they turn their tiles")
    if action.player != state.scorer:
        raise IllegalAction(
            Illegal.NOT_SCORER, f"{state.scorer} scored, not {action.player}: only the scorer's claim can be challenged"
        )
    refuted = _check_refuted(state, action.refuted)
    seat = state.seat(action.player)
    won = state.points[seat][:-1]
    said_no = tuple(c.shout for c in claim.later if (c.player, c.animal) in refuted)
    step.add(
        ChallengeEvent(
            step.seq,
            step.t,
            action.player,
            animal,
            claim.shout,
            len(won),
            said_no if state.rules > 1 and said_no else None,
        )
    )
    erred = list(claim.erred)
    _window_mistake(step, seat, claim.shout, erred)
    rest: list[Claim] = []
    for other in claim.later:
        if (other.player == action.player and other.animal is animal) or (other.player, other.animal) in refuted:
            _window_mistake(step, state.seat(other.player), other.shout, erred)
        else:
            rest.append(other)
    if not rest:
        _pass_turn(step, claim.actor)
    else:
        _point(step, state.seat(rest[0].player), rest[0].animal, rest[0].shout)
    # (the fold trusts the claims after the next one in the new Declaration)


def _window_mistake(step: _Step, seat: int, shout: int, erred: list[PlayerName]) -> None:
    """A no_card mistake found by a challenge, unless the player already erred in that window
    (rules 2: one mistake per player per window)."""
    player = step.state.players[seat]
    if step.state.rules > 1 and player in erred:
        return
    erred.append(player)
    _mistake(step, seat, MistakeReason.NO_CARD, shout)


def _scorer_flips(step: _Step, action: ScorerFlips) -> None:
    """The scorer turns 2 tiles of their animal; the second flip may open a new race."""
    state = step.state
    _check_player(state, action.player)
    if state.phase is not Phase.SCORER:
        raise IllegalAction(Illegal.NOT_SCORER, "nobody is choosing tiles to turn now")
    if action.player != state.scorer:
        raise IllegalAction(Illegal.NOT_SCORER, f"{state.scorer} scored and chooses the tiles, not {action.player}")
    first, second = _check_score_tiles(state, action.tiles)
    _turn_tile(step, action.player, first, FlipReason.SCORE)
    _after_flips(step, action.player, _turn_tile(step, action.player, second, FlipReason.SCORE))


def _check_score_tiles(state: State, tiles: object) -> tuple[int, int]:
    """Two different tiles, both showing the scored animal."""
    if not isinstance(tiles, tuple) or len(tiles) != 2:
        raise IllegalAction(Illegal.BAD_SCORE_TILES, f"choose exactly 2 tiles, not {tiles!r}")
    first, second = _check_tile(tiles[0]), _check_tile(tiles[1])
    if first == second:
        raise IllegalAction(Illegal.BAD_SCORE_TILES, f"choose 2 different tiles, not tile {first} twice")
    for tile in (first, second):
        if state.tiles[tile].showing is not state.scored:
            raise IllegalAction(
                Illegal.BAD_SCORE_TILES, f"tile {tile} shows {state.tiles[tile].showing}, not {state.scored}"
            )
    return first, second


# -- a player who leaves ----------------------------------------------------------------------


def _leave(step: _Step, action: Leave) -> None:
    """The player is out for good: their card, then their won cards, go under the pile; the turn
    passes to their left if they were to act; fewer than MIN_PLAYERS left end the game."""
    state = step.state
    player = action.player
    seat = _check_player(state, player)
    if player in state.gone:
        raise IllegalAction(Illegal.LEFT, f"{player} has already left the game")
    if state.phase is Phase.RACE:
        raise IllegalAction(Illegal.RACE_OPEN, f"a race for {_names(state.race)} is open: resolve it first")
    held, won = state.hands[seat], state.points[seat]
    step.add(LeftEvent(step.seq, step.t, player, None if state.table_cards else held, won))
    if len(step.state.active) < MIN_PLAYERS:
        _end(step, None, EndReason.TOO_FEW_PLAYERS, None)
    elif state.to_act == player:
        _pass_turn(step, player)
    # (otherwise the fold drops their later claims from a Declaration)


# -- the end ----------------------------------------------------------------------------------


def _quit(step: _Step, action: Quit) -> None:
    """The game ends now without a winner."""
    if action.player is not None:
        _check_player(step.state, action.player)
    if not isinstance(action.reason, str) or not action.reason or action.reason == EndReason.THREE_POINTS:
        raise IllegalAction(Illegal.BAD_REASON, f"not a reason to end the game: {action.reason!r}")
    _end(step, None, action.reason, action.player)


def _end(step: _Step, winner: PlayerName | None, reason: str, quitter: PlayerName | None) -> None:
    """Log game_over: the game is over."""
    step.add(GameOverEvent(step.seq, step.t, reason, winner, step.state.points_by_name(), quitter))


# -- helpers for the host and the simulator ---------------------------------------------------


def legal_actions(state: State, t: float) -> list[Action]:
    """The actions of whoever must act now, at time ``t``.

    Phase TURN: every allowed Flip and the special tile (SWAP, or EXCHANGE with each other player);
    phase SCORER: every pair of tiles showing the scored animal; phase RACE: closing the window
    (``ResolveRace(t=t)``; the host adds the shouts it heard); over: nothing. Shouts and Quit are
    always possible while the game runs and are not listed, nor are the host's Challenge and Leave.
    """
    if state.phase is Phase.TURN:
        return _turn_actions(state, t)
    if state.phase is Phase.RACE:
        return [ResolveRace(t=t)]
    if state.phase is Phase.SCORER and state.scorer is not None:
        mine = [i for i, tile in enumerate(state.tiles) if tile.showing is state.scored]
        return [ScorerFlips(state.scorer, pair, t=t) for pair in combinations(mine, 2)]
    return []


def _turn_actions(state: State, t: float) -> list[Action]:
    """Allowed flips, then the special tile's uses."""
    player = state.turn
    actions: list[Action] = [Flip(player, i, t=t) for i in range(TILE_COUNT) if not restricted_tile(state, player, i)]
    if state.special is Special.SWAP:
        actions.append(UseSpecial(player, t=t))
    else:
        actions.extend(UseSpecial(player, other, t=t) for other in state.active if other != player)
    return actions


__all__ = [
    "Call",
    "GAME_NAME",
    "SetupError",
    "apply",
    "legal_actions",
    "new_game",
    "restricted_tile",
    "resume",
    "next_claim",
    "would_score",
]
