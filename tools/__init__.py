"""Developer tools: fixture generators and the synthetic voices behind them.

Not part of the installed package (``pyproject.toml`` packages only ``voicehost*``): the tests and
the benchmarks import from here, and each generator runs from the repository root::

    .venv/bin/python -m tools.listen_fixtures      # audio_fixtures/*.wav + *.json (seed 1)
    .venv/bin/python -m tools.word_fixtures        # audio_fixtures/words/<lang>/ (recogniser clips)
    .venv/bin/python -m tools.session_fixtures     # audio_fixtures/sessions/NAME/ (whole recorded games)
    .venv/bin/python -m tools.session_fixtures --demo   # refresh the demo recording shipped in the package

The tests find this package because pytest puts the repository root on ``sys.path``
(``pythonpath`` in ``pyproject.toml``); the benchmarks insert it themselves.
"""

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
"""The repository root (this package only exists in a source checkout)."""
