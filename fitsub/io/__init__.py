"""Files in and out, by concern: `atomic` (writes that readers never see half done), `outputs`
(where outputs go: their names and the checks before any work), `text` (line-aligned text and a
model's gzip word lists), `unpack` (decompression bounded by the bytes that come out)."""
