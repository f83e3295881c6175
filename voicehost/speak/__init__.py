"""The host's voice: sentence realisation, text-to-speech and audio output."""
