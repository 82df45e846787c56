"""BERT2RND (Rothe, Narayan & Severyn 2020): a pretrained English encoder (all-MiniLM-L6-v2) under
fitsub's randomly initialised, length-controlled decoder; a study model (docs/results/pretrained-encoder.md)."""
