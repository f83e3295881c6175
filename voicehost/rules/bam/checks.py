"""Which BAM! actions the rules refuse, and why (shared by the engine and the log replay)."""

from __future__ import annotations

from enum import StrEnum
from typing import Sequence

from voicehost.rules.bam.state import BamState, CardId, Phase
from voicehost.rules.base import IllegalAction, PlayerName


class Illegal(StrEnum):
    """Reason codes of :class:`~voicehost.rules.base.IllegalAction` in BAM!."""

    GAME_OVER = "game_over"
    UNKNOWN_PLAYER = "unknown_player"
    LEFT = "left_the_game"
    """The player has left the game."""
    MASTER_SUBMITS = "master_submits"
    SITTING_OUT = "sitting_out"
    ALREADY_SUBMITTED = "already_submitted"
    WRONG_NUMBER_OF_CARDS = "wrong_number_of_cards"
    SAME_CARD_TWICE = "same_card_twice"
    NOT_IN_HAND = "not_in_hand"
    NOT_MASTER = "not_master"
    NOT_ALL_SUBMITTED = "not_all_submitted"
    NO_SUCH_SUBMISSION = "no_such_submission"
    BEST_IS_WORST = "best_is_worst"
    NO_SUCH_BLANK = "no_such_blank"
    NO_SUCH_CARD = "no_such_card"
    """Table cards: no grey card with that id (or printed number) in this game's deck."""
    ALREADY_PLAYED = "already_played"
    """Table cards: the card already lies on the table this round."""
    WON_CARD = "won_card"
    """Table cards: the card was won as a victory point."""
    DISCARDED = "discarded"
    """Table cards: the card went to the discard pile and has not been reshuffled since."""
    SET_ASIDE = "set_aside"
    """Table cards: the card was played by a player who then left, and is out of the game."""


def submit_problem(state: BamState, player: PlayerName, cards: Sequence[CardId]) -> IllegalAction | None:
    """Why ``player`` may not submit ``cards`` now, or None if they may."""
    if state.phase is Phase.OVER:
        return IllegalAction(Illegal.GAME_OVER, f"{player} cannot submit: the game is over")
    if player not in state.hands:
        return IllegalAction(Illegal.UNKNOWN_PLAYER, f"{player!r} is not playing")
    if player in state.gone:
        return IllegalAction(Illegal.LEFT, f"{player} cannot submit: {player} has left the game")
    if player == state.master:
        return IllegalAction(Illegal.MASTER_SUBMITS, f"{player} cannot submit: {player} is the BAM! Master this round")
    if player in state.submitted:
        return IllegalAction(Illegal.ALREADY_SUBMITTED, f"{player} has already submitted this round")
    if player not in state.round_players:
        return IllegalAction(
            Illegal.SITTING_OUT, f"{player} sits out this round: too few grey cards left for {state.blanks} blanks"
        )
    if len(cards) != state.blanks:
        kind = "this double-BAM! card" if state.blanks == 2 else "this card"
        return IllegalAction(
            Illegal.WRONG_NUMBER_OF_CARDS,
            f"{player} must submit {state.blanks} card{'s' if state.blanks > 1 else ''} for {kind}, not {len(cards)}",
        )
    if len(set(cards)) != len(cards):
        return IllegalAction(Illegal.SAME_CARD_TWICE, f"{player} cannot submit the same card twice")
    if state.table_cards:
        return _printed_card_problem(state, player, cards)
    for card in cards:
        if card not in state.hands[player]:
            return IllegalAction(Illegal.NOT_IN_HAND, f"{player} cannot submit {card}: it is not in {player}'s hand")
    return None


def _printed_card_problem(state: BamState, player: PlayerName, cards: Sequence[CardId]) -> IllegalAction | None:
    """Table cards: each card must be a grey card of the deck that is not out of play as far as the
    host knows (on the table this round, won, or discarded since the last reshuffle)."""
    won = {c for stack in state.won_grey.values() for c in stack}
    for card in cards:
        face = state.cards.get(card)
        if face is None or face.color != "grey":
            return IllegalAction(
                Illegal.NO_SUCH_CARD, f"{player} cannot submit {card!r}: there is no such grey card in this game's deck"
            )
        if card in state.table:
            return IllegalAction(
                Illegal.ALREADY_PLAYED, f"{player} cannot submit {card}: it is already on the table this round"
            )
        if card in won:
            return IllegalAction(Illegal.WON_CARD, f"{player} cannot submit {card}: it was won as a victory point")
        if card in state.discard:
            return IllegalAction(Illegal.DISCARDED, f"{player} cannot submit {card}: it is on the discard pile")
        if card in state.set_aside:
            return IllegalAction(
                Illegal.SET_ASIDE, f"{player} cannot submit {card}: it left the game with a player who left"
            )
    return None


def leave_problem(state: BamState, player: PlayerName) -> IllegalAction | None:
    """Why ``player`` cannot leave the game now, or None if they can."""
    if state.phase is Phase.OVER:
        return IllegalAction(Illegal.GAME_OVER, f"{player} cannot leave: the game is over")
    if player not in state.players:
        return IllegalAction(Illegal.UNKNOWN_PLAYER, f"{player!r} is not playing")
    if player in state.gone:
        return IllegalAction(Illegal.LEFT, f"{player} has already left the game")
    return None


def card_for_number(state: BamState, number: int) -> CardId:
    """Table cards: the grey card printed with ``number``, or IllegalAction ``no_such_card``."""
    printed = state.printed_grey()
    card = printed.get(number) if isinstance(number, int) and not isinstance(number, bool) else None
    if card is None:
        raise IllegalAction(
            Illegal.NO_SUCH_CARD,
            f"there is no grey card number {number!r}: the printed grey cards are numbered 1 to {len(printed)}",
        )
    return card


def judge_problem(state: BamState, player: PlayerName, best: int, worst: int, keep: int) -> IllegalAction | None:
    """Why ``player`` may not judge this way now, or None if they may."""
    if state.phase is Phase.OVER:
        return IllegalAction(Illegal.GAME_OVER, "cannot judge: the game is over")
    if player != state.master:
        return IllegalAction(Illegal.NOT_MASTER, f"{player} cannot judge: {state.master} is the BAM! Master")
    if state.phase is Phase.SUBMITTING:
        waiting = ", ".join(state.waiting_for)
        return IllegalAction(Illegal.NOT_ALL_SUBMITTED, f"cannot judge yet: still waiting for {waiting}")
    count = len(state.reading)
    for number in (best, worst):
        if not 1 <= number <= count:
            return IllegalAction(
                Illegal.NO_SUCH_SUBMISSION, f"there is no submission {number} (submissions are 1 to {count})"
            )
    if best == worst:
        return IllegalAction(Illegal.BEST_IS_WORST, f"submission {best} cannot be both the best and the worst")
    if not 1 <= keep <= state.blanks:
        return IllegalAction(
            Illegal.NO_SUCH_BLANK, f"the winner can keep card 1{' or 2' if state.blanks == 2 else ''}, not {keep}"
        )
    return None
