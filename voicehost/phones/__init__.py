"""Phones as microphones and private earphones (``voicehost play GAME --input phones``).

A small HTTPS page (``page/``) served on the local network by :mod:`.server` lets each player
join with their phone. The page's AudioWorklet sends microphone blocks stamped with the phone's
audio clock; :mod:`.clocksync` maps that clock onto the session clock from ping-pong exchanges
(tracked for drift); :mod:`.source` places every phone's blocks on the session's frame axis like
the live microphone source does for sound devices (a phone that stops is a lost microphone);
:mod:`.calibrate` measures each phone's acoustic delay with setup-table's click; :mod:`.output`
sends the host's private speech and lines to the phone of their seat; :mod:`.live` puts it
together for a live session.
"""
