"""Decode a source file's bytes into text with ``\\n`` line endings.

The CR was published over 27 years in UTF-8 (with and without BOM), UTF-16 LE/BE
with BOM, Windows-1252, Mac Roman and CP437, with CRLF, lone CR (2004–2007 and
2022–2026 files), LF or a mix. ``charset-normalizer`` gives the first opinion; since
single-byte code pages are nearly indistinguishable statistically (the 2006-07-15
file holds two non-ASCII bytes in 400 KB), its guess is *guarded*: each plausible
code page is scored on the characters a CR text really contains (curly quotes,
dashes, ™, the accented letters of card names such as "Dandân") and the best wins.
"""

from __future__ import annotations

import codecs
import os
import re
from dataclasses import dataclass

import charset_normalizer

from ..errors import SourceError

#: Characters that occur in real CR and French rules text beyond ASCII.
_GOOD = set("‘’“”–—…•™®©«»°×½àâäáãåæçéèêëíìîïñóòôöõøœùûüúÿÀÂÄÁÅÆÇÉÈÊËÍÎÏÑÓÔÖØŒÙÛÜÚ\u00a0\u2009\u202f")
#: Single-byte code pages a CR text file was seen in, most likely first.
_SINGLE_BYTE = ("cp1252", "mac_roman", "cp437")
_ALIASES = {"windows-1252": "cp1252", "mac-roman": "mac_roman", "ibm437": "cp437"}


@dataclass(frozen=True, slots=True)
class Decoded:
    """Decoded text (``\\n`` line endings, no BOM) and what was found."""

    text: str
    encoding: str
    line_endings: str  # "LF", "CRLF", "CR" or "mixed"


def _line_endings(raw: str) -> str:
    crlf = raw.count("\r\n")
    cr = raw.count("\r") - crlf
    lf = raw.count("\n") - crlf
    kinds = [name for name, n in (("CRLF", crlf), ("CR", cr), ("LF", lf)) if n]
    return kinds[0] if len(kinds) == 1 else ("mixed" if kinds else "LF")


