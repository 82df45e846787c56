"""Read and rewrite the piece list of a serialised SentencePiece model (`ModelProto`).

Only the protobuf wire format is used (no protobuf dependency): the model is a sequence of
top-level fields, of which field 1 (repeated `SentencePiece {1: piece, 2: score, 3: type}`) is
parsed and rewritten and every other field is copied byte for byte, except field 4
(`self_test_data`, samples of the original segmentation that a rewritten vocabulary may no
longer reproduce).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

# SentencePiece.Type (sentencepiece_model.proto)
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
_PIECES, _SELF_TEST = 1, 4


@dataclass(frozen=True)
class Piece:
    """One vocabulary entry of a SentencePiece model."""

    piece: str
    score: float = 0.0
    type: int = NORMAL


def _varint(data: bytes, i: int) -> tuple[int, int]:
    """(value, next offset) of the varint at `data[i]`."""
    value, shift = 0, 0
    while True:
        if i >= len(data) or shift > 63:
            raise ValueError("truncated or malformed protobuf varint")
        b = data[i]
        value |= (b & 0x7F) << shift
        i, shift = i + 1, shift + 7
        if b < 0x80:
            return value, i


def _put_varint(value: int) -> bytes:
    out = bytearray()
    while True:
        b, value = value & 0x7F, value >> 7
        out.append(b | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _fields(data: bytes) -> list[tuple[int, int, bytes, bytes]]:
    """(field number, wire type, payload, the field's raw bytes) of each top-level field."""
    out, i = [], 0
    while i < len(data):
        start = i
        key, i = _varint(data, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            _, i = _varint(data, i)
            payload = b""
        elif wire == 1:
            payload, i = data[i : i + 8], i + 8
        elif wire == 2:
            n, i = _varint(data, i)
            payload, i = data[i : i + n], i + n
        elif wire == 5:
            payload, i = data[i : i + 4], i + 4
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
        if i > len(data):
            raise ValueError("truncated protobuf message")
        out.append((number, wire, payload, data[start:i]))
    return out


def _parse_piece(data: bytes) -> Piece:
    piece, score, kind = "", 0.0, NORMAL
    for number, wire, payload, raw in _fields(data):
        if number == 1 and wire == 2:
            piece = payload.decode("utf-8")
        elif number == 2 and wire == 5:
            score = struct.unpack("<f", payload)[0]
        elif number == 3 and wire == 0:
            kind = _varint(raw, len(_put_varint((3 << 3) | 0)))[0]
    return Piece(piece, score, kind)


def _piece_bytes(p: Piece) -> bytes:
    text = p.piece.encode("utf-8")
    body = b"\x0a" + _put_varint(len(text)) + text
    body += b"\x15" + struct.pack("<f", p.score) + b"\x18" + _put_varint(p.type)
    return b"\x0a" + _put_varint(len(body)) + body


def read_pieces(model: bytes) -> list[Piece]:
    """The pieces of a serialised SentencePiece model, in id order."""
    return [_parse_piece(payload) for n, w, payload, _ in _fields(model) if n == _PIECES and w == 2]


def with_pieces(model: bytes, pieces: list[Piece]) -> bytes:
    """`model` with its piece list replaced by `pieces` (and no self-test samples)."""
    rest = [raw for n, _, _, raw in _fields(model) if n not in (_PIECES, _SELF_TEST)]
    return b"".join(_piece_bytes(p) for p in pieces) + b"".join(rest)
