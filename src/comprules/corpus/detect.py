"""Detect a document's language and effective date from its text.

The phrases come from the language table (:mod:`comprules.languages`): the header's
"These rules are effective as of August 7, 2026." (from 2009-07-11 on), "These rules
are current as of May 1, 2009." (before), French "Ces règles entrent en vigueur au 1er
mai 2006" or "Ces règles sont datées du …", Chinese "此规则于2026年4月17日起生效".
The 1999-04-23 banner "COMPREHENSIVE RULES … 04/23/99" is read here. The language is
the text's own (Chinese by its script, English and French by their function words),
never a folder's name.
"""

from __future__ import annotations

import re
from datetime import date

from .. import languages

_BANNER_DATE = re.compile(r"COMPREHENSIVE RULES\s+(?P<m>\d\d)/(?P<d>\d\d)/(?P<y>\d\d)\b")


def detect_language(text: str) -> str:
    """``"zh"``, ``"fr"`` or ``"en"`` (:func:`comprules.languages.detect`, first 20,000 characters)."""
    return languages.detect(text)


def detect_effective_date(text: str, lang: str | None = None) -> date | None:
    """The effective date printed in the document's first 5,000 characters, or ``None``.

    A fragment (a forum post quoting rules) usually has none.
    """
    head = text[:5000]
    found = languages.effective_date(head, lang)
    if found is not None:
        return found
    m = _BANNER_DATE.search(head)
    if m:
        year = int(m.group("y"))
        year += 1900 if year >= 90 else 2000
        try:
            return date(year, int(m.group("m")), int(m.group("d")))
        except ValueError:
            return None
    return None
