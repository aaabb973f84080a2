"""Detect a document's language and effective date from its text.

The effective date is printed in the header as "These rules are effective as of
August 7, 2026." (from 2009-07-11 on), "These rules are current as of May 1, 2009."
(before), in the 1999-04-23 banner as "COMPREHENSIVE RULES … 04/23/99", and in French
as "Ces règles entrent en vigueur au 1er mai 2006" or "Ces règles sont datées du …".
"""

from __future__ import annotations

import re
from datetime import date

EN_MONTHS = {
    m: i
    for i, m in enumerate(
        "january february march april may june july august september october november december".split(),
        start=1,
    )
}
FR_MONTHS = {
    "janvier": 1, "février": 2, "fevrier": 2, "mars": 3, "avril": 4, "mai": 5, "juin": 6,
    "juillet": 7, "août": 8, "aout": 8, "septembre": 9, "octobre": 10, "novembre": 11,
    "décembre": 12, "decembre": 12,
}  # fmt: skip

_EN_DATE = re.compile(
    r"(?:effective|current) as of (?P<month>[A-Z][a-z]+) (?P<day>\d{1,2}), (?P<year>\d{4})",
)
_FR_DATE = re.compile(
    r"Ces r[èe]gles (?:entrent en vigueur (?:au|le)|sont dat[ée]es du|sont valables (?:au|à partir du))\s+"
    r"(?P<day>\d{1,2})(?:er)?\s+(?P<month>[a-zéû]+)\s+(?P<year>\d{4})",
    re.IGNORECASE,
)
_BANNER_DATE = re.compile(r"COMPREHENSIVE RULES\s+(?P<m>\d\d)/(?P<d>\d\d)/(?P<y>\d\d)\b")

_FR_WORDS = re.compile(r"\b(?:le|la|les|des|une|est|et|du|que|qui|dans|pour|sur|règle|règles|carte|capacité)\b")
_EN_WORDS = re.compile(r"\b(?:the|of|and|is|a|to|that|in|for|on|rule|rules|card|ability)\b")


def detect_language(text: str) -> str:
    """``"fr"`` or ``"en"``, by the share of common function words in the first 20,000 characters."""
    sample = text[:20000].lower()
    fr = len(_FR_WORDS.findall(sample))
    en = len(_EN_WORDS.findall(sample))
    return "fr" if fr > en else "en"


def _safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def detect_effective_date(text: str, lang: str | None = None) -> date | None:
    """The effective date printed in the document's first 5,000 characters, or ``None``.

    A fragment (a forum post quoting rules) usually has none.
    """
    head = text[:5000]
    m = _EN_DATE.search(head)
    if m and m.group("month").lower() in EN_MONTHS:
        return _safe_date(int(m.group("year")), EN_MONTHS[m.group("month").lower()], int(m.group("day")))
    m = _FR_DATE.search(head)
    if m and m.group("month").lower() in FR_MONTHS:
        return _safe_date(int(m.group("year")), FR_MONTHS[m.group("month").lower()], int(m.group("day")))
    m = _BANNER_DATE.search(head)
    if m:
        year = int(m.group("y"))
        year += 1900 if year >= 90 else 2000
        return _safe_date(year, int(m.group("m")), int(m.group("d")))
    return None
