"""What the host says about Bim Bam Bum!'s events: one short text per typed event."""

from __future__ import annotations

from typing import Sequence

from voicehost.host.speech_text import count, join
from voicehost.rules import bimbambum as bb
from voicehost.rules.base import Event, Resumed

PILE_WORDS = ("one", "two", "three")
"""How the piles 0, 1, 2 are said."""


def announcement(ev: Event, before: bb.State, events: Sequence[Event], after: bb.State) -> str | None:
    """The words for one event of an action (``events``: all of them), or None to say nothing."""
    if isinstance(ev, bb.Skipped):
        return f"Skip {ev.player}!"
    if isinstance(ev, bb.Reversed):
        return "Reverse!"
    if isinstance(ev, bb.MistakeMade):
        return mistake(ev, before, events)
    if isinstance(ev, bb.Penalised):
        return penalty(ev)
    if isinstance(ev, bb.RoundStarted):
        return "New round."
    if isinstance(ev, bb.TurnStarted):
        return turn(ev.player, ev.card)
    if isinstance(ev, bb.GameEnded):
        return ending(ev, after)
    if isinstance(ev, Resumed) and after.phase is bb.Phase.SLAP:
        return f"{after.caller} yelled bim bam bum. Everybody else, get ready: slap!"
    return None


def turn(player: str, card: bb.Card | None) -> str:
    """ "Anna: bam."."""
    return f"{player}: {card.value if card else 'no card'}."


def mistake(ev: bb.MistakeMade, before: bb.State, events: Sequence[Event]) -> str:
    """Which mistake, said the way the table understands it."""
    player, reason = ev.player, ev.reason
    if reason is bb.MistakeReason.OUT_OF_TURN:
        return f"Mistake, {player}: it was {before.turn}'s turn."
    if reason is bb.MistakeReason.TIMEOUT:
        return f"Time's up, {player}!" if ev.onset is None else f"Too late, {player}!"
    if reason is bb.MistakeReason.WRONG_WORD:
        play = next(e for e in events if isinstance(e, bb.CardPlayed))
        return f"Mistake, {player}: it was {play.expected}, not {play.said or 'nothing'}."
    if reason is bb.MistakeReason.SLAPPED_OWN_CALL:
        return f"Mistake, {player}: no slapping on your own bim bam bum!"
    if ev.onset is None:
        return f"{player} did not slap!"
    return f"{player} slapped last!"


def penalty(ev: bb.Penalised) -> str:
    """Which pile the player takes and which goes in the box."""
    if ev.took_pile is None:
        return f"The piles are empty, so {ev.player} takes nothing."
    text = f"{ev.player} takes pile {PILE_WORDS[ev.took_pile]}: {count(ev.took, 'card')}."
    if ev.boxed_pile is not None:
        text += f" Pile {PILE_WORDS[ev.boxed_pile]} goes in the box: {count(ev.boxed, 'card')}."
    return text


def ending(ev: bb.GameEnded, after: bb.State) -> str:
    """The winner, or why the game ended without one."""
    if ev.winner:
        others = [p for p in after.players if p != ev.winner]
        left = join([f"{p} {after.cards_left[p]}" for p in others])
        return f"That was {ev.winner}'s last card: {ev.winner} wins Bim Bam Bum! Cards left: {left}."
    if ev.reason == bb.EndReason.TURN_CAP:
        return f"The game has gone on too long: it ends without a winner. {cards_left(after)}"
    return f"The game is over. {cards_left(after)}"


def cards_left(state: bb.State) -> str:
    """ "Cards left: Anna 3, Ben 5 and Cem 1."."""
    return "Cards left: " + join([f"{p} {n}" for p, n in state.cards_left.items()]) + "."
