"""voicehost: an offline, voice-driven host for Bim Bamm!, Bim Bam Bum! and BAM!."""

__version__ = "0.1.0"
