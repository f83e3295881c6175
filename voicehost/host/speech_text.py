"""Small helpers for natural announcements: lists, plurals, numbers."""

from __future__ import annotations

from typing import Sequence

from voicehost.host.words import number_phrase


def join(items: Sequence[str], last: str = "and") -> str:
    """'Anna', 'Anna and Ben', 'Anna, Ben and Cem'."""
    items = [str(i) for i in items]
    if not items:
        return ""
    if len(items) == 1:
        return items[0]
    return f"{', '.join(items[:-1])} {last} {items[-1]}"


def count(n: int, noun: str, plural: str | None = None) -> str:
    """'one point', 'two points', 'no points'."""
    if n == 0:
        return f"no {plural or noun + 's'}"
    return f"{number_phrase(n)} {noun if n == 1 else (plural or noun + 's')}"
