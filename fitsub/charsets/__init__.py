"""Reading text in its encoding: detection (`detect`) and BOM-less UTF-16 / UTF-32 (`wide`)."""
