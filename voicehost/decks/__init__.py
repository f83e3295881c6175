"""BAM! decks: card values, the TOML deck loader and the printable card sheets.

``cards`` is pure data; ``load`` reads and validates deck files; ``printer`` draws PDF sheets
(reportlab is imported only when printing).
"""

from voicehost.decks.cards import BLANK, CardId, Deck, GreyCard, RedCard
from voicehost.decks.load import DeckError, load_deck, load_decks

__all__ = ["BLANK", "CardId", "Deck", "DeckError", "GreyCard", "RedCard", "load_deck", "load_decks"]
