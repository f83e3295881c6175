"""The pure rules engines of the three games.

Nothing under this package imports audio, text-to-speech, recognisers, ``time`` or ``random``:
randomness comes in as an :class:`~voicehost.rules.base.Rng` the caller seeded, and times come
in with the actions. ``tests/test_rules_purity.py`` enforces it.
"""