def normalize_newlines(text: str) -> str:
    """CRLF and lone CR become LF (a file mixing the three is handled too)."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


_NON_ASCII = re.compile(rb"(?s)(.?)([\x80-\xff])")


def _plausibility(ch: str, before: bytes) -> int:
    """Score one decoded non-ASCII character in its byte context (CR text habits).

    An accented capital right after a lowercase ASCII letter ("DandÉn") is the tell of
    a wrong code page, as are symbols that never occur in rules text. Punctuation
    (curly quotes, dashes, ™) weighs more than accented letters: English rules text
    uses it thousands of times, card names with accents a handful.
    """
    if ch not in _GOOD:
        return -2
    if ch.isupper() and before.islower():
        return -2
    return 1 if ch.isalpha() else 2


def _single_byte(data: bytes) -> str:
    guess = charset_normalizer.from_bytes(data[:200_000], cp_isolation=None).best()
    order = list(_SINGLE_BYTE)
    if guess is not None:
        name = _ALIASES.get(guess.encoding.replace("_", "-"), guess.encoding)
        name = codecs.lookup(name).name if name else name
        if name in order:
            order.remove(name)
            order.insert(0, name)
    best, best_score = None, None
    for enc in order:
        table = {b: bytes([b]).decode(enc, errors="replace") for b in range(128, 256)}
        if any(table[b] == "\ufffd" for b in set(data) if b >= 128):
            continue  # a byte this code page leaves undefined
        score = sum(_plausibility(table[m.group(2)[0]], m.group(1)) for m in _NON_ASCII.finditer(data))
        if best_score is None or score > best_score:
            best, best_score = enc, score
    return best or "cp1252"


def decode_bytes(data: bytes, path: str = "<bytes>") -> Decoded:
    """Decode one source file's bytes.

    Raises :class:`SourceError` (naming ``path``) for empty or binary input: NUL bytes
    outside a UTF-16 file, a PDF/ZIP/other binary signature.
    """
    if not data.strip():
        raise SourceError(path, "empty file, no text to parse", 1)
    if data.startswith(codecs.BOM_UTF8):
        enc, body = "utf-8-sig", data[3:]
        text = body.decode("utf-8", errors="strict") if _is_utf8(body) else None
        if text is None:
            raise SourceError(path, "UTF-8 BOM but invalid UTF-8 bytes", _bad_utf8_line(body))
    elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        enc = "utf-16-le" if data.startswith(codecs.BOM_UTF16_LE) else "utf-16-be"
        body = data[2:]
        if len(body) % 2:
            raise SourceError(
                path,
                f"{enc.upper()} file with an odd number of bytes (truncated)",
                _utf16_line(body, enc, len(body) - 1),
            )
        try:
            text = body.decode(enc)
        except UnicodeDecodeError as exc:
            raise SourceError(
                path, f"invalid {enc.upper()} text ({exc.reason})", _utf16_line(body, enc, exc.start)
            ) from None
    else:
        _reject_binary(data, path)
        if _is_utf8(data):
            enc, text = "utf-8", data.decode("utf-8")
        else:
            _reject_broken_utf8(data, path)
            enc = _single_byte(data)
            text = data.decode(enc)
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise SourceError(path, "NUL character in text: binary or wrongly encoded file", line)
    return Decoded(normalize_newlines(text), enc, _line_endings(text))


_MAGIC = {
    b"%PDF": "a PDF document",
    b"PK\x03\x04": "a ZIP archive (DOCX?)",
    b"\x7fELF": "an executable",
    b"\x89PNG": "a PNG image",
    b"\xff\xd8\xff": "a JPEG image",
    b"GIF8": "a GIF image",
    b"\x1f\x8b": "a gzip archive",
    b"{\\rtf": "an RTF document",
    b"\xd0\xcf\x11\xe0": "an old Word (OLE) document",
}


def _reject_binary(data: bytes, path: str) -> None:
    for magic, what in _MAGIC.items():
        if data.startswith(magic):
            raise SourceError(path, f"{what}, not a text file", 1)
    head = data[:65536]
    if b"\x00" in head:
        line = head.count(b"\n", 0, head.index(b"\x00")) + 1
        raise SourceError(path, "binary content (NUL bytes), not a text document", line)
    controls = sum(1 for b in head if b < 32 and b not in (9, 10, 12, 13))
    if controls > max(8, len(head) // 200):
        raise SourceError(path, "binary content (control bytes), not a text document", 1)


_UTF8_MULTIBYTE = re.compile(rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}")


def _reject_broken_utf8(data: bytes, path: str) -> None:
    """Refuse UTF-8 text with a few invalid bytes rather than read it in a code page.

    A file that is not valid UTF-8 but holds many valid UTF-8 sequences (curly quotes
    ``’`` are three bytes each) is damaged UTF-8, not Windows-1252 or Mac Roman: read
    in a code page, every quote of the edition would turn to mojibake ("it‚Äôs").
    """
    valid = len(_UTF8_MULTIBYTE.findall(data, 0, 2_000_000))
    if valid < 3:
        return
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise SourceError(
            path,
            f"invalid UTF-8 byte 0x{data[exc.start]:02X} in UTF-8 text ({valid} valid UTF-8 characters): damaged file",
            line,
        ) from None


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _utf16_line(body: bytes, enc: str, offset: int) -> int:
    """The line (1-based) of byte ``offset`` of UTF-16 text, for error messages."""
    return body[: offset - offset % 2].decode(enc, errors="replace").count("\n") + 1


def _bad_utf8_line(data: bytes) -> int:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return data.count(b"\n", 0, exc.start) + 1
    return 1


def decode_file(path: str | os.PathLike[str]) -> Decoded:
    """Read and decode one file; :class:`SourceError` if unreadable or binary."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise SourceError(str(path), exc.strerror or str(exc)) from None
    return decode_bytes(data, str(path))
