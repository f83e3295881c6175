"""Printable BAM! card sheets (PDF) for tables without private earphones.

Nine poker-size cards (63 × 88 mm) per page, red cards first, then grey, each colour starting on a
new page. Every card shows its number large in the top-left corner (players submit paper cards by
saying that number), its text, and its id and tags in small print. Cut marks sit in the page
margins on every card edge. reportlab is imported only here, when printing.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence
from xml.sax.saxutils import escape

from voicehost.decks.cards import BLANK, Deck, GreyCard, RedCard
from voicehost.errors import InputError
from voicehost.files import OutputPathError, atomic_write_with

MM = 72 / 25.4
"""PDF points per millimetre."""

CARD_W, CARD_H = 63 * MM, 88 * MM
"""Card size in points (poker size)."""

COLUMNS, ROWS = 3, 3

RED = (0.78, 0.06, 0.18)
GREY = (0.45, 0.45, 0.47)

_FONT_DIRS = (Path("/usr/share/fonts/truetype/dejavu"),)
"""Where to look for DejaVu Sans (wide Unicode coverage); reportlab's own Vera is the fallback."""


class PrintError(InputError):
    """The card sheets cannot be written (bad paper size, unwritable output, empty deck)."""


@dataclass(frozen=True)
class _Sheet:
    """Page geometry in points."""

    width: float
    height: float

    @property
    def left(self) -> float:
        return (self.width - COLUMNS * CARD_W) / 2

    @property
    def bottom(self) -> float:
        return (self.height - ROWS * CARD_H) / 2

    def card_origin(self, slot: int) -> tuple[float, float]:
        """Lower-left corner of card ``slot`` (0 = top left, row by row)."""
        column, row = slot % COLUMNS, slot // COLUMNS
        return self.left + column * CARD_W, self.bottom + (ROWS - 1 - row) * CARD_H


def print_deck(deck: Deck, out: Path, paper: str = "a4", progress: Callable[[int, int], None] | None = None) -> int:
    """Write ``deck`` as card sheets to the PDF ``out``; return the number of pages."""
    from reportlab.lib import pagesizes
    from reportlab.pdfgen.canvas import Canvas

    sizes = {"a4": pagesizes.A4, "letter": pagesizes.LETTER}
    if paper not in sizes:
        raise PrintError(f"unknown paper size {paper!r} (use a4 or letter)")
    if not deck.red and not deck.grey:
        raise PrintError("the deck has no cards to print (check --deck and --tag)")
    sheet = _Sheet(*sizes[paper])
    regular, bold = _fonts()
    pages = 0

    def write(tmp: Path) -> None:
        nonlocal pages
        pages = _draw(Canvas(str(tmp), pagesize=sizes[paper]), sheet, deck, regular, bold, progress)

    try:
        atomic_write_with(out, write, "PDF")
    except OutputPathError as error:
        raise PrintError(str(error)) from None
    return pages


def _draw(
    canvas: Any, sheet: "_Sheet", deck: Deck, regular: str, bold: str, progress: Callable[[int, int], None] | None
) -> int:
    """Draw every card on ``canvas`` and save it; returns the number of pages."""
    canvas.setTitle(f"BAM! cards: {deck.name}")
    canvas.setAuthor("voicehost")
    pages = 0
    groups: list[Sequence[tuple[int, RedCard | GreyCard]]] = [deck.numbered_red(), deck.numbered_grey()]
    total = len(deck.red) + len(deck.grey)
    done = 0
    for group in groups:
        for start in range(0, len(group), COLUMNS * ROWS):
            for slot, (number, card) in enumerate(group[start : start + COLUMNS * ROWS]):
                _draw_card(canvas, sheet, slot, number, card, deck.name, regular, bold)
            _draw_cut_marks(canvas, sheet)
            pages += 1
            _footer(canvas, sheet, regular, f"voicehost BAM! · deck {deck.name} · page {pages} · cut along the marks")
            canvas.showPage()
            done += len(group[start : start + COLUMNS * ROWS])
            if progress is not None:
                progress(done, total)
    canvas.save()
    return pages


def _fonts() -> tuple[str, str]:
    """Register a Unicode TrueType font pair and return (regular, bold) names."""
    from reportlab import rl_config
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    candidates = [(d / "DejaVuSans.ttf", d / "DejaVuSans-Bold.ttf") for d in _FONT_DIRS]
    vera = Path(rl_config.__file__).parent / "fonts"
    candidates.append((vera / "Vera.ttf", vera / "VeraBd.ttf"))
    for regular, bold in candidates:
        if regular.is_file() and bold.is_file():
            if "BamSans" not in pdfmetrics.getRegisteredFontNames():
                pdfmetrics.registerFont(TTFont("BamSans", str(regular)))
                pdfmetrics.registerFont(TTFont("BamSans-Bold", str(bold)))
            return "BamSans", "BamSans-Bold"
    return "Helvetica", "Helvetica-Bold"


