"""Languages as data: the per-language forms every stage reads (DESIGN.md).

One table per language in ``comprules/data/languages.toml``: English, French and
Simplified Chinese are its three rows. The parser takes the effective-date phrases,
the example, glossary, credits and obsolete words from it; the reference extractor
its citing words; the indexer the analyzer's name; the site its interface strings,
``lang`` tag, font stack and, for a community translation, the notice that says so.
Adding a language is adding a table there; no stage compares language codes of its
own (a language without a table reads as English).

>>> get("zh").html, get("zh").glossary, get("fr").example_mark
('zh-Hans', ('词汇表',), 'Exemple :')
>>> effective_date("此规则于2026年4月17日起生效。")
datetime.date(2026, 4, 17)
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache
from pathlib import Path

__all__ = ["Language", "get", "codes", "all_languages", "detect", "effective_date", "DEFAULT"]

LANGUAGES_FILE = "languages.toml"
#: The language of a text no table recognises, and of a code without a table.
DEFAULT = "en"


@dataclass(frozen=True)
class Language:
    """One row of the table (see the comments of ``languages.toml`` for each key).

    ``effective`` holds the compiled effective-date patterns (groups ``year``,
    ``month``, ``day``; a month is a number or a word of ``months``).
    """

    code: str
    name: str
    html: str
    community: bool
    detect: str
    words: tuple[str, ...]
    script: str | None
    effective: tuple[re.Pattern, ...]
    months: dict[str, int]
    example: tuple[str, ...]
    example_colons: tuple[str, ...]
    example_mark: str
    glossary: tuple[str, ...]
    credits: tuple[str, ...]
    obsolete: tuple[str, ...]
    see_rule: str
    rule_words: tuple[str, ...]
    section_words: tuple[str, ...]
    see_words: tuple[str, ...]
    list_words: tuple[str, ...]
    analyzer: str
    stem: str
    fonts: str
    labels: dict[str, str] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)
    notice: str = ""
    notice_en: str = ""

    @property
    def spaced(self) -> bool:
        """True when words are written apart (English, French); false for Chinese."""
        return self.detect != "script"


def _row(code: str, raw: dict) -> Language:
    t = lambda key: tuple(raw.get(key, ()))  # noqa: E731
    return Language(
        code=code,
        name=raw["name"],
        html=raw.get("html", code),
        community=bool(raw.get("community")),
        detect=raw.get("detect", "function-words"),
        words=t("words"),
        script=raw.get("script"),
        effective=tuple(re.compile(p, re.IGNORECASE) for p in raw.get("effective", ())),
        months={k.casefold(): int(v) for k, v in raw.get("months", {}).items()},
        example=t("example"),
        example_colons=t("example_colons") or (":",),
        example_mark=raw.get("example_mark", "Example:"),
        glossary=t("glossary"),
        credits=t("credits"),
        obsolete=t("obsolete"),
        see_rule=raw.get("see_rule", ""),
        rule_words=t("rule_words"),
        section_words=t("section_words"),
        see_words=t("see_words"),
        list_words=t("list_words"),
        analyzer=raw.get("analyzer", "english"),
        stem=raw.get("stem", ""),
        fonts=raw.get("fonts", "sans-serif"),
        labels=dict(raw.get("labels", {})),
        kinds=dict(raw.get("kinds", {})),
        notice=raw.get("notice", ""),
        notice_en=raw.get("notice_en", ""),
    )


@lru_cache(maxsize=1)
def _table() -> dict[str, Language]:
    # read beside this module, not through importlib.resources, whose import (zipfile,
    # tempfile) costs a short command such as `comprules show` about 10 ms
    with (Path(__file__).parent / "data" / LANGUAGES_FILE).open("rb") as fh:
        data = tomllib.load(fh)
    table = {code: _row(code, raw) for code, raw in data.items()}
    english = table[DEFAULT]
    for lang in table.values():  # an untranslated interface string shows in English
        for key, value in english.labels.items():
            lang.labels.setdefault(key, value)
        for key, value in english.kinds.items():
            lang.kinds.setdefault(key, value)
    return table


def get(code: str | None) -> Language:
    """The row of ``code`` (``en``, ``fr``, ``zh``); English for a code without one."""
    table = _table()
    return table.get(code or DEFAULT) or table[DEFAULT]


def codes() -> tuple[str, ...]:
    """The languages of the table, in its order (``("en", "fr", "zh")``)."""
    return tuple(_table())


def all_languages() -> tuple[Language, ...]:
    """Every row, in the table's order."""
    return tuple(_table().values())


@lru_cache(maxsize=None)
def _words_pattern(code: str) -> re.Pattern:
    words = sorted(get(code).words, key=len, reverse=True)
    return re.compile(r"\b(?:" + "|".join(map(re.escape, words)) + r")\b")


@lru_cache(maxsize=None)
def _script_pattern(code: str) -> re.Pattern:
    return re.compile(get(code).script or r"(?!)")


#: A text is in a script language when at least this share of its letters are of its script.
SCRIPT_SHARE = 0.3


def detect(text: str) -> str:
    """The language of ``text`` by its first 20,000 characters.

    A language of ``detect = "script"`` (Chinese) wins when that share of the sample's
    letters (:data:`SCRIPT_SHARE`) are of its script; otherwise the language whose
    function words are the most frequent (English among equals).

    >>> detect("100.1. 万智牌规则适用于牌手的游戏"), detect("Ces règles sont la loi")
    ('zh', 'fr')
    """
    sample = text[:20000]
    letters = sum(1 for ch in sample if ch.isalpha()) or 1
    for lang in all_languages():
        if lang.detect == "script" and len(_script_pattern(lang.code).findall(sample)) / letters >= SCRIPT_SHARE:
            return lang.code
    lowered = sample.lower()
    best, best_n = DEFAULT, -1
    for lang in all_languages():
        if lang.detect != "function-words":
            continue
        n = len(_words_pattern(lang.code).findall(lowered))
        if n > best_n or (n == best_n and lang.code == DEFAULT):
            best, best_n = lang.code, n
    return best


def _safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def effective_date(head: str, lang: str | None = None) -> date | None:
    """The first effective date any language's phrases find in ``head`` (``lang``'s first).

    >>> effective_date("These rules are effective as of August 7, 2026."), effective_date("Ces règles entrent en vigueur au 1er mai 2006")
    (datetime.date(2026, 8, 7), datetime.date(2006, 5, 1))
    """
    order = [get(lang)] if lang else []
    order += [row for row in all_languages() if row.code != lang]
    for row in order:
        for pattern in row.effective:
            m = pattern.search(head)
            if m is None:
                continue
            month = m.group("month")
            number = int(month) if month.isdigit() else row.months.get(month.casefold())
            if number is None:
                continue
            return _safe_date(int(m.group("year")), number, int(m.group("day")))
    return None
