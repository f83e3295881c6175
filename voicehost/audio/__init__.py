"""Audio buffers, WAV files and sound devices (the sounddevice/soundfile adapters)."""
