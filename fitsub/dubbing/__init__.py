"""Dubbing by speaking time: syllables and speech rates (`speech`), speaking-window budgets (`budget`), the synthesizer check (`check`)."""
