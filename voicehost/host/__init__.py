"""Hosting: the game session that listens, applies the rules, and speaks.

- :mod:`.heard` — what the host heard (from microphones, typed lines or a script);
- :mod:`.words` — turning heard words into numbers, names and commands;
- :mod:`.inputs` — input modes (text, script, microphones, recorded audio);
- :mod:`.mouth` — what the host says, routed to the table or one seat;
- :mod:`.session` — the loop: inputs + timers → game flow → rules → speech + event log;
- :mod:`.flows` — one flow per game: what the host says and asks, and how it judges.
"""
