"""Text normalization and tokenization: the one specification both search engines follow.

comprules' own code (no whoosh). The Python engine (this package) and the site's
JavaScript ranker (``site/static/search.js``) implement these steps identically;
``tests/test_search_site.py`` checks it on every word and every character of the
corpus, in chromium.

1. **Fold** each code point on its own (so offsets can be mapped back):
   lowercase it (``str.lower`` / ``toLowerCase``), decompose it for compatibility
   (NFKD: the ligature "ﬂ" → "fl", "²" → "2", a fullwidth "Ａ" → "a"), drop every
   combining mark (Unicode category M: accents, whether typed precomposed, NFC, or
   decomposed, NFD), then spell out the letters NFKD leaves whole (:data:`SPELLED`:
   æ → ae, œ → oe, ß → ss…). NFC, NFD and NFKC spellings of a text fold alike.
2. **Tokenize** the folded text (:data:`TOKEN`): a mana or tap symbol in braces as one
   token (``{t}``, ``{2}``, ``{w/u}``), else a run of letters and digits, with inner
   dots kept (``702.37a``, ``613.1g``, ``1.5``). Digits and single characters are
   tokens too ("layer 7"). Chinese, written without spaces, is cut into words: each run
   of Han characters inside a token is segmented against the active vocabulary
   (:func:`comprules.segment.active`: the index's own, made from its Chinese editions
   by jieba's method, integer scores), the rest of the token tokenized again
   ("规则702.19b所述" → 规则, 702.19b, 所述).
3. Each language (:mod:`.languages`) then drops its stop words and stems its words;
   numbers and symbols are never stemmed.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from comprules.segment import active

#: Letters NFKD leaves whole, spelled out after folding.
SPELLED = {"æ": "ae", "œ": "oe", "ß": "ss", "ø": "o", "ł": "l", "đ": "d", "ð": "d", "þ": "th", "ı": "i"}

#: A token of folded text: a symbol in braces, or letters and digits with inner dots.
TOKEN = re.compile(r"\{[^{}\s]{1,6}\}|[^\W_]+(?:\.[^\W_]+)*")
_DIGIT = re.compile(r"[0-9]")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_HAN_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


def _pieces(token: str, start: int) -> list[tuple[int, int, str]]:
    """A token holding Han characters, cut: its Han runs into words, the rest re-tokenized."""
    out: list[tuple[int, int, str]] = []
    pos = 0
    seg = active()
    for m in _HAN_RUN.finditer(token):
        if m.start() > pos:
            out.extend(
                (start + pos + t.start(), start + pos + t.end(), t.group())
                for t in TOKEN.finditer(token, pos, m.start())
            )
        run = m.group()
        out.extend((start + m.start() + a, start + m.start() + b, run[a:b]) for a, b in seg.spans(run))
        pos = m.end()
    if pos < len(token):
        out.extend((start + t.start(), start + t.end(), t.group()) for t in TOKEN.finditer(token, pos))
    return out


def _matches(folded: str) -> list[tuple[int, int, str]]:
    """(start, end, token) of every token of folded text, Han runs segmented."""
    if _HAN.search(folded) is None:
        return [(m.start(), m.end(), m.group(0)) for m in TOKEN.finditer(folded)]
    out: list[tuple[int, int, str]] = []
    for m in TOKEN.finditer(folded):
        token = m.group(0)
        if _HAN.search(token) is None:
            out.append((m.start(), m.end(), token))
        else:
            out.extend(_pieces(token, m.start()))
    return out


@lru_cache(maxsize=None)
def fold_char(ch: str) -> str:
    """The folded form of one code point (possibly empty or several characters).

    >>> fold_char("É"), fold_char("\\u0301"), fold_char("ﬂ"), fold_char("Æ")
    ('e', '', 'fl', 'ae')
    """
    out = "".join(c for c in unicodedata.normalize("NFKD", ch.lower()) if not unicodedata.category(c).startswith("M"))
    return "".join(SPELLED.get(c, c) for c in out)


class _FoldTable(dict):
    def __missing__(self, code: int) -> str:
        value = self[code] = fold_char(chr(code))
        return value


_TABLE = _FoldTable()


def fold(text: str) -> str:
    """Fold ``text`` code point by code point (see the module doc).

    >>> fold("Créature BLOQUÉE"), fold("cre\\u0301ature"), fold("ﬂying Æther")
    ('creature bloquee', 'creature', 'flying aether')
    """
    return text.translate(_TABLE)


def tokens(text: str) -> list[str]:
    """The tokens of ``text``, folded.

    >>> tokens("Layer 7: {T}, {W/U} — see rule 613.1g. Piétinement’s")
    ['layer', '7', '{t}', '{w/u}', 'see', 'rule', '613.1g', 'pietinement', 's']
    >>> from comprules.segment import EMPTY, Segmenter, using
    >>> with using(Segmenter.from_texts(["如规则702.19b所述，具有践踏的生物"], ["践踏"])):
    ...     tokens("如规则702.19b所述，具有践踏的生物")
    ['如', '规则', '702.19b', '所述', '具有', '践踏', '的', '生物']
    >>> with using(EMPTY):  # no Chinese edition in the knowledge base: a character a word
    ...     tokens("具有践踏")
    ['具', '有', '践', '踏']
    """
    folded = fold(text)
    if _HAN.search(folded) is None:
        return TOKEN.findall(folded)
    return [t for _, _, t in _matches(folded)]


def token_spans(text: str) -> list[tuple[int, int, str]]:
    """Each token of ``text`` with the (start, end) offsets of its characters in ``text``.

    >>> token_spans("ﬂying Æther")
    [(0, 5, 'flying'), (6, 11, 'aether')]
    """
    if all(len(_TABLE[ord(c)]) == 1 for c in set(text)):  # each character folds to one
        return _matches(text.translate(_TABLE))
    pieces = [fold_char(c) for c in text]
    folded = "".join(pieces)
    start_of, end_of = [], []  # folded index → original start / end
    for i, piece in enumerate(pieces):
        start_of += [i] * len(piece)
        end_of += [i + 1] * len(piece)
    return [(start_of[s], end_of[e - 1], t) for s, e, t in _matches(folded)]


def is_han(token: str) -> bool:
    """Whether a token is Chinese (holds a Han character)."""
    return _HAN.search(token) is not None


def is_word(token: str) -> bool:
    """Whether a token is a word (stemmed, checked against stop words), not a number or symbol."""
    return token[:1] != "{" and _DIGIT.search(token) is None


def heading_key(text: str) -> str:
    """How a heading or a whole query is compared with headwords: its tokens, one space apart.

    >>> heading_key("  State-based   ACTIONS? "), heading_key("Piétinement")
    ('state based actions', 'pietinement')
    """
    return " ".join(tokens(text))
