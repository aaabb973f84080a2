"""Read a built knowledge base: list editions, name them, load them, show one rule.

An edition is named ``en/2026-08-07``, ``2026-08-07`` (language inferred when
unique), ``en/latest``, ``fr/003_816c607ad111474a`` (a fragment, by file stem), or
by a source file path, parsed on the fly (DESIGN.md, "Command line").
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from . import export, languages
from .errors import NotFound, UsageError, echo
from .export import names_a_file
from .model import Edition, Rule, fold_name, normalize_number, restored_words, sort_key

if TYPE_CHECKING:
    from .store import Store
    from .store.read import EditionRows


def default_kb() -> Path:
    """``$COMPRULES_KB`` or, unset or empty, ``./build``."""
    import os

    return Path(os.environ.get("COMPRULES_KB") or "build")


_ISO_DATE = re.compile(r"^\d{4}-\d\d-\d\d$")


@dataclass(frozen=True)
class EditionInfo:
    """One line of ``data/editions.json``, with the published facts of its date.

    ``set`` and ``code`` (``"Bloomburrow"``, ``"BLB"``) and ``file_date`` (the date in
    the official file name, ``2024-08-02`` for 2024-07-30) come from
    ``data/editions.toml`` for the edition of that effective date (a translation has
    those of the English edition it translates); empty or ``None`` when unknown.
    """

    name: str
    lang: str
    kind: str
    effective: str | None
    title: str
    path: str
    rules: int = 0
    glossary: int = 0
    set: str = ""
    code: str | None = None
    file_date: str | None = None

    @property
    def stem(self) -> str:
        """``2024-07-30`` of ``en/2024-07-30``."""
        return self.name.split("/", 1)[1]

    @property
    def code_given(self) -> str | None:
        """The code the edition goes by (the Academy Ruins routes, ``/ar/metadata/cr``'s
        ``setCode``): its set's code (``BLB``), or for a dated edition released without a
        known one, ``C`` and the year and month of its effective date (``C2608`` for
        2026-08-07; no two editions of one language share a month without a code, and no
        set code has that shape); ``None`` for an undated document."""
        if self.code:
            return self.code
        return f"C{self.effective[2:4]}{self.effective[5:7]}" if self.effective else None

    def to_json(self) -> dict:
        """``{"name", "lang", "kind", "effective", "title", "set", "code", "file_date", "rules", "glossary"}``."""
        return {
            "name": self.name,
            "lang": self.lang,
            "kind": self.kind,
            "effective": self.effective,
            "title": self.title,
            "set": self.set or None,
            "code": self.code,
            "file_date": self.file_date,
            "rules": self.rules,
            "glossary": self.glossary,
        }


@dataclass(frozen=True)
class Published:
    """One published edition (``data/editions.toml``): its date, set, code, file date."""

    date: str
    set: str
    code: str | None
    file_date: str | None

    @property
    def set_name(self) -> str:
        """The set's name without the table's notes: ``Onslaught (morph introduced)`` → ``Onslaught``."""
        return re.sub(r"\s*\(.*\)$", "", self.set)


@functools.lru_cache(maxsize=1)
def published() -> tuple[Published, ...]:
    """Every published English edition, oldest first (``comprules/data/editions.toml``)."""
    from .fetch import edition_table

    return tuple(Published(e.date, e.set, e.code, e.file_date) for e in edition_table())


@functools.lru_cache(maxsize=1)
def update_names() -> dict[str, str]:
    """The effective date of each update that the edition table names with its notes →
    that whole name (``2003-12-01`` → ``Mirrodin (Dec. update)``; ``Mirrodin`` alone is
    the set's release, 2003-10-01)."""
    return {p.date: p.set for p in published() if p.set != p.set_name}


def _language_case(spec: str | None) -> str | None:
    """An edition as typed with its language code in any case, or the code alone:
    ``EN/latest`` → ``en/latest``, ``zh`` → ``zh/latest``; anything else as it is."""
    if spec is None:
        return None
    head, sep, rest = spec.strip().partition("/")
    if head.lower() not in languages.codes() or (head == head.lower() and sep):
        return spec
    return f"{head.lower()}/{rest if sep else 'latest'}"


def language_code(lang: str | None) -> str | None:
    """A language code as typed, in any case and with spaces (``" ZH"``), as the
    knowledge base reads it (``zh``); ``None`` for spaces alone, and an empty or no code
    as given (``""`` is then no language of the knowledge base)."""
    return (lang.strip().lower() or None) if lang else lang


def _set_key(name: str) -> str:
    """A set's name as compared loosely: lower case, no leading "the", Æ as "ae", letters and
    digits only (``The Hobbit`` → ``hobbit``, ``Marvel's Spider-Man`` → ``marvelsspiderman``,
    ``Ætherdrift`` → ``aetherdrift``)."""
    folded = fold_name(name).replace("æ", "ae")
    return re.sub(r"[\W_]+", "", folded.removeprefix("the "))


def _language(code: str) -> str:
    """``fr (Français)``: a language code with its name, for messages."""
    try:
        return f"{code} ({languages.get(code).name})"
    except (KeyError, ValueError):
        return repr(code)


#: A day as people type it, its month and day without their zeros (2009-7-11), after a
#: language or not (zh/2026-4-17).
_LOOSE_DAY = re.compile(r"^((?:[A-Za-z]{2,3}/)?)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})$")


#: Other ways a day is written (a trial: "30/07/2024", "July 30, 2024", "2024/07/30" and
#: "20240730" suggested en/2019-07-12): year first with "/" or "." (:data:`_LOOSE_DAY`);
#: eight digits; day and month with "/" or "." and the year last (read only where one of
#: the two is over 12); a month's English or French name, before or after the day.
_EIGHT_DIGITS = re.compile(r"^((?:[A-Za-z]{2,3}/)?)(\d{4})(\d{2})(\d{2})$")
_YEAR_LAST = re.compile(r"^((?:[A-Za-z]{2,3}/)?)(\d{1,2})[/.](\d{1,2})[/.](\d{4})$")
_NAMED_MONTH = re.compile(
    r"^((?:[A-Za-z]{2,3}/)?)(?:(\d{1,2})(?:er)?\s+([^\W\d_]+)\.?|([^\W\d_]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?)\s+(\d{4})$"
)
#: The months' short forms; their full names are each language's ``months``
#: (``languages.toml``, which the editions' effective dates are read with).
_SHORT_MONTHS = {
    **{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9},
    **{"oct": 10, "nov": 11, "dec": 12, "janv": 1, "févr": 2, "fevr": 2, "avr": 4, "juil": 7, "déc": 12},
}


def _month(word: str) -> int | None:
    """The month a word names (``July``, ``juillet``, ``Jul``), ``None`` for none."""
    word = word.casefold()
    found = _SHORT_MONTHS.get(word)
    for lang in languages.all_languages():
        found = found or lang.months.get(word)
    return found


def no_knowledge_base(root: Path) -> UsageError:
    """The error for a folder holding no knowledge base, with the build that makes one: into
    that folder, or into another when it holds other files, which a build refuses to mix
    with its own (a trial: `serve --kb` of a folder of notes advised a build there)."""
    try:
        others = root.is_dir() and any(root.iterdir())
    except OSError:
        others = False
    if others:
        return UsageError(
            f"no knowledge base at {root}: it holds other files (build one into an empty or new folder: "
            "comprules build SOURCE... --kb DIR)"
        )
    return UsageError(f"no knowledge base at {root} (run: comprules build SOURCE... --kb {root})")


def _iso_day(spec: str) -> str:
    """``spec`` with a day written otherwise than ISO (``2009-7-11``, ``2009/07/11``,
    ``20090711``, ``11/07/2009``, ``July 11, 2009``, ``11 juillet 2009``) written
    ``2009-07-11`` (an edition is named by its ISO date); anything else as it is (a day
    and month of 12 or less each, written year last, is ambiguous: as it is).

    >>> _iso_day("2009-7-11"), _iso_day("en/2009/07/11"), _iso_day("30/07/2024"), _iso_day("July 30, 2024")
    ('2009-07-11', 'en/2009-07-11', '2024-07-30', '2024-07-30')
    >>> _iso_day("07/06/2024"), _iso_day("BLB")
    ('07/06/2024', 'BLB')
    """
    m = _LOOSE_DAY.match(spec) or _EIGHT_DIGITS.match(spec)
    if m:
        return f"{m[1]}{m[2]}-{int(m[3]):02d}-{int(m[4]):02d}"
    m = _YEAR_LAST.match(spec)
    if m:
        a, b = int(m[2]), int(m[3])
        if (a > 12) == (b > 12):
            return spec
        day, month = (a, b) if a > 12 else (b, a)
        return f"{m[1]}{m[4]}-{month:02d}-{day:02d}"
    m = _NAMED_MONTH.match(spec)
    if m:
        month = _month(m[3] or m[4])
        if month is not None:
            return f"{m[1]}{m[6]}-{month:02d}-{int(m[2] or m[5]):02d}"
    return spec


def _as_date(text: str) -> date | None:
    try:
        return date.fromisoformat(text) if _ISO_DATE.match(text) else None
    except ValueError:
        return None


class KnowledgeBase:
    """A built knowledge base directory (``data/``, ``index/``, ``site/``).

    ``data`` and ``index`` may point elsewhere than ``root/data`` and ``root/index``
    (the server reads one consistent generation of each while a rebuild swaps them).
    Raises :class:`UsageError` when ``root`` holds no knowledge base.
    """

    #: What lists the editions, as an error about an edition's name says it (the CLI's
    #: command here; the server's route, :class:`comprules.server.state._SnapshotKB`).
    EDITIONS_LISTED_BY = "`comprules editions`"

    def __init__(self, root: Path, *, data: Path | None = None, index: Path | None = None):
        from .store import DB_NAME, Store, StoreError

        self.root = Path(root)
        self.data = Path(data) if data is not None else self.root / "data"
        self._index = Path(index) if index is not None else None
        if not (self.data / DB_NAME).is_file():
            if (self.data / "editions.json").is_file():
                raise UsageError(
                    f"{self.root} was built by an older comprules (no data/{DB_NAME}): "
                    f"rebuild it (comprules build SOURCE... --kb {self.root})"
                )
            raise no_knowledge_base(self.root)
        try:
            #: The knowledge-base database (:class:`comprules.store.Store`).
            self.store = Store(self.data / DB_NAME)
        except StoreError as exc:
            # the user's path, not the one the server pinned (/proc/self/fd/3/comprules.sqlite)
            shown = self.root / "data" / DB_NAME
            raise UsageError(str(exc).replace(str(self.data / DB_NAME), str(shown))) from None
        self.editions = [
            EditionInfo(
                r["name"],
                r["lang"],
                r["kind"],
                r["effective"],
                r["title"],
                export.edition_path(Path(), r["name"]).as_posix(),
                rules=r["rules"],
                glossary=r["glossary"],
                set=r["set_name"] or "",
                code=r["set_code"],
                file_date=r["file_date"],
            )
            for r in sorted(self.store.rows, key=lambda r: r["name"])
        ]
        self._by_name = {e.name: e for e in self.editions}
        self._by_stem: dict[str, list[EditionInfo]] = {}  # ``2024-07-30`` → its editions, in name order
        for e in self.editions:
            self._by_stem.setdefault(e.stem, []).append(e)
        self._languages = sorted({e.lang for e in self.editions})
        #: Whether an edition may be named by a source file path (not for a server).
        self.files = True

    @property
    def index_dir(self) -> Path:
        return self._index if self._index is not None else self.root / "index"

    def info(self, name: str) -> EditionInfo:
        """The manifest line of edition ``name`` (a full name); :class:`UsageError` if unknown."""
        found = self._by_name.get(name)
        if found is None:
            raise UsageError(f"no edition {name!r} in {self.root}")
        return found

    def languages(self) -> list[str]:
        """The languages of the knowledge base, sorted."""
        return list(self._languages)

    def check_language(self, lang: str | None) -> None:
        """Raise :class:`UsageError` when ``lang`` (``None``: any) is not a language of
        the knowledge base, naming those it holds."""
        langs = self.languages()
        if lang is not None and lang not in langs:
            raise UsageError(
                f"no edition in language {lang!r} in {self.root} (languages: {', '.join(langs) or 'none'})"
            )

    def latest(self, lang: str) -> EditionInfo | None:
        """The latest dated edition of a language."""
        dated = [e for e in self.editions if e.lang == lang and e.kind == "edition" and e.effective]
        return max(dated, key=lambda e: e.effective) if dated else None

    def by_age(self, lang: str) -> list[str]:
        """The editions of ``lang``, oldest first: by effective date, then name (the French
        documents are undated: by name), as :meth:`holding`, :meth:`glossary_holding` and
        :meth:`newest_document` read them."""
        return [
            e.name
            for e in sorted((e for e in self.editions if e.lang == lang), key=lambda e: (e.effective or "", e.name))
        ]

    def newest_document(self, lang: str) -> EditionInfo | None:
        """The last of :meth:`by_age`: for a language of undated documents only (French),
        the newest document."""
        names = self.by_age(lang)
        return self.info(names[-1]) if names else None

    def resolve_name(self, spec: str | None, default_lang: str = "en", *, lang: str | None = None) -> str:
        """The full name of the edition ``spec`` names.

        ``spec`` is a full name (``en/2024-07-30``), ``latest`` or ``{lang}/latest``, a
        date or file stem (``2024-07-30``, ``000_f51ad62258817a66``), the date of the
        official file (``2024-08-02``), a set name or code (``Bloomburrow``, ``BLB``), or a
        date between two editions (``2024-09-01``: the edition in force that day), each
        optionally after ``{lang}/``. ``lang`` restricts the choice to one language; a
        name several languages hold goes to ``default_lang``. Raises
        :class:`UsageError` naming the nearest editions when nothing matches, or the
        candidates when several do. A language code alone (``zh``, ``FR``) is that
        language's latest; codes are read in any case (``EN/latest``, ``lang=FR``). The
        latest of a language of undated documents only (``fr/latest``, ``lang=fr``) is its
        newest document (:meth:`newest_document`; a look-up of one rule or glossary entry
        goes to the document holding it instead: :meth:`rule_edition`,
        :meth:`glossary_edition`).
        """
        typed = spec.strip() if spec else spec  # as the user wrote it, for the messages
        spec, lang = _language_case(spec), language_code(lang)
        self.check_language(lang)
        if spec in self._by_name and lang is None:  # a full name, as every route gives it back
            return spec
        langs = self.languages()
        pool = [e for e in self.editions if lang is None or e.lang == lang]
        spec = None if spec is None else _iso_day(spec.strip())
        if not spec or spec == "latest":
            info = self.latest(lang or default_lang) or (self.newest_document(lang) if lang else None)
            info = info or (pool[0] if pool else None)
            if info is None and lang is None and self.editions:
                info = self.editions[0]
            if info is None:
                raise UsageError("the knowledge base holds no edition")
            return info.name
        if spec in self._by_name:
            if lang is not None and not spec.startswith(lang + "/"):
                raise UsageError(f"edition {typed!r} is not in language {lang!r}")
            return spec
        head, sep, rest = spec.partition("/")
        if sep and not rest.strip() and head in languages.codes():
            raise UsageError(f"edition {spec!r} names a language only: give {head}/latest or {head}/DATE")
        if sep and head in languages.codes() and head not in langs:
            raise UsageError(
                f"no edition in {_language(head)} in {self.root} (languages: {', '.join(langs) or 'none'})"
            )
        if sep and head in langs:
            if lang is not None and head != lang:
                raise UsageError(f"edition {typed!r} is not in language {lang!r}")
            pool = [e for e in self.editions if e.lang == head]
            spec, lang = rest, head
        if spec == "latest":
            code = lang or default_lang
            info = self.latest(code) or self.newest_document(code)
            if info is None:
                raise UsageError(f"no edition in language {code!r} in {self.root}")
            return info.name
        matches = [e for e in self._by_stem.get(spec, ()) if lang is None or e.lang == lang]  # ``pool``'s
        if not matches:
            matches = self._by_alias(spec, pool)
        if not matches and spec.isdigit():  # an undated document by its number: fr/004 is 004_99dc…
            matches = [e for e in pool if not e.effective and e.stem.startswith(spec + "_")]
        if len(matches) > 1:
            preferred = [e for e in matches if e.lang == default_lang]
            if len(preferred) == 1:
                return preferred[0].name
            raise UsageError(f"edition {spec!r} is ambiguous: {', '.join(sorted(e.name for e in matches))}")
        if matches:
            return matches[0].name
        raise UsageError(self._unknown(spec, pool, lang))

    def _by_alias(self, spec: str, pool: list[EditionInfo]) -> list[EditionInfo]:
        """The editions of ``pool`` a file date, set code, set name (or the edition table's
        whole name of an update: "Mirrodin (Dec. update)"), the code an edition without a
        set code goes by (:attr:`EditionInfo.code_given`) or an in-force date names."""
        key = fold_name(spec)
        for attr in ("file_date", "code", "set", "code_given"):
            found = [e for e in pool if e.effective and getattr(e, attr) and fold_name(getattr(e, attr)) == key]
            whole = [e for e in found if e.kind == "edition"]  # a fragment of that date is named by its stem
            if attr == "set" and len(whole) > 1:
                # a set's name is the edition of its release (the one with the set's code), not
                # a later update of the same set's rules (Mirrodin: 2003-10-01, MRD, not 2003-12-01)
                whole = [e for e in whole if e.code] or whole
            if whole or found:
                return whole or found
        # the table's whole name of an update, notes included ("Mirrodin (Dec. update)": 2003-12-01)
        dates = {day for day, whole in update_names().items() if fold_name(whole) == key}
        found = [e for e in pool if e.lang == "en" and e.kind == "edition" and e.effective in dates]
        if found:
            return found
        # a set's name as typed: without "The", its punctuation or its spaces ("Hobbit", "Marvels Spider-Man")
        loose = _set_key(spec)
        found = [e for e in pool if e.effective and e.set and loose and _set_key(e.set) == loose]
        if found:
            return [e for e in found if e.kind == "edition"] or found
        day = _as_date(spec)
        if day is None:
            return []
        out = []
        for lg in sorted({e.lang for e in pool}):
            dated = [e for e in pool if e.lang == lg and e.kind == "edition" and e.effective]
            # the edition in force: the latest published (or built) one dated on or before that day
            known = {e.effective for e in dated} | ({p.date for p in published()} if lg == "en" else set())
            before = [d for d in known if d <= day.isoformat()]
            if not before:
                continue
            in_force = max(before)
            out += [e for e in dated if e.effective == in_force]
        return out

    def _unknown(self, spec: str, pool: list[EditionInfo], lang: str | None = None) -> str:
        """The message for an edition name that matches nothing, naming the nearest ones.

        ``lang``: the language asked (``fr`` of ``fr/2002-10-07``), named in the message;
        the published dates (``data/editions.toml``) are those of the English editions,
        so for another language a day only says which English edition was in force then.
        The sentence is whole without its `` in {root}`` (the server leaves that out).
        """
        where = f"in {self.root}"
        code, slash, _rest = spec.partition("/")
        code = code.lower()  # "EN/latest" is English
        if slash and re.fullmatch(r"[a-z]{2,3}", code) and code not in self.languages():
            # "xx/latest": a language not built (a trial: three English editions named nearest)
            return f"no edition in language {code!r} {where} (languages: {', '.join(self.languages()) or 'none'})"
        dated = sorted((e for e in pool if e.effective and e.kind == "edition"), key=lambda e: (e.effective, e.name))
        day = _as_date(spec)
        if day is not None:
            iso = day.isoformat()
            before = [e for e in dated if e.effective <= iso]
            after = [e for e in dated if e.effective > iso]
            near = before[-1:] + after[:1]
            english = [e for e in self.editions if e.lang == "en" and e.kind == "edition" and e.effective]
            known = {p.date for p in published()} | {e.effective for e in english}
            in_force = max((d for d in known if d <= iso), default=None)
            fact = next((p for p in published() if p.date == in_force), None)
            label = ", ".join(x for x in (fact.set_name, fact.code or "") if x) if fact else ""
            named = f"en/{in_force}" + (f" ({label})" if label else "")
            built = any(e.effective == in_force for e in english)
            if lang not in (None, "en"):
                head = f"no edition in {_language(lang)} {where} was in force on {iso}"
                if in_force is not None:
                    head += f": the edition in force that day is the English {named}" + (
                        "" if built else ", which is not built either"
                    )
            elif in_force is not None and not built:
                head = f"the edition in force on {iso} is {named}, which is not built {where}"
            elif not before:
                head = f"no edition {where} was in force on {iso}"
            else:
                head = f"no edition {spec!r} {where}"
        else:
            from rapidfuzz import fuzz, process

            choices: dict[str, str] = {}
            for e in pool:
                for label in (e.name, e.stem, e.set, e.code or ""):
                    if label:
                        choices.setdefault(fold_name(label), e.name)
            ranked = process.extract(fold_name(spec), list(choices), scorer=fuzz.WRatio, limit=12)
            seen: list[str] = []
            for label, score, _ in ranked:
                if score >= 60 and choices[label] not in seen:
                    seen.append(choices[label])
            by_name = {e.name: e for e in pool}
            near = [by_name[n] for n in seen[:3]] or dated[-2:]  # the nearest first (a trial: it came third)
            head = f"no edition {spec!r} {where}"

        def label(e: EditionInfo) -> str:
            extra = ", ".join(x for x in (e.set, e.code or "") if x)
            return f"{e.name} ({extra})" if extra else e.name

        nearest = "; ".join(label(e) for e in near) or "none"
        of = f" in {lang}" if lang not in (None, "en") else ""
        return f"{head} (nearest{of}: {nearest}; {self.EDITIONS_LISTED_BY} lists all {len(self.editions)})"

    def after_latest(self, spec: str | None, name: str) -> str | None:
        """A note when ``spec`` is a day after every edition known (built or published) of
        the language of edition ``name``, which it resolved to: that edition is the one in
        force that day only if no later one has been published since (the edition in
        force is the latest one dated on or before the day); else ``None``."""
        head, sep, rest = (spec or "").strip().partition("/")
        day = _as_date(rest if sep else head)
        info = self._by_name.get(name)
        if day is None or info is None or not info.effective or day.isoformat() == info.effective:
            return None  # the edition of that very day (en/2026-08-07): no note, nothing read
        known = {e.effective for e in self.editions if e.lang == info.lang and e.kind == "edition" and e.effective}
        if info.lang == "en":
            known |= {p.date for p in published()}
        if day.isoformat() <= max(known):
            return None
        return (
            f"{day.isoformat()} is after the latest edition known, {name} (effective {info.effective}): "
            "it is the edition in force then only if no later one has been published"
        )

    def load(self, spec: str | None, *, lang: str | None = None) -> Edition:
        """The edition named ``spec`` (a name, or where :attr:`files` allows, a source file
        parsed on the fly); ``lang`` as in :meth:`resolve_name`."""
        if self.files and spec and names_a_file(spec) and not spec.endswith(".json"):
            from .corpus import parse_file

            return parse_file(spec)
        return self.store.edition(self.resolve_name(spec, lang=lang))

    def citations(self, name: str) -> dict[str, list[dict]]:
        """The stored ``cites`` of edition ``name`` (resolved across editions by the
        build): rule id or ``glossary/{slug}`` → citations, JSON shape."""
        return self.store.citations(self.resolve_name(name))

    def holding(self, lang: str, number: str) -> str | None:
        """The newest edition of language ``lang`` that holds rule ``number`` (by effective
        date, then name: the French documents are undated), or ``None``."""
        names = self.by_age(lang)
        if not names:
            return None
        found = self.store.holding(number, names)
        return next((n for n in reversed(names) if n in found), None)

    def rule_edition(self, spec: str | None, number: str, *, lang: str | None = None) -> str:
        """The edition a look-up of rule ``number`` reads: the one ``spec`` and ``lang``
        name (:meth:`resolve_name`) or, for a language of undated documents only
        (``fr/latest``, or ``lang=fr`` and no edition: each French document holds a few
        rules), the newest document holding it (:meth:`holding`). Raises
        :class:`UsageError` (edition) or :class:`NotFound` (no document holds it)."""
        undated = self.undated(spec, lang)
        if undated is None:
            return self.resolve_name(spec, lang=lang)
        holding = self.holding(undated, normalize_number(number))
        if holding is None:
            raise NotFound(f"no rule {number} in any document in {_language(undated)}")
        return holding

    def glossary_holding(self, lang: str, term: str | None = None) -> str | None:
        """The newest document of language ``lang`` whose glossary holds ``term`` (headword,
        alias or slug; with ``None``, any entry), or ``None``: for a language of undated
        documents (French: fr/003 holds "Piétinement", fr/000 no glossary at all), where no
        one of them is "the latest"."""
        key = fold_name(term) if term is not None else None
        for name in reversed(self.by_age(lang)):
            rows = self.store.glossary(name)
            if rows and (key is None or any(_names_entry(row, key) for row in rows)):
                return name
        return None

    def glossary_edition(
        self, spec: str | None, *, lang: str | None = None, term: str | None = None, nearest: bool = False
    ) -> str:
        """The edition a glossary look-up reads: the one ``spec`` and ``lang`` name
        (:meth:`resolve_name`) or, for a language of undated documents only (``fr/latest``,
        or ``lang=fr`` and no edition), the newest document whose glossary holds ``term``
        (:meth:`glossary_holding`), or with no ``term`` (or ``nearest``, for a fuzzy look-up
        of a misspelling) the newest document with a glossary. Raises :class:`UsageError`
        (edition) or :class:`NotFound` (no document holds the term, or no glossary). With
        neither ``spec`` nor ``lang``, a term in a language's own script (践踏) is looked up
        in that language, as a search reads it (a trial: the English glossary answered 404)."""
        if spec is None and lang is None and term:
            code = languages.detect(term)
            if code in self._languages and languages.get(code).detect == "script":
                lang = code
        undated = self.undated(spec, lang)
        if undated is None:
            return self.resolve_name(spec, lang=lang)
        found = self.glossary_holding(undated, term) if term is not None else None
        if found is None and term is not None and not nearest:
            raise NotFound(f"no glossary entry {echo(term)!r} in any document in {undated}")
        found = found or self.glossary_holding(undated)
        if found is None:
            raise NotFound(f"no glossary in any document in {_language(undated)}")
        return found

    def undated(self, spec: str | None, lang: str | None) -> str | None:
        """The language of undated documents only that ``spec``/``lang`` name without a
        document (``fr/latest``, or no edition and ``lang=fr``), else ``None``: a look-up
        there goes to the document holding what is asked."""
        spec, lang = _language_case(spec), language_code(lang)
        head, _sep, rest = (spec or "").partition("/")
        if spec is not None and not (rest == "latest" and (lang is None or lang == head)):
            return None
        code = head if spec is not None else lang
        if code is None or code not in self._languages or self.latest(code) is not None:
            return None
        return code

    def no_rule(self, name: str, number: str) -> NotFound:
        """The :class:`NotFound` for a rule ``number`` that edition ``name`` does not
        hold, saying where the number's rule went when another edition of its chain holds
        it (the nearest before, else the latest): ``no rule 502.26a in en/2026-08-07:
        502.26a of en/2009-05-01 is 702.37a there``, ``no rule 702.37a in en/1999-04-23:
        702.37a of en/2026-08-07 did not exist yet (first printed in en/2002-10-07, as
        502.26a)``, ``… was removed after …`` — the lineage of that rule (the ``lineages``
        table), as the site's go-to box says it."""
        base = f"no rule {number} in {name}"
        store = self.store
        found = store.chain_of(name)
        # the French documents are undated: no one of them is before or after another
        if found is None or not number[:1].isdigit() or self.info(name).kind == "fragment":
            return NotFound(base)
        names = found[1]
        source = self.printed_in(name, number)
        if source is None:
            return self._no_rule_in_english(name, number, base)
        pos = {e: k for k, e in enumerate(names)}
        at = pos[name]
        key = store.lineage_key(source, number)
        rows = store.lineage(*key) if key is not None else []
        by_edition = {r["edition"]: r["rule"] for r in rows}
        if name in by_edition:
            lo, hi = sorted((pos[source], at))
            split = ""
            for r in rows:  # a split on the way: its parts ("217.1a … is 400.3 there, split into 400.3, 400.4")
                step = pos[r["edition"]]
                if r["kind"] == "split" and lo < step <= hi and r["previous"]:
                    pair = store.pair(names[step - 1], r["edition"])
                    parts = [c.new for c in (pair.forward.get(r["previous"], []) if pair is not None else []) if c.new]
                    if len(parts) > 1:
                        split = f" (split into {', '.join(parts)} in {r['edition']})"
            return NotFound(f"{base}: {number} of {source} is {by_edition[name]} there{split}")
        held = [r["edition"] for r in rows]
        if held and pos[held[0]] > at:
            first = f"first printed in {held[0]}, as {by_edition[held[0]]}"
            return NotFound(f"{base}: {number} of {source} did not exist yet ({first})")
        if held and pos[held[-1]] < at:
            last, then = held[-1], by_edition[held[-1]]
            following = names[pos[last] + 1]
            pair = store.pair(last, following)
            into = [c.new for c in (pair.forward.get(then, []) if pair is not None else []) if c.new]
            if into:  # merged into another rule's lineage (203.1c and 203.1d → 202.1b in 2009-07-11)
                was = "" if (last, then) == (source, number) else f" ({then} in {last})"
                key = store.lineage_key(following, into[0])
                now = {r["edition"]: r["rule"] for r in store.lineage(*key)}.get(name) if key is not None else None
                here = f", which is {now} there" if now and following != name else ""
                return NotFound(f"{base}: {number} of {source}{was} became {', '.join(into)} in {following}{here}")
            return NotFound(f"{base}: {number} of {source} was removed after {last} (then {then})")
        return NotFound(base)

    def printed_in(self, name: str, number: str) -> str | None:
        """The edition of ``name``'s chain whose rule ``number`` a reader of ``name`` means:
        the nearest earlier edition that printed it, else the latest that did (``502.26a``
        read in en/2026-08-07: en/2009-05-01); ``None`` when no edition of the chain printed it."""
        found = self.store.chain_of(name)
        if found is None:
            return None
        names = found[1]
        holding = self.store.holding(number, names)
        if not holding:
            return None
        at = names.index(name) if name in names else len(names)
        before = [e for e in names[:at] if e in holding]
        return before[-1] if before else [e for e in names if e in holding][-1]

    def _no_rule_in_english(self, name: str, number: str, base: str) -> NotFound:
        """For a translation none of whose editions ever held ``number`` (zh/2026-04-17 and
        502.26a, Morph before 2009): where the number went in its English twin, whose
        numbers it shares (``no rule 502.26a in zh/2026-04-17 (as in en/2026-04-17:
        502.26a of en/2009-05-01 is 702.37a there)``); else ``base`` alone."""
        twin = self.twin_name(name) if self.info(name).lang != "en" else None
        if twin is None:
            return NotFound(base)
        said = str(self.no_rule(twin, number))
        hint = said.removeprefix(f"no rule {number} in {twin}")
        return NotFound(f"{base} (as in {twin}{hint})" if hint.startswith(": ") else base)

    def twin_name(self, name: str) -> str | None:
        """The English edition the build paired translated edition ``name`` with (the
        English of its date, or the nearest earlier), or ``None``."""
        row = self.store.one(
            "SELECT new FROM alignments WHERE old = ? AND kind = 'translation' AND old NOT LIKE 'en/%'", (name,)
        )
        return row[0] if row else None

    def english_twin(self, edition: Edition) -> Edition | None:
        """The English edition a translated edition was paired with by the build, or
        ``None`` (an English edition, a knowledge base without alignments)."""
        if edition.lang == "en":
            return None
        name = self.twin_name(edition.name)
        return self.store.edition(name) if name is not None else None

    def show(self, spec: str | None, number: str, *, lang: str | None = None, raw: bool = False) -> "RuleView":
        """``comprules show``: the rule ``number`` of the edition ``spec`` names, its
        subrules, references both ways and, for a translation, its English twin — a few
        indexed queries of the database, no edition loaded. The edition is
        :meth:`rule_edition`'s (French: the newest document holding the rule). ``restored`` lists the
        characters of a lossy source put back in them (:mod:`comprules.corpus.restore`);
        ``raw`` shows their texts as the source printed them. Raises :class:`UsageError`
        (edition) or :class:`NotFound` (rule)."""
        number = normalize_number(number)
        name = self.rule_edition(spec, number, lang=lang)
        lang_of = self.info(name).lang
        view = self._view(name, number, self.store, self.twin_name(name) if lang_of != "en" else None, raw=raw)
        if view is None:
            raise self.no_rule(name, number)
        return view

    def _view(
        self, name: str, number: str, rows: "Store | EditionRows", twin_name: str | None, *, raw: bool = False
    ) -> "RuleView | None":
        """:meth:`show`'s answer for rule ``number`` of edition ``name`` read from ``rows``
        (the store, a few queries; or an edition read at once, :class:`EditionRows`), or
        ``None`` when the edition has no such rule; ``twin_name``: a translation's English
        edition."""
        rule, children = rows.family(name, number)
        if rule is None:
            return None
        lang_of = self.info(name).lang
        twin_number = rows.twin_number(name, twin_name, rule.id) if twin_name is not None else None
        twin = rows.rule(twin_name, twin_number) if twin_name is not None and twin_number is not None else None
        cites = rows.citations(name, rule.id).get(rule.id, [])
        refs = list(dict.fromkeys(c["target"] for c in cites if c["status"] == "internal" and c["kind"] != "glossary"))
        nodes = [c["resolved"] for c in cites if c.get("resolved") and c["kind"] != "glossary"]
        found = rows.titles(nodes)
        titles = {node: found[node] for node in nodes if node in found}  # in the citations' order
        cited_by, glossary = rows.citing(name, rule.id)
        restored = rows.restorations(name, [rule.id, *(c.id for c in children)])
        if raw and restored:
            rule, children = _as_printed(rule, restored), [_as_printed(c, restored) for c in children]
        return RuleView(
            name,
            rule,
            children,
            refs,
            cited_by,
            [term for _, term in glossary],
            lang=lang_of,
            twin=twin,
            twin_edition=twin_name,  # with no twin: the English edition that has no counterpart
            cites=cites,
            titles=titles,
            restored=restored,
            raw=raw,
        )


def _as_printed(rule: Rule, restored: list[dict]) -> Rule:
    """``rule`` with the parts a restoration changed as the source printed them."""
    import dataclasses

    text, title, examples = rule.text, rule.title, list(rule.examples)
    for r in restored:
        if r["unit"] != rule.id:
            continue
        if r["part"] == "text":
            text = r["raw"]
        elif r["part"] == "title":
            title = r["raw"]
        elif r["part"].startswith("example ") and r["part"][8:].isdigit() and int(r["part"][8:]) <= len(examples):
            examples[int(r["part"][8:]) - 1] = r["raw"]
    return dataclasses.replace(rule, text=text, title=title, examples=tuple(examples))


@dataclass(frozen=True)
class RuleView:
    """A rule as ``comprules show`` prints it: itself, its subrules, refs, cited by.

    ``cites``: every citation of the rule (export shape, :class:`references.Citation`);
    ``titles``: resolved node id → the title of the rule it names, where it has one
    (``en/2002-10-07/416`` → ``Effects``).
    """

    edition: str
    rule: Rule
    children: list[Rule]
    refs: list[str]
    cited_by: list[str]
    cited_by_glossary: list[str]
    lang: str = "en"
    #: The English rule the build paired a translation's rule with (its own number, or another
    #: through the translation's chain: ``comprules.align.history.translation_routes``);
    #: ``twin_edition`` names the English edition even when it has no counterpart.
    twin: Rule | None = None
    twin_edition: str | None = None
    cites: list[dict] = field(default_factory=list)
    titles: dict[str, str] = field(default_factory=dict)
    #: Characters of a lossy source put back in these rules (export shape of ``restored``).
    restored: list[dict] = field(default_factory=list)
    #: The texts are shown as the source printed them (``show --raw``).
    raw: bool = False

    def restored_words(self) -> str | None:
        """ "3 characters restored from en/2008-02-01 and en/2008-07-15", or ``None``."""
        if not self.restored:
            return None
        sources = tuple(sorted({s for r in self.restored for s in r["sources"]}))
        return restored_words(sum(r["chars"] for r in self.restored), sources)

    def to_json(self) -> dict:
        """``comprules show --json``: ``{"edition", "rule", "subrules", "refs", "cites", "cited_by",
        "cited_by_glossary", "twin", "restored", "raw"}`` (``twin``: the English rule of the same
        number, with its ``edition``, for a translated edition; else ``null``; ``cites`` and
        ``restored`` as in the export; ``raw``: the texts are as the source printed them), each
        rule as ``{"number", "id", "kind", "title", "text", "examples", "parent"}``."""

        def one(r: Rule) -> dict:
            return {
                "number": r.number,
                "id": r.id,
                "kind": r.kind,
                "title": r.title,
                "text": r.text,
                "examples": list(r.examples),
                "parent": r.parent,
            }

        return {
            "edition": self.edition,
            "rule": one(self.rule),
            "subrules": [one(c) for c in self.children],
            "refs": self.refs,
            "cites": self.cites,
            "cited_by": self.cited_by,
            "cited_by_glossary": self.cited_by_glossary,
            "twin": {"edition": self.twin_edition, **one(self.twin)} if self.twin is not None else None,
            "restored": self.restored,
            "raw": self.raw,
        }


def view_keys(kb: KnowledgeBase) -> dict[str, str]:
    """Edition name → what its rule views are made from: its input key, its English
    twin's (a translation) and those of the other editions its references lead into (a
    citation's title is read there), hashed (hex)."""
    import hashlib

    keys = {r["name"]: r["input_key"] for r in kb.store.rows}
    elsewhere: dict[str, set[str]] = {}
    for edition, resolved in kb.store.all(
        "SELECT DISTINCT edition, resolved FROM citations WHERE resolved IS NOT NULL AND resolved NOT LIKE edition || '/%'"
    ):
        elsewhere.setdefault(edition, set()).add("/".join(resolved.split("/")[:2]))
    out = {}
    for name, key in keys.items():
        twin = kb.twin_name(name) if kb.info(name).lang != "en" else None
        parts = [key, f"{twin}={keys.get(twin)}" if twin else ""]
        parts += [f"{other}={keys.get(other)}" for other in sorted(elsewhere.get(name, ())) if other != name]
        out[name] = hashlib.blake2b("\n".join(parts).encode(), digest_size=16).hexdigest()
    return out


def write_rule_views(data: Path, *, jobs: int | None = None) -> list[str]:
    """Store :meth:`KnowledgeBase.show`'s answer (``comprules show --json``) for every rule
    and subrule of the database in ``data`` (``rule_views``), for the editions whose
    :func:`view_keys` changed since it was stored; the others keep theirs. Returns the
    editions whose views were made. ``jobs``: processes (default: up to 4, one a core).

    Writes the database in place: the build's new ``data/``, before it is swapped in (no
    reader has it open). The views are made into files beside it (one a process, each
    edition read at once: :class:`~comprules.store.read.EditionRows`), then copied in
    one transaction. Raises :class:`sqlite3.Error` or :class:`OSError`."""
    import os
    import sqlite3

    from .children import fork_pool
    from .store import DB_NAME

    data = Path(data)
    path = data / DB_NAME
    kb = KnowledgeBase(data.parent, data=data)
    try:
        keys = view_keys(kb)
        stored = dict(kb.store.all("SELECT edition, key FROM rule_view_keys"))
        todo = [name for name, key in keys.items() if stored.get(name) != key]
        sizes = {r["name"]: r["rules"] for r in kb.store.rows}
    finally:
        kb.store.close()
    if not todo and set(stored) == set(keys):
        return []
    todo.sort(key=lambda n: -sizes.get(n, 0))  # the largest first: the processes end together
    jobs = max(1, min(jobs if jobs is not None else min(4, os.cpu_count() or 1), len(todo)))
    sides: set[str] = set()
    try:
        if jobs == 1 or sum(sizes.get(n, 0) for n in todo) < 5_000:
            sides.update(_make_views(str(data), name) for name in todo)
        else:
            with fork_pool(jobs) as pool:
                sides.update(pool.imap_unordered(functools.partial(_make_views, str(data)), todo))
        reader = _VIEWS_KB.pop(str(data), None)
        if reader is not None:  # (this process made views: its connection is closed before the writing)
            reader.store.close()
        conn = sqlite3.connect(path, isolation_level=None)
        try:
            made = [f"made{k}" for k in range(len(sides))]
            for side, alias in zip(sorted(sides), made):  # (attached before the transaction: SQLite's rule)
                conn.execute(f"ATTACH DATABASE ? AS {alias}", (side,))
            conn.execute("BEGIN")
            gone = [(n,) for n in sorted(set(stored) - set(keys) | set(todo))]
            conn.executemany("DELETE FROM rule_views WHERE edition = ?", gone)
            conn.executemany("DELETE FROM rule_view_keys WHERE edition = ?", gone)
            if made:
                every = " UNION ALL ".join(f"SELECT edition, id, body FROM {alias}.rule_views" for alias in made)
                conn.execute(f"INSERT INTO rule_views SELECT * FROM ({every}) ORDER BY edition, id")
            conn.executemany("INSERT INTO rule_view_keys (edition, key) VALUES (?, ?)", [(n, keys[n]) for n in todo])
            conn.execute("COMMIT")
            for alias in made:
                conn.execute(f"DETACH DATABASE {alias}")
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            conn.close()
    finally:
        reader = _VIEWS_KB.pop(str(data), None)
        if reader is not None:
            reader.store.close()
        for side in sides | {str(p) for p in data.glob(f".{DB_NAME}.views-*.tmp")}:
            Path(side).unlink(missing_ok=True)
    return todo


def _make_views(data: str, name: str) -> str:
    """The rule views of edition ``name`` of the database in ``data``, written into this
    process's file beside it (made when missing); returns that file's path."""
    import os
    import sqlite3

    from .store import DB_NAME
    from .store.read import EditionRows
    from .store.schema import pack_view

    kb = _VIEWS_KB.get(data)
    if kb is None:
        kb = _VIEWS_KB[data] = KnowledgeBase(Path(data).parent, data=Path(data))
    rows = EditionRows(kb.store, name)
    twin = kb.twin_name(name) if kb.info(name).lang != "en" else None
    views = []
    for rule_id in rows.units:
        view = kb._view(name, rule_id, rows, twin)
        if view is not None:
            views.append((name, rule_id, pack_view(export.encoded(view.to_json()))))
    side = str(Path(data) / f".{DB_NAME}.views-{os.getpid()}.tmp")
    out = sqlite3.connect(side, isolation_level=None)
    try:
        out.execute("PRAGMA journal_mode = OFF")
        out.execute("PRAGMA synchronous = OFF")
        out.execute("CREATE TABLE IF NOT EXISTS rule_views (edition TEXT, id TEXT, body BLOB)")
        out.execute("BEGIN")
        out.executemany("INSERT INTO rule_views VALUES (?, ?, ?)", views)
        out.execute("COMMIT")
    finally:
        out.close()
    return side


#: The knowledge base each process of :func:`write_rule_views` reads (by data folder).
_VIEWS_KB: dict[str, KnowledgeBase] = {}


def show_rule(
    edition: Edition,
    number: str,
    twin: Edition | None = None,
    *,
    cites: dict[str, list[dict]] | None = None,
    lookup: Callable[[str], Edition] | None = None,
) -> RuleView:
    """The rule ``number`` of ``edition`` with its subrules, references and backlinks,
    and, for a translated edition given its English ``twin`` edition, the English rule
    of the same number.

    ``cites`` are the stored citations of the edition (:meth:`KnowledgeBase.citations`;
    computed within the edition when not given); ``lookup(name)`` loads another
    edition, for the titles of citations resolved there. Raises :class:`NotFound`
    when the edition has no such rule.
    """
    number = normalize_number(number)
    rule = edition.get(number)
    if rule is None:
        raise NotFound(f"no rule {number} in {edition.name}")
    from . import references  # a parsed edition only: the database holds its references

    resolution = references.resolve(edition)
    children = sorted(edition.children.get(rule.number, []), key=lambda r: sort_key(r.id))
    cited = [src for src in resolution.cited_by().get(rule.id, []) if src != rule.id]
    terms = {g.slug: g.term for g in edition.glossary}
    glossary = [terms[slug] for slug, targets in resolution.glossary_refs.items() if rule.id in targets]
    english = twin.get(rule.id) if twin is not None else None
    own = (cites or {}).get(rule.id) if cites is not None else [c.as_json() for c in resolution.cites.get(rule.id, ())]
    titles: dict[str, str] = {}
    for c in own or ():
        where, _, target = (c.get("resolved") or "").rpartition("/")
        if not where or c["kind"] == "glossary":
            continue
        other = edition if where == edition.name else (lookup(where) if lookup else None)
        found = other.get(target) if other is not None else None
        if found is not None and found.title:
            titles[c["resolved"]] = found.title
    return RuleView(
        edition.name,
        rule,
        children,
        list(resolution.refs.get(rule.id, ())),
        cited,
        glossary,
        lang=edition.lang,
        twin=english,
        twin_edition=twin.name if english is not None else None,
        cites=list(own or ()),
        titles=titles,
    )


def search(
    kb: KnowledgeBase | None,
    query: str,
    *,
    edition: str | None = None,
    all_editions: bool = False,
    lang: str | None = None,
    section: str | None = None,
    kind: str | None = None,
    limit: int = 10,
    cards: bool = True,
):
    """``comprules search``: the options as the command and the server take them, then
    :func:`comprules.indexer.search`; a :class:`~comprules.indexer.SearchResult`.

    With ``cards`` and card data in the knowledge base (and no ``kind``, or ``rule``), the cards the
    query names come first (``SearchResult.cards``), their names are not searched for as
    words (unless the rules print them: "Wall of Omens"), and the rules they call on rank
    the hits (:mod:`comprules.cards.search`).

    ``edition`` is any name :meth:`KnowledgeBase.resolve_name` takes or, where
    ``kb.files`` allows (or without a knowledge base), a source file, parsed and indexed
    on the fly; ``all_editions`` searches every edition, one hit per rule; ``lang`` and
    ``kind`` may be ``"any"``. Raises :class:`UsageError` for bad options (both
    ``edition`` and ``all_editions``, an unknown edition, an edition not in ``lang``, a
    malformed query).
    """
    from .indexer import ALL_EDITIONS
    from .indexer import search as run_search

    if edition and all_editions:
        raise UsageError("an edition and all editions exclude each other")
    options = dict(
        lang=None if lang in (None, "any") else lang,
        section=section,
        kind=None if kind in (None, "any") else kind,
        limit=limit,
    )
    if edition and (kb is None or kb.files) and names_a_file(edition):
        import tempfile

        from .corpus import parse_file
        from .indexer import build_index  # only for a source file: the build stage loads slowly

        parsed = parse_file(edition)
        with tempfile.TemporaryDirectory(prefix="comprules-search-") as tmp:
            build_index([parsed], Path(tmp) / "index")
            return run_search(Path(tmp) / "index", query, edition=parsed.name, **options)
    if kb is None:
        raise UsageError("no knowledge base to search (give --kb DIR, or a source file as the edition)")
    # an edition in one language and results in another would find nothing: said, not silently empty
    undated = kb.undated(edition, options["lang"]) if edition and not all_editions else None
    if undated is not None:  # fr/latest: the documents of a language without dated editions
        edition, options["lang"] = None, undated
    name = ALL_EDITIONS if all_editions else (kb.resolve_name(edition, lang=options["lang"]) if edition else None)
    if cards:
        import dataclasses

        from .cards.search import about

        asked = about(kb.data, query, None if all_editions else name)  # card:NAME checked whatever the kind
        if asked.cards and options["kind"] in (None, "rule"):  # examples, glossary entries, notes: the words alone
            result = run_search(
                kb.index_dir,
                asked.query,
                edition=name,
                prior=asked.prior,
                drop=asked.drop,
                context=asked.context or None,
                **options,
            )
            return dataclasses.replace(result, query=query, cards=tuple(asked.cards))
    return run_search(kb.index_dir, query, edition=name, **options)


def _glossary_row(entry, refs) -> dict:
    return {
        "term": entry.term,
        "aliases": list(entry.aliases),
        "obsolete": entry.obsolete,
        "senses": list(entry.senses),
        "text": entry.text,
        "slug": entry.slug,
        "refs": list(refs.get(entry.slug, ())),
    }


def glossary_json(edition: Edition) -> dict:
    """Every glossary entry of ``edition``: ``{"edition", "glossary": [{"term", "aliases",
    "obsolete", "senses", "text", "slug", "refs"}]}`` (the export shape's fields)."""
    from . import references

    refs = references.resolve(edition).glossary_refs
    return {"edition": edition.name, "glossary": [_glossary_row(g, refs) for g in edition.glossary]}


def _singulars(key: str) -> list[str]:
    """What a headword typed with another ending may be, its last word inflected as search
    does (:func:`comprules.indexer.inflect.inflections`): ``tramples`` → ``trample``;
    ``mana abilities`` → ``mana ability``."""
    from .indexer.inflect import inflections

    *head, last = key.split(" ")
    return [" ".join([*head, form]) for form in inflections(last, "en")]


def _names_entry(row: dict, key: str) -> bool:
    """Whether ``key`` (:func:`~comprules.model.fold_name` of what was typed) names the
    glossary entry ``row``: its headword, slug or an alias, accents typed or not
    (``pietinement`` is Piétinement)."""
    from .indexer.text import fold as plain

    names = {fold_name(row["term"]), row["slug"], *(fold_name(a.strip('“”"')) for a in row["aliases"])}
    return key in names or plain(key) in {plain(n) for n in names}


def kb_glossary(kb: KnowledgeBase, name: str) -> dict:
    """:func:`glossary_json` of an edition of the knowledge base, from its database."""
    return {"edition": name, "glossary": kb.store.glossary(name)}


def glossary_entry(edition: Edition | tuple[KnowledgeBase, str], term: str) -> dict:
    """The glossary entry of ``edition`` (an edition, or ``(kb, name)`` for one of a
    knowledge base, read from its database) named ``term`` (headword, alias or slug;
    case and typographic apostrophes ignored; in a knowledge base also in the plural,
    ``tramples``, or by the first words of one headword, ``summoning sickness``):
    ``{"edition", "entry": {...}}`` as in :func:`glossary_json`. Raises :class:`NotFound`."""
    key = fold_name(term)
    if isinstance(edition, tuple):
        kb, name = edition
        rows = kb.store.glossary(name)
        for form in (key, *_singulars(key)):
            for row in rows:
                if _names_entry(row, form):
                    return {"edition": name, "entry": row}
        # the first words of one headword ("summoning sickness": Summoning Sickness Rule)
        begun = [row for row in rows if fold_name(row["term"]).startswith(f"{key} ")]
        if len(begun) == 1:
            return {"edition": name, "entry": begun[0]}
        raise NotFound(f"no glossary entry {term!r} in {name}")
    for g in edition.glossary:
        if key in {fold_name(g.term), g.slug, *(fold_name(a.strip('“”"')) for a in g.aliases)}:
            from . import references

            return {"edition": edition.name, "entry": _glossary_row(g, references.resolve(edition).glossary_refs)}
    raise NotFound(f"no glossary entry {term!r} in {edition.name}")
