"""Hugging Face translation models under fitsub's length control (optional `hf` extra).

Nothing here imports transformers at import time; `fitsub.hf.loading.require_transformers`
does, when a model is loaded.
"""
