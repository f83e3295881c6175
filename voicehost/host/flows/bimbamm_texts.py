"""What the host says about Bim Bamm!'s events: one function per announcement, from typed events."""

from __future__ import annotations

from voicehost.host.speech_text import count
from voicehost.host.words import number_phrase
from voicehost.rules import bimbamm as bb

PLURAL = {"cat": "cats", "dog": "dogs", "pig": "pigs", "donkey": "donkeys", "hen": "hens"}


def flipped(ev: bb.FlipEvent) -> str:
    """ "Seven: dog."."""
    return f"{number_phrase(ev.tile + 1).capitalize()}: {ev.showing.value}."


def swapped(ev: bb.SwapEvent, table_cards: bool) -> str:
    """The special tile's SWAP, with what the player does by hand at a table-cards game."""
    how = " Put your card under the pile and draw one." if table_cards else ""
    return f"{ev.player} swaps their card.{how} The special tile now shows exchange."


def exchanged(ev: bb.ExchangeEvent, table_cards: bool) -> str:
    """The special tile's EXCHANGE."""
    how = " Hand each other your cards, face down." if table_cards else ""
    return f"{ev.player} exchanges cards with {ev.with_}.{how} The special tile now shows swap."


def challenged(ev: bb.ChallengeEvent) -> str:
    """A table-cards challenge took the point back."""
    return f"{ev.player} loses the point for the {ev.animal.value}."


def scored(ev: bb.PointEvent) -> str:
    """ "Ben scores with the cat! Ben has 2 points."."""
    return f"{ev.player} scores with the {ev.animal.value}! {ev.player} has {count(ev.points, 'point')}."


def show_card(ev: bb.PointEvent) -> str:
    """Table cards: the scorer shows the card and draws a physical one."""
    return (
        f"{ev.player}, show your card, put it in front of you and draw a new one. "
        f"If it is not the {ev.animal.value}, say challenge."
    )


def mistake(ev: bb.MistakeEvent, animal: bb.Animal | None) -> str:
    """The mistake, why, and the card that goes back (``animal``: what the judged shout named)."""
    said = animal.value if animal is not None else "animal"
    why = {
        bb.MistakeReason.WRONG_ANIMAL: f"the {said} is not the animal showing five times",
        bb.MistakeReason.NO_CARD: f"{ev.player} does not hold the {said}",
        bb.MistakeReason.NO_FIVE: f"there are not five {PLURAL.get(said, said)}",
    }.get(ev.reason, "that was a mistake")
    back = (
        f"{ev.player} puts the won {ev.returned.value} back under the pile."
        if ev.returned
        else f"{ev.player} has no point to give back."
    )
    return f"Mistake, {ev.player}: {why}. {back}"
