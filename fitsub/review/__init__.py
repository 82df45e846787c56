"""The review loop: the TSV (`tsv`), the HTML page (`page`), the edits file (`edits`, read by `strict_json`) and `fitsub apply` (`apply`)."""
