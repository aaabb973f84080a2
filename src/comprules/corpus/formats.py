"""Read the CR as published in PDF (pypdf) and DOCX (python-docx).

Both give plain text that the ordinary parser reads: the DOCX one paragraph per line
(like the TXT), the PDF hard-wrapped at the page width with a blank line between
paragraphs (like the 2003 TXT editions), which the parser rejoins.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from ..errors import SourceError

_PAGE_NUMBER = re.compile(r"^\s*\d{1,3}\s*$")


def read_pdf(path: Path) -> str:
    """Text of every page of a PDF, page numbers dropped. :class:`SourceError` if unreadable."""
    try:
        import pypdf
    except ImportError:  # pragma: no cover - pypdf is a dependency
        raise SourceError(str(path), "reading PDF needs pypdf (pip install pypdf)") from None
    try:
        reader = pypdf.PdfReader(str(path))
        pages = [page.extract_text() or "" for page in reader.pages]
    except Exception as exc:  # pypdf raises many unrelated types on damaged files
        raise SourceError(str(path), f"unreadable PDF ({type(exc).__name__}: {exc})") from None
    lines: list[str] = []
    for page in pages:
        for line in page.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
            if _PAGE_NUMBER.match(line):
                continue
            lines.append(line.rstrip())
    return "\n".join(lines)


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
    data = path.read_bytes()
    if not data:
        raise SourceError(str(path), "empty file, no text to parse")
    text = read_pdf(path) if path.suffix.lower() == ".pdf" else read_docx(path)
    if not text.strip():
        raise SourceError(str(path), "no text in document (scanned images?)")
    return text, hashlib.sha256(data).hexdigest()
