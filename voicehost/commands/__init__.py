"""Subcommands of ``voicehost``; each module here is discovered by :mod:`voicehost.cli`."""
