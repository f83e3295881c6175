"""Listening: sources → onset → crosstalk → recognize → ranking.

Messages between the stages are the typed dataclasses in :mod:`voicehost.listen.messages`.
"""
