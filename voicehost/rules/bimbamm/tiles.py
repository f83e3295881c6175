"""Animals, the double-sided tiles and how a tile set is chosen: seeded by default, or given.

The rulebook says there are 15 animal tiles, 3 of each animal, with a white frame on one side and
a black frame on the other, but not which animal is printed on the back of which tile. Our default
(see docs/rules.md) puts 3 of each animal on the white sides and 3 of each on the black sides,
never the same animal twice on one tile, in an order drawn from the caller's seeded RNG. Owners of
the physical game can enter their own set instead, as a short spec or a TOML file's text.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Sequence

from voicehost.errors import InputError
from voicehost.rules.base import Rng


class Animal(StrEnum):
    """The five animals on cards and tiles; the value is the word in the log."""

    CAT = "cat"
    DOG = "dog"
    PIG = "pig"
    DONKEY = "donkey"
    HEN = "hen"


ANIMALS: tuple[Animal, ...] = tuple(Animal)
"""The animals in a fixed order (iterating the enum itself is slow on a hot path)."""


class Side(StrEnum):
    """A tile's frame colour: which side is face up."""

    WHITE = "white"
    BLACK = "black"


class Special(StrEnum):
    """The special tile's two sides: white is SWAP, black is EXCHANGE."""

    SWAP = "swap"
    EXCHANGE = "exchange"


TILE_COUNT = 15
"""Animal tiles on the table (the special tile is separate)."""

COPIES = 3
"""Cards of each animal, and tiles of each animal on each side in the default set."""


class TileSetError(InputError):
    """A given tile set is malformed; the message names the source, the tile and the field."""


@dataclass(frozen=True, slots=True)
class Tile:
    """One double-sided animal tile: the animal on each side and the side face up."""

    white: Animal
    """The animal on the white-frame side."""
    black: Animal
    """The animal on the black-frame side."""
    up: Side = Side.WHITE
    """The side lying face up."""

    @property
    def showing(self) -> Animal:
        """The animal everyone can see."""
        return self.white if self.up is Side.WHITE else self.black

    def flipped(self) -> Tile:
        """The same tile turned over."""
        return Tile(self.white, self.black, Side.BLACK if self.up is Side.WHITE else Side.WHITE)

    def to_json(self) -> dict[str, str]:
        """{"white", "black", "up"} as in the setup event."""
        return {"white": self.white.value, "black": self.black.value, "up": self.up.value}


def default_tiles(rng: Rng) -> tuple[Tile, ...]:
    """The seeded default set: each side shows 3 of each animal, no tile shows one animal twice.

    The white sides are shuffled into table order, then the black sides are reshuffled until no
    tile carries the same animal on both sides (about 1 try in 20 succeeds, so this is quick);
    after 10,000 failures a fixed rotation is used, so the function always terminates.
    """
    white = [a for a in Animal for _ in range(COPIES)]
    rng.shuffle(white)
    black = list(white)
    for _ in range(10_000):
        rng.shuffle(black)
        if all(w is not b for w, b in zip(white, black)):
            return tuple(Tile(w, b) for w, b in zip(white, black))
    order = sorted(range(TILE_COUNT), key=lambda i: list(Animal).index(white[i]))
    black = list(white)
    for k, i in enumerate(order):
        black[i] = white[order[(k + COPIES) % TILE_COUNT]]
    return tuple(Tile(w, b) for w, b in zip(white, black))


def parse_tile_spec(spec: str, source: str = "tile set") -> tuple[Tile, ...]:
    """Tiles from a short spec: 15 ``white/black`` pairs in table order, separated by commas.

    Example: ``"cat/dog, dog/pig, ..."``. Errors name the tile (1-15) and the side.
    """
    parts = [p.strip() for p in spec.split(",") if p.strip()]
    pairs: list[tuple[object, object]] = []
    for number, part in enumerate(parts, start=1):
        sides = part.split("/")
        if len(sides) != 2:
            raise TileSetError(f"{source}: tile {number}: expected 'white/black', got {part!r}")
        pairs.append((sides[0].strip(), sides[1].strip()))
    return _tiles_from_pairs(pairs, source, lines=None)


def parse_tile_toml(text: str, source: str) -> tuple[Tile, ...]:
    """Tiles from a TOML document: 15 ``[[tile]]`` tables with ``white`` and ``black`` keys.

    The caller reads the file (the rules do no I/O); ``source`` is its name for error messages,
    which give the line of the offending ``[[tile]]`` header.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise TileSetError(f"{source}: not valid TOML ({error})") from error
    tiles = data.get("tile")
    if not isinstance(tiles, list) or not all(isinstance(t, dict) for t in tiles):
        raise TileSetError(f"{source}: expected {TILE_COUNT} [[tile]] tables with 'white' and 'black'")
    lines = [n for n, line in enumerate(text.splitlines(), start=1) if line.strip().startswith("[[tile]]")]
    pairs = [(t.get("white"), t.get("black")) for t in tiles]
    return _tiles_from_pairs(pairs, source, lines)


def _tiles_from_pairs(pairs: Sequence[tuple[Any, Any]], source: str, lines: list[int] | None) -> tuple[Tile, ...]:
    """Validate (white, black) pairs: exactly 15, every side a known animal."""
    if len(pairs) != TILE_COUNT:
        raise TileSetError(f"{source}: expected {TILE_COUNT} tiles, found {len(pairs)}")
    tiles = []
    for number, (white, black) in enumerate(pairs, start=1):
        where = f"{source}:{lines[number - 1]}" if lines and len(lines) >= number else source
        tiles.append(
            Tile(
                _animal(white, f"{where}: tile {number}: field 'white'"),
                _animal(black, f"{where}: tile {number}: field 'black'"),
            )
        )
    return tuple(tiles)


def _animal(value: Any, context: str) -> Animal:
    """One side's animal, or an error naming where it was read."""
    try:
        return Animal(value)
    except ValueError:
        known = ", ".join(a.value for a in Animal)
        raise TileSetError(f"{context}: {value!r} is not an animal (one of {known})") from None
