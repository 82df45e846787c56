"""Non-autoregressive translation: a conditional masked language model (CMLM) decoded with
mask-predict (Ghazvininejad et al. 2019), built from fitsub's encoder, decoder layers, tokenizer,
length encodings and checkpoint format (`fitsub.nmt`).
"""
