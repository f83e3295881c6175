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
        self.replying_to: str | None = None
        """While the host answers what this player said, its table lines are held back from
        "repeat" for the others until :meth:`end_reply` knows whether they were news."""
        self._held: list[str] = []
        self._last: dict[str | None, tuple[int, str, bool]] = {}
        """Route owner (None: the table) → (order, text, private) of the last line "repeat" may say."""
        self._order = 0
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
            if not reply and self.replying_to is not None:
                self._held.append(text)
            elif not reply:
                self._remember(None, text, False)
            barge_in, self._barge = barge_in or self._barge, False
        else:
            self.last_private[to] = text
            self._remember(to, text, True)
        self.service.say(text, self.route(to), barge_in=barge_in)

    def _remember(self, owner: str | None, text: str, private: bool) -> None:
        self._order += 1
        self._last[owner] = (self._order, text, private)
        if owner is None:
            self.last_table = text

    def end_reply(self, *, news: bool) -> None:
        """The host has answered :attr:`replying_to`: its table lines were game news for everyone
        (``news``: the game moved) or an answer for that player alone (an error, a re-prompt)."""
        player, self.replying_to = self.replying_to, None
        held, self._held = self._held, []
        if held:
            self._remember(None if news or player is None else player, " ".join(held), False)

    def last_for(self, player: str) -> tuple[str, bool]:
        """What "repeat" says to ``player``: the later of the last table news and the last line
        addressed to them (privately, or at the table as an answer); (text, private?)."""
        mine = [entry for owner, entry in self._last.items() if owner in (None, player)]
        if not mine:
            return "", False
        _, text, private = max(mine)
        return text, private

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
