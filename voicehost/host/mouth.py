"""What the host says, and to whom: the table speaker or one player's private earphone.

A thin layer over :class:`~voicehost.speak.service.SpeechService` that speaks in player names
instead of routes, remembers the last announcement for "repeat", and knows whether private
outputs exist (without them the game runs in table-cards mode and private lines are never said
aloud).
"""

from __future__ import annotations

from typing import Sequence

from voicehost.speak.earcons import Earcon
from voicehost.speak.output import TABLE, Route, seat
from voicehost.speak.service import SpeechService


class Mouth:
    """The host's voice, addressed by player name."""

    def __init__(self, service: SpeechService, players: Sequence[str]) -> None:
        self.service = service
        self.players = list(players)
        self.last_table = ""
        """The last table announcement that was news, not a reply (what "repeat" says again)."""
        self.last_private: dict[str, str] = {}
        """The last private line of each player."""
        self._barge = False

    @property
    def private_outputs(self) -> bool:
        """True when every player has a private route (earphone or, in text mode, a private line)."""
        routes = set(self.service.routes)
        return all(self.route(p) in routes for p in self.players)

    def route(self, player: str | None) -> Route:
        """The route for ``player`` (None: the table)."""
        return TABLE if player is None else seat(self.players.index(player) + 1)

    def say(self, text: str, to: str | None = None, *, barge_in: bool = False, reply: bool = False) -> None:
        """Say ``text`` at the table (``to`` None) or privately to one player.

        A ``reply`` (to "help", "score", "repeat" …) is not news: "repeat" does not repeat it.
        """
        text = " ".join(text.split())
        if not text:
            return
        if to is None:
            if not reply:
                self.last_table = text
            barge_in, self._barge = barge_in or self._barge, False
        else:
            self.last_private[to] = text
        self.service.say(text, self.route(to), barge_in=barge_in)

    def barge_in_next(self) -> None:
        """The next table announcement first silences what the table speaker still has to say.

        Called when the game moves on (a player acted): stale announcements are dropped rather
        than delaying the news, and the transcript keeps them.
        """
        self._barge = True

    def earcon(self, sound: Earcon, to: str | None = None, *, barge_in: bool = False) -> None:
        """Play an earcon at the table or to one player."""
        self.service.earcon(sound, self.route(to), barge_in=barge_in)

    def silent_at(self) -> float:
        """Session time when the table speaker will have said everything queued."""
        return self.service.busy_until(TABLE)

    def interrupt(self) -> float:
        """Stop talking at once (a race opens, a player barges in); returns when it fell silent."""
        return self.service.interrupt()

    def slower(self) -> int:
        """Speak more slowly; returns the new rate in words per minute."""
        return self.service.slower()

    def faster(self) -> int:
        """Speak faster; returns the new rate in words per minute."""
        return self.service.faster()
