"""Hugging Face translation models under fitsub's length control (optional `hf` extra).

Nothing here imports transformers at import time; `fitsub.hf.backend.require_transformers`
does, when a model is loaded.
"""
