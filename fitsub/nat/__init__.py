"""Non-autoregressive translation: a conditional masked language model (CMLM) decoded with
mask-predict (Ghazvininejad et al. 2019) and a Levenshtein Transformer (Gu et al. 2019) with
perturbed LDPE in its placeholder classifier (Oka et al. 2021), both built from fitsub's encoder,
decoder layers, tokenizer, length encodings and checkpoint format (`fitsub.nmt`).
"""
