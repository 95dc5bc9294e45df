"""The text a torch build's compiled libraries hold, and whether a message's fixed parts are in it.

A C++ message is written in the source as string literals with values streamed
between them (``TORCH_CHECK(ok, "element ", i, " of tensors ...")``); the
literals are stored whole in the library's read-only data (``.rodata``), each
ending with a NUL byte. So a message belongs to a build when each fixed part
of it (the text between its ``<...>``) is in that data, either as one literal
or as a few literals that follow one another in the part (a literal split
over two arguments). Only ``.rodata`` is read, from the ELF section table
(stdlib ``struct``): reading the libraries whole would take seconds more.
"""

from __future__ import annotations

import re
import struct
from pathlib import Path

LIBRARIES = ("libtorch_cpu.so", "libtorch_python.so", "libtorch.so", "libc10.so")
# A literal, in .rodata: printable ASCII (tabs and newlines too), at least 4 characters.
_LITERAL = re.compile(rb"[\x20-\x7e\t\n]{4,}")
# A piece may be covered by several literals; each must be this long (or the rest of the piece).
MIN_LITERAL = 8


def rodata(path: Path) -> bytes:
    """The ``.rodata`` sections of an ELF64 little-endian shared library (what the x86-64 and aarch64 wheels are)."""
    data = path.read_bytes()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError(f"{path}: not a 64-bit little-endian ELF library; cannot read its strings")
    section_offset, = struct.unpack_from("<Q", data, 0x28)
    entry_size, count, names_index = struct.unpack_from("<HHH", data, 0x3A)

    def section(index: int) -> tuple[int, int, int]:
        name, _type, _flags, _address, offset, size = struct.unpack_from(
            "<IIQQQQ", data, section_offset + index * entry_size)
        return name, offset, size

    _, names_offset, _ = section(names_index)
    found = []
    for index in range(count):
        name, offset, size = section(index)
        label = data[names_offset + name:data.index(b"\0", names_offset + name)]
        if label in (b".rodata", b".rodata.str1.1", b".rodata.str1.8"):
            found.append(data[offset:offset + size])
    return b"\0".join(found)  # empty for a stub library (libtorch.so only links the others)


def compiled_text(torch_dir: Path, headers: bool = True) -> str:
    """Every literal of the build's libraries (and, with ``headers``, the text of its C++ headers), NUL-separated."""
    parts = []
    for name in LIBRARIES:
        path = torch_dir / "lib" / name
        if path.is_file():
            parts.extend(_LITERAL.findall(rodata(path)))
    if not parts:
        raise ValueError(f"{torch_dir / 'lib'}: none of {', '.join(LIBRARIES)} is there; is this a torch package?")
    # Runs of spaces read as one, as in the data file's texts (a literal may end with a space that the next repeats).
    text = re.sub(" {2,}", " ", b"\0".join(parts).decode("ascii"))
    if headers:
        include = torch_dir / "include"
        text += "\0" + "\0".join(" ".join(path.read_text(encoding="utf-8", errors="replace").split())
                                 for path in sorted(include.rglob("*.h")))
    return text


# A literal that reads like an autograd message: one of these words, at least CANDIDATE_LENGTH characters, a space.
AUTOGRADISH = re.compile(
    r"(?i)\b(grads?|gradients?|backward|autograd|hooks?|leaf|requires_grad|in-?place|saved tensors?|checkpoint"
    r"|vmap|functorch|inference ?mode|inference tensors?|anomaly|reducer|find_unused_parameters|static_graph)\b")
CANDIDATE_LENGTH = 24
# Not a message a user reads: internal asserts, operator schemas, C++ names, paths, format strings, docs of the
# Caffe2/ONNX operators compiled into libtorch_cpu.
NOT_A_MESSAGE = re.compile(
    r"INTERNAL ASSERT FAILED|please report a bug|::|\(Tensor|->|\bSymInt\b|\.cpp\b|\.h\b|%[sd]|\{[a-z_]*\}"
    r"|^[a-z_]+\(|^_|Computes an one-layer|operator|\bONNX\b|onnx|caffe2|Caffe2|<br>|`[A-Z]_?\d?`")


