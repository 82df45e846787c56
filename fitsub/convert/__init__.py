"""Conversion of other toolkits' translation models into fitsub checkpoints (`fitsub convert`)."""