def _draw_card(
    canvas: Any,
    sheet: _Sheet,
    slot: int,
    number: int,
    card: RedCard | GreyCard,
    deck_name: str,
    regular: str,
    bold: str,
) -> None:
    x, y = sheet.card_origin(slot)
    red = isinstance(card, RedCard)
    colour = RED if red else GREY
    band = 17 * MM
    canvas.saveState()
    canvas.setStrokeColorRGB(0.85, 0.85, 0.85)
    canvas.setLineWidth(0.3)
    canvas.rect(x, y, CARD_W, CARD_H, stroke=1, fill=0)
    canvas.setFillColorRGB(*colour)
    canvas.rect(x, y + CARD_H - band, CARD_W, band, stroke=0, fill=1)
    canvas.setFillColorRGB(1, 1, 1)
    canvas.setFont(bold, 34)
    canvas.drawString(x + 4 * MM, y + CARD_H - band + 4 * MM, str(number))
    canvas.setFont(bold, 11)
    canvas.drawRightString(x + CARD_W - 4 * MM, y + CARD_H - band + 5.5 * MM, _label(card))
    _draw_text(canvas, card, x + 5 * MM, y + 12 * MM, CARD_W - 10 * MM, CARD_H - band - 17 * MM, regular, bold)
    canvas.setFillColorRGB(*colour)
    canvas.setFont(regular, 6.5)
    tags = " · ".join(card.tags)
    canvas.drawString(x + 5 * MM, y + 5 * MM, f"{card.id}" + (f" · {tags}" if tags else ""))
    canvas.drawRightString(x + CARD_W - 5 * MM, y + 5 * MM, deck_name)
    canvas.restoreState()


def _label(card: RedCard | GreyCard) -> str:
    """The small label in the colour band: a double-BAM! card asks for two grey cards."""
    if isinstance(card, RedCard):
        return "2 × BAM!" if card.blanks == 2 else "BAM!"
    return "word"


def _draw_text(
    canvas: Any, card: RedCard | GreyCard, x: float, y: float, width: float, height: float, regular: str, bold: str
) -> None:
    """The card's text, wrapped, top-aligned, shrunk until it fits."""
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.platypus import Paragraph

    markup = escape(card.text)
    if isinstance(card, RedCard):
        markup = markup.replace(BLANK, f'<font name="{bold}" color="#c70f2e">{BLANK}</font>')
    size = 15.0 if isinstance(card, GreyCard) else 13.0
    while True:
        style = ParagraphStyle(
            "card",
            fontName=bold if isinstance(card, GreyCard) else regular,
            fontSize=size,
            leading=size * 1.25,
            textColor="#111111",
        )
        paragraph = Paragraph(markup, style)
        _, used = paragraph.wrap(width, height)
        if used <= height or size <= 6:
            break
        size -= 0.5
    paragraph.drawOn(canvas, x, y + height - used)


def _draw_cut_marks(canvas: Any, sheet: _Sheet) -> None:
    """Short lines in the margins continuing every card edge."""
    gap = 2 * MM
    length = max(2 * MM, min(6 * MM, min(sheet.bottom, sheet.left) - gap - 4 * MM))
    top, right = sheet.bottom + ROWS * CARD_H, sheet.left + COLUMNS * CARD_W
    canvas.saveState()
    canvas.setStrokeColorRGB(0, 0, 0)
    canvas.setLineWidth(0.5)
    for column in range(COLUMNS + 1):
        edge = sheet.left + column * CARD_W
        canvas.line(edge, top + gap, edge, top + gap + length)
        canvas.line(edge, sheet.bottom - gap, edge, sheet.bottom - gap - length)
    for row in range(ROWS + 1):
        edge = sheet.bottom + row * CARD_H
        canvas.line(sheet.left - gap, edge, sheet.left - gap - length, edge)
        canvas.line(right + gap, edge, right + gap + length, edge)
    canvas.restoreState()


def _footer(canvas: Any, sheet: _Sheet, font: str, text: str) -> None:
    """A small line under the cards, left out where the margin only has room for the cut marks (letter)."""
    if sheet.bottom < 12 * MM:
        return
    canvas.saveState()
    canvas.setFont(font, 7)
    canvas.setFillColorRGB(0.4, 0.4, 0.4)
    canvas.drawCentredString(sheet.width / 2, 3 * MM, text)
    canvas.restoreState()
