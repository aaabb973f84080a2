"""Read the CR as published in PDF (pypdf) and DOCX (python-docx).

Both give plain text that the ordinary parser reads: the DOCX one paragraph per line
(like the TXT), the PDF hard-wrapped at the page width with a blank line between
paragraphs (like the 2003 TXT editions), which the parser rejoins.

The PDF needs three repairs before parsing, each seen in the 2025-02-07 PDF:

* page numbers alone on a line are dropped;
* each chapter starts a new page with no blank line before its heading ("2. Parts of
  a Card" right after the last line of 123.9), so a blank line is put back at a page
  break whose first line is a chapter or section heading;
* a line cut right after a dash ("occurs—" / "unless", "601.2f–" / "h", "[-" / "N]")
  is joined to the next one without a space; a spaced dash ("Creature —" / "Goblin")
  keeps its space. Compounds cut at their hyphen ("turn-" / "based") are joined by the
  parser itself.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from ..errors import SourceError

_PAGE_NUMBER = re.compile(r"^\s*\d{1,3}\s*$")
# The first line of a page that must start a paragraph: "2. Parts of a Card", "800. General".
_PAGE_HEADING = re.compile(r"^(?:\d\.|\d{3}\.)[ \t]+[^\W\d_][^.]{0,80}$")
# A line cut right after an unspaced dash: joined to the next line without a space.
_CUT_AT_DASH = re.compile(r"\S[-–—]$")


def pdf_pages(path: Path) -> list[str]:
    """The text of each page of a PDF (pypdf). :class:`SourceError` if unreadable."""
    try:
        import pypdf
    except ImportError:  # pragma: no cover - pypdf is a dependency
        raise SourceError(str(path), "reading PDF needs pypdf (pip install pypdf)") from None
    try:
        reader = pypdf.PdfReader(str(path))
        return [page.extract_text() or "" for page in reader.pages]
    except Exception as exc:  # pypdf raises many unrelated types on damaged files
        raise SourceError(str(path), f"unreadable PDF ({type(exc).__name__}: {exc})") from None


def pdf_text(pages: list[str]) -> str:
    """Join the pages' text into parser input: page numbers dropped, headings and dashes repaired."""
    lines: list[str] = []
    for page in pages:
        first = True
        for line in page.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
            if _PAGE_NUMBER.match(line):
                continue
            line = line.rstrip()
            if first and line:
                if lines and lines[-1] and _PAGE_HEADING.match(line):
                    lines.append("")
                first = False
            if lines and line and not line[0].isspace() and _CUT_AT_DASH.search(lines[-1]):
                lines[-1] += line
                continue
            lines.append(line)
    return "\n".join(lines)


def read_pdf(path: Path) -> str:
    """Text of every page of a PDF, ready for the parser. :class:`SourceError` if unreadable."""
    return pdf_text(pdf_pages(path))


def read_docx(path: Path) -> str:
    """Text of a DOCX, one paragraph per line. :class:`SourceError` if unreadable."""
    try:
        import docx
    except ImportError:  # pragma: no cover - python-docx is a dependency
        raise SourceError(str(path), "reading DOCX needs python-docx (pip install python-docx)") from None
    try:
        document = docx.Document(str(path))
    except Exception as exc:  # zipfile, lxml and docx errors alike
        raise SourceError(str(path), f"unreadable DOCX ({type(exc).__name__}: {exc})") from None
    return "\n".join(p.text.replace("\r", "\n").replace("\v", "\n") for p in document.paragraphs)


def read_document(path: Path) -> tuple[str, str]:
    """``(text, sha256 of the file's bytes)`` of a PDF or DOCX file."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SourceError(str(path), exc.strerror or str(exc)) from None
    if not data:
        raise SourceError(str(path), "empty file, no text to parse")
    text = read_pdf(path) if path.suffix.lower() == ".pdf" else read_docx(path)
    if not text.strip():
        raise SourceError(str(path), "no text in document (scanned images?)")
    return text, hashlib.sha256(data).hexdigest()
