"""Training: the loop, its data, optimizer and checkpoints, for every model family
(`fitsub.nmt`, `fitsub.nat`, Hugging Face fine-tuning, the length predictor), checkpoint averaging
and sequence-level distillation. Nothing in the model packages imports from here."""