def candidates(torch_dir: Path, texts: list[str]) -> tuple[int, list[str]]:
    """The number of literals in the build's libraries, and those that read like an autograd message
    (``AUTOGRADISH``, not ``NOT_A_MESSAGE``) and that no text of ``texts`` covers: the literal is in the text,
    or a fixed part of the text (15 characters or more) is in the literal. Many are fragments of a message
    streamed in several literals or internal; the list is for review, not a failure."""
    literals = set()
    for name in LIBRARIES:
        path = torch_dir / "lib" / name
        if path.is_file():
            literals.update(" ".join(raw.decode("ascii").split()) for raw in _LITERAL.findall(rodata(path)))
    listed = "\0".join(texts)
    pieces = {piece for text in texts for piece in literal_pieces(text) if len(piece) >= 15}
    found = []
    for literal in sorted(literals):
        if len(literal) < CANDIDATE_LENGTH or " " not in literal or not AUTOGRADISH.search(literal):
            continue
        if NOT_A_MESSAGE.search(literal) or literal.strip(" ,.;:'") in listed:
            continue
        if any(piece in literal for piece in pieces):
            continue
        found.append(literal)
    # Whole sentences first (a capital, six words or more, a full stop): fragments of a streamed message after.
    return len(literals), sorted(found, key=lambda literal: (not is_sentence(literal), literal))


def is_sentence(literal: str) -> bool:
    return re.match(r"[A-Z][a-z]", literal) is not None and len(literal.split()) >= 6 and literal.endswith(".")


def missing_part(piece: str, text: str) -> str | None:
    """``None`` when ``piece`` is in ``text`` as one literal or as consecutive literals; else what is not.

    A piece that no literal holds whole is read as literals that follow one another: every part but the last
    must end a literal, and every part but the first must begin one or end one (the linker stores a literal
    that ends another only once, inside it). Between two parts, spaces and up to three other characters
    that are not letters or digits may be skipped (a lone ``-`` or ``, `` is a literal too short to read).
    So a short tail such as ``)`` is not found just anywhere, nor a reworded ending."""
    if piece in text:
        return None
    start, skipped = 0, 0
    while start < len(piece):
        low, high = 0, len(piece) - start  # the longest prefix of piece[start:] that is in text
        while low < high:
            middle = (low + high + 1) // 2
            if piece[start:start + middle] in text:
                low = middle
            else:
                high = middle - 1
        rest = len(piece) - start
        # That prefix, or a shorter one ending at a word, that is a literal's part as the rules above say.
        lengths = [low] + [i for i in range(low - 1, 0, -1) if piece[start + i] == " " and i >= MIN_LITERAL]
        length = next((n for n in lengths if n >= min(MIN_LITERAL, rest) and _a_literals_part(
            piece[start:start + n], text, first=start == 0, last=n == rest)), None)
        if length is None:
            if start > 0 and skipped < 3 and not piece[start].isalnum():
                start += 1  # a short literal between two parts
                skipped += 1
                continue
            return piece[start:]
        start += length
        skipped = 0
        while start < len(piece) and piece[start] == " ":
            start += 1
    return None


def _a_literals_part(part: str, text: str, first: bool, last: bool) -> bool:
    ends = any(part + end in text for end in ("\0", " \0", ".\0"))
    begins = first or "\0" + part in text or "\0 " + part in text
    return (last or ends) and (begins or ends and len(part) >= MIN_LITERAL)


def literal_pieces(message: str) -> list[str]:
    """The fixed parts of a message (between its ``<...>``), without the punctuation at their ends: a lone
    ``,`` or ``.`` streamed between two values is its own short literal, which says nothing."""
    pieces = (piece.strip(" ,.;:'\"()[]`") for piece in re.split(r"<[^<>]*>", message))
    return [piece for piece in pieces if piece]


def literal_misses(message: str, text: str) -> list[str]:
    """The fixed parts of ``message`` that ``text`` (``compiled_text``) lacks, each from where it stops matching."""
    return [part for piece in literal_pieces(message) if (part := missing_part(piece, text)) is not None]
