"""The Academy Ruins API's views of the knowledge base, for the clients that speak it.

Judges' bots call the Academy Ruins HTTP API (``../shared/reference/academyruins-api.md``,
v0.7.0): Fryatog reads ``/cr/{rule}?find_definition=true`` and fuzzy glossary look-ups,
judgebot the raw text of ``/file/cr``, RulesGuru ``/cr``, ``/cr/toc`` and
``/cr/keywords``. This module computes those answers from any edition of a knowledge base
(the server only routes to them), written from the contract, not from Academy Ruins'
code. Where the contract records a bug, the intent is kept instead:

* ``examples`` are not cut at three (Academy Ruins' extractor keeps at most three);
* ``trace`` follows comprules' own lineage (alignments of every pair of consecutive
  editions), through the 2009 renumbering (502.26a → 702.34a), where Academy Ruins'
  stored diffs stop at Amonkhet (2017);
* the unofficial glossary (38 entries Academy Ruins keeps in a data file of its own,
  written by hand) is made from each edition instead: one entry for each ability word
  207.2c lists (:func:`unofficial_glossary`).

Editions are named by set code (``BLB``) through ``data/editions.toml``; an edition
without a known set code by ``C`` and the year and month of its date (:func:`code_of`).
"""

from __future__ import annotations

import difflib
import re
from datetime import date

from . import languages
from .cards.concepts import fold
from .errors import NotFound, UsageError
from .model import Edition, Rule
from .store.read import StoredRules

__all__ = [
    "numbered",
    "all_rules",
    "rule",
    "definition_number",
    "examples",
    "keywords",
    "glossary",
    "glossary_entry",
    "unofficial_glossary",
    "ability_words",
    "toc",
    "raw_text",
    "metadata",
    "diff_metadata",
    "diff",
    "trace",
    "edition_of_code",
    "code_of",
    "headword",
    "FUZZY_CUTOFF",
]

#: What Academy Ruins takes for a rule key (``extract_cr.py``): ``100.1``, ``702.19a``.
_RULE_KEY = re.compile(r"^\d{3}\.[^\s.]{1,4}$")
#: A keyword's rule in its section (``701.2`` on, ``702.2`` on: 701.1 and 702.1 say what the
#: section is). ``find_definition``: keyword actions go to their first subrule, keyword
#: abilities are walked forward to the first subrule that says more than "X is a …".
_KEYWORD_RULE = r"(?:[2-9]|\d\d+)"
#: Subrules skipped by the walk whatever their text (contract, ``keyword_def.py``).
_WALK_THROUGH = frozenset({"702.57a", "702.22b"})
#: A fuzzy glossary match needs this token-sort ratio (0–100).
FUZZY_CUTOFF = 60
_OBSOLETE = " (obsolete)"


def numbered(edition: Edition) -> list[Rule]:
    """The rules and subrules Academy Ruins lists (``100.1``, ``100.1a``; no chapter or
    section headings), in document order; of a duplicated number only the first."""
    out, seen = [], set()
    for r in edition.rules:
        if r.kind in ("rule", "subrule") and "~" not in r.id and _RULE_KEY.match(r.number) and r.number not in seen:
            seen.add(r.number)
            out.append(r)
    return out


def _text(r: Rule) -> str:
    return r.text


def all_rules(edition: Edition) -> dict[str, dict]:
    """``GET /cr``: rule number → ``{ruleNumber, examples, ruleText, fragment, navigation}``,
    ``examples`` ``None`` when there are none, ``navigation`` the previous and next rule."""
    rules = numbered(edition)
    out = {}
    for i, r in enumerate(rules):
        out[r.number] = {
            "ruleNumber": r.number,
            "examples": list(r.examples) or None,
            "ruleText": _text(r),
            "fragment": r.number.split(".", 1)[1],
            "navigation": {
                "previousRule": rules[i - 1].number if i else None,
                "nextRule": rules[i + 1].number if i + 1 < len(rules) else None,
            },
        }
    return out


def _get(edition: Edition | StoredRules, number: str) -> Rule:
    r = edition.get(number)
    if r is None or r.kind not in ("rule", "subrule") or not _RULE_KEY.match(r.number):
        raise NotFound(f"no rule {number} in {edition.name}")
    return r


def _one_sentence_definition(text: str) -> bool:
    """``Defender is a static ability.``: one sentence that says what the keyword is; in
    the Chinese translation ``守军属于静止式异能。`` ("属于", "是" or "为": is; not a
    sentence that says what it "意指", means)."""
    if _HAN.search(text):
        sentences = [s for s in re.split(r"(?<=[。！？])[”」]?", text.strip()) if s.strip()]
        return len(sentences) == 1 and bool(re.search(r"属于|是|为", text)) and "意指" not in text  # "means"
    sentences = [s for s in re.split(r"(?<=[.!?])[”\"]?\s+", text.strip()) if s]
    return len(sentences) == 1 and bool(re.search(r"\bis an?\b", text))


_HAN = re.compile(r"[\u4e00-\u9fff]")


def definition_number(edition: Edition | StoredRules, number: str) -> str:
    """The rule ``find_definition=true`` answers for ``number``: ``701.N`` → ``701.Na``;
    ``702.N`` → the first subrule that is more than a number or a one-sentence "X is
    a …" (702.19 → 702.19a, 702.3 → 702.3b, 702.22 → 702.22c); any other number is
    itself. Raises :class:`NotFound` for a number the edition does not hold."""
    _get(edition, number)
    actions, abilities = keyword_sections(edition)
    section, _, rest = number.partition(".")
    if not re.fullmatch(_KEYWORD_RULE, rest) or section not in (actions, abilities):
        return number
    if section == actions:
        return number + "a" if edition.get(number + "a") is not None else number
    inside = re.compile(re.escape(number) + r"[a-z]+$")
    walk = [_get(edition, number)]
    for r in edition.children.get(number, []):  # its subrules, in document order
        if "~" in r.id:  # a repeated number: the first one stands (numbered)
            continue
        if r.kind != "subrule" or not inside.match(r.number):
            break
        walk.append(r)
    for r in walk:
        if not (r.number[-1].isdigit() or _one_sentence_definition(r.text) or r.number in _WALK_THROUGH):
            return r.number
    return walk[-1].number


def rule(edition: Edition | StoredRules, number: str, *, find_definition: bool = False) -> dict:
    """``GET /cr/{rule}``: ``{"ruleNumber", "ruleText"}``; :class:`NotFound` if absent."""
    if find_definition:
        number = definition_number(edition, number)
    r = _get(edition, number)
    return {"ruleNumber": r.number, "ruleText": _text(r)}


def examples(edition: Edition | StoredRules, number: str) -> dict:
    """``GET /cr/example/{rule}``: ``{"ruleNumber", "examples": [...] or None}`` (every
    example, without the "Example:" word); :class:`NotFound` if absent."""
    r = _get(edition, number)
    return {"ruleNumber": r.number, "examples": list(r.examples) or None}


def ability_words(edition: Edition) -> list[str]:
    """The ability words 207.2c lists ("The ability words are adamant, addendum, …"),
    lower case, in its order; ``[]`` when the edition prints no such list."""
    r = edition.get("207.2c")
    if r is None:
        return []
    m = re.search(r"ability words are (.+?)\.(?:\s|$)", r.text)
    if m:
        words = [w.strip().removeprefix("and ").strip().lower() for w in m.group(1).split(",")]
        return [w for w in words if w]
    m = _ABILITY_WORDS_ZH.search(r.text)  # 异能提示包括固色、附案、…，以及议定。
    if m:
        return [w.strip() for w in re.split(r"，以及|以及|、|，", m.group(1)) if w.strip()]
    return []


#: The list of 207.2c in the Chinese translation: "ability words include X、Y…，and Z".
_ABILITY_WORDS_ZH = re.compile(r"异能提示包括(.+?)。")


#: The titles of the sections of keyword actions and keyword abilities, in each language
#: that prints them (the Chinese translation: 关键字动作, 关键字异能).
KEYWORD_TITLES = (("keyword actions", "关键字动作"), ("keyword abilities", "关键字异能"))


def keyword_sections(edition: Edition | StoredRules) -> tuple[str | None, str | None]:
    """The numbers of the sections "Keyword Actions" and "Keyword Abilities" (or their
    translations, :data:`KEYWORD_TITLES`), found by their titles: 701 and 702 since
    2009-07-11, 501 and 502 before (1999–2003 have no "Keyword Actions": 501 was "Evasion
    Abilities"); ``None`` for one the edition lacks."""
    titled: dict[str, str] = {}
    for n in ("701", "702", "501", "502"):
        r = edition.get(n)
        if r is not None:
            titled.setdefault((r.title or "").strip().lower(), n)
    actions, abilities = (next((titled[t] for t in titles if t in titled), None) for titles in KEYWORD_TITLES)
    return actions, abilities


def keywords(edition: Edition) -> dict:
    """``GET /cr/keywords``: the titles of the keyword abilities (702.2 on; 502 before the
    2009 renumbering), of the keyword actions (701.2 on; 501) and the ability words listed
    by 207.2c, lower case."""

    def titles(section: str | None) -> list[str]:
        if section is None:
            return []
        return [r.title for r in edition.children.get(section, []) if r.kind == "rule" and r.title]

    actions, abilities = keyword_sections(edition)
    return {
        "keywordAbilities": titles(abilities),
        "keywordActions": titles(actions),
        "abilityWords": ability_words(edition),
    }


#: What marks an entry the CR has no glossary entry for (Academy Ruins' own marker).
UNOFFICIAL = "[Unofficial]"


def unofficial_glossary(edition: Edition) -> dict[str, dict]:
    """``GET /cr/unofficial-glossary``: an entry for each ability word 207.2c lists that
    the glossary has no entry for (``strive``, ``will of the council``), made from the
    edition itself: the word, what 207.2c says an ability word is, the rules that print
    the word, and :data:`UNOFFICIAL`. Same shape as :func:`glossary`.

    Academy Ruins keeps 38 such entries in a file of its own, written by hand (the CR
    gives ability words no entries, rule 207.2c); these follow each edition's own list.
    A Chinese edition's entries (its list: "异能提示包括…") cite 207.2c alone: a word is
    not found whole in a text without spaces.
    """
    words = ability_words(edition)
    if not words:
        return {}
    official = {k.removesuffix(_OBSOLETE) for k in glossary(edition)}
    source = edition.get("207.2c")
    chinese = source is not None and _ABILITY_WORDS_ZH.search(source.text) is not None
    if chinese:
        said = source.text.split("异能提示包括", 1)[0].strip()
    else:
        said = source.text.split(". The ability words are", 1)[0].strip() if source is not None else ""
    out: dict[str, dict] = {}
    # each rule's texts lower-cased once: a word is looked for as a whole word only in the
    # texts that hold it at all (about 60 words in 3,000 rules; the 74 English editions 18.8 s
    # as one search of every text each, 2.0 s so)
    texts = [
        (r.number, [t.lower() for t in (r.text, *r.examples)])
        for r in edition.rules
        if r.kind in ("rule", "subrule") and r.id != "207.2c"
    ]
    for word in words:
        if word in official:
            continue
        low = word.lower()
        if chinese:  # no spaces between words: 消失 (disappear) is also the verb, 反抗 in 反抗军 (Rebel)
            out[word] = {"term": word, "definition": f"{word}是异能提示。{said}参见规则207.2c。 {UNOFFICIAL}"}
            continue
        term = " ".join(w if w in ("of", "the", "a", "an") else w.capitalize() for w in word.split())
        printed = re.compile(r"\b" + re.escape(word) + r"\b", re.IGNORECASE)
        using = [number for number, lowered in texts if any(low in t and printed.search(t) for t in lowered)]
        see = "rule 207.2c" + (f" and rule{'s' if len(using) > 1 else ''} {', '.join(using[:8])}" if using else "")
        definition = (
            f"{term} is an ability word. {said}{'.' if said and not said.endswith('.') else ''} See {see}. {UNOFFICIAL}"
        )
        out[word] = {"term": term, "definition": definition}
    return out


#: The unofficial entries of the last editions asked (a server's worker answers one term
#: after another): id of the edition → (the edition, its entries).
_UNOFFICIAL: dict[int, tuple[Edition, dict[str, dict]]] = {}
_UNOFFICIAL_KEPT = 8


def _unofficial_kept(edition: Edition) -> dict[str, dict]:
    """:func:`unofficial_glossary` of ``edition``, made once while it is one of the last
    :data:`_UNOFFICIAL_KEPT` asked (the edition is held beside it, so its id stays its own)."""
    found = _UNOFFICIAL.get(id(edition))
    if found is not None and found[0] is edition:
        return found[1]
    entries = unofficial_glossary(edition)
    while len(_UNOFFICIAL) >= _UNOFFICIAL_KEPT:
        del _UNOFFICIAL[next(iter(_UNOFFICIAL))]
    _UNOFFICIAL[id(edition)] = (edition, entries)
    return entries


def headword(entry) -> str:
    """The glossary headword as printed: ``Banding, “Bands with Other”``, ``Mana Burn (Obsolete)``."""
    head = ", ".join((entry.term, *entry.aliases))
    return head + " (Obsolete)" if entry.obsolete else head


def glossary(edition: Edition) -> dict[str, dict]:
    """``GET /cr/glossary``: lower-cased headword → ``{"term", "definition"}`` (the
    definition keeps its line breaks: numbered senses, "See rule …")."""
    return {headword(g).lower(): {"term": headword(g), "definition": g.text} for g in edition.glossary}


def glossary_entry(edition: Edition, term: str, *, fuzzy: bool = False, unofficial: bool = True) -> dict:
    """``GET /cr/glossary/{term}``: the entry whose whole lower-cased headword is ``term``
    (``banding`` is not ``banding, “bands with other”``; ``mana burn`` is not ``mana
    burn (obsolete)``), or typed with a straight apostrophe (``city's blessing``) or
    without its accents (``pietinement``); with ``fuzzy`` the best token-sort match (rapidfuzz, default processing) of ``term`` among the headwords
    without " (obsolete)" and each of their comma-separated parts, if it scores at least
    :data:`FUZZY_CUTOFF`; with ``unofficial`` (the default, as Academy Ruins) the entries
    of :func:`unofficial_glossary` too. Raises :class:`NotFound`."""
    entries = glossary(edition)
    if unofficial:
        entries = {**_unofficial_kept(edition), **entries}
    key = term.lower()
    if key in entries:
        return entries[key]
    # as typed on a keyboard: a straight apostrophe ("city's blessing"); "mana burn" stays
    # 404 without its " (obsolete)", as the contract's examples have it
    loose = {fold(k): k for k in reversed(list(entries))}  # the first entry wins
    if fold(key) in loose:
        return entries[loose[fold(key)]]
    # accents not typed ("pietinement" is Piétinement), as /api/v1/glossary finds it
    from .indexer.text import fold as plain

    bare = {plain(k): k for k in reversed(list(entries))}
    if plain(key) in bare:
        return entries[bare[plain(key)]]
    if fuzzy:
        from rapidfuzz import fuzz, process, utils

        choices: dict[str, str] = {}
        for k in entries:
            for c in (k.removesuffix(_OBSOLETE), *k.removesuffix(_OBSOLETE).split(", ")):
                choices.setdefault(c, k)
        best = process.extractOne(term, list(choices), scorer=fuzz.token_sort_ratio, processor=utils.default_process)
        if best is not None and round(best[1]) >= FUZZY_CUTOFF:
            return entries[choices[best[0]]]
        # Chinese: a headword of two or three characters typed with one character of the same
        # sound (践蹋 for 践踏) scores 50 or 67; the one headword of its length one character
        # away is taken, none where two are
        if len(term) >= 2 and any("\u4e00" <= ch <= "\u9fff" for ch in term):
            near = {k for c, k in choices.items() if len(c) == len(term) and sum(a != b for a, b in zip(c, term)) == 1}
            if len(near) == 1:
                return entries[near.pop()]
    raise NotFound(f"no glossary entry {term!r} in {edition.name}")


def toc(edition: Edition) -> list[dict]:
    """``GET /cr/toc``: ``[{"number": 1, "title", "subsections": [{"number": 100, "title"}]}]``
    (numbers as integers; the glossary and credits are not chapters)."""
    out = []
    for ch in edition.rules:
        if ch.kind != "chapter" or not ch.number.isdigit():
            continue
        subs = [
            {"number": int(s.number), "title": s.title or s.text}
            for s in edition.children.get(ch.number, [])
            if s.kind == "section" and s.number.isdigit()
        ]
        out.append({"number": int(ch.number), "title": ch.title or ch.text, "subsections": subs})
    return out


def _long_date(d: date) -> str:
    return f"{d:%B} {d.day}, {d.year}"


def raw_text(edition: Edition) -> str:
    """``GET /file/cr``: the edition as a Comprehensive Rules text file, generated from
    the knowledge base (the source file is not kept in it): title, "These rules are
    effective as of …", contents (chapters, sections, Glossary, Credits), every rule
    with its examples ("Example: …" lines right under it), one blank line between
    rules, the glossary (headword, then definition), Credits. LF line ends, no BOM:
    the layout judgebot's loader and other readers of the official file rely on. A
    community translation (the Chinese CR) has its notice after the effective date, in
    its language and in English.
    """

    def clean(text: str) -> str:
        return re.sub(r"\n{2,}", "\n", text.replace("\r\n", "\n").replace("\r", "\n")).strip()

    lines = ["Magic: The Gathering Comprehensive Rules", ""]
    if edition.effective:
        lines += [f"These rules are effective as of {_long_date(edition.effective)}.", ""]
    known = languages.get(edition.lang)  # English for a code the table lacks
    if known.community:  # a community translation says so, in both languages
        lines += [known.notice, known.notice_en, ""]
    lines += [
        "Introduction",
        "",
        f"This file was generated by comprules from the edition {edition.name} of its knowledge base: "
        "the rules, examples and glossary as parsed from the published document. The original "
        "introduction and credits are not kept.",
        "",
        "Contents",
        "",
    ]
    heads = [r for r in edition.rules if r.kind in ("chapter", "section") and "~" not in r.id]
    for r in heads:
        lines.append(f"{r.number}. {clean(r.title or r.text)}")
    lines += ["Glossary", "", "Credits", ""]
    for r in edition.rules:
        if r.kind not in ("chapter", "section", "rule", "subrule"):
            continue
        number = r.number if r.kind == "subrule" else f"{r.number}."
        block = [f"{number} {clean(r.text)}"]
        block += [f"Example: {clean(x)}" for x in r.examples]
        lines += block + [""]
    lines += ["Glossary", ""]
    for g in edition.glossary:
        lines += [headword(g), clean(g.text), ""]
    lines += ["Credits", "", f"Generated from {edition.name} (source file {edition.source}).", ""]
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# Across editions: set codes, diffs, trace


def _chain(kb, lang: str) -> list:
    """The dated complete editions of ``lang``, oldest first."""
    return sorted(
        (e for e in kb.editions if e.lang == lang and e.kind == "edition" and e.effective), key=lambda e: e.effective
    )


def code_of(info) -> str:
    """The code an edition goes by on the Academy Ruins routes: its set's code
    (``BLB``, ``data/editions.toml``), or for an edition released without a known set code
    (a mid-cycle update, 2019-10-04; a set whose code is not confirmed yet) ``C`` and the
    year and month of its effective date (``C2608`` for 2026-08-07): stable, 5 characters,
    which ``/file/cr/{code}``, ``/diff/cr`` and every ``edition`` parameter take
    (:attr:`comprules.kb.EditionInfo.code_given`)."""
    return info.code_given


def edition_of_code(kb, code: str, lang: str = "en") -> str:
    """The name of the edition of set ``code`` (case-insensitive) in ``lang``; :class:`NotFound`."""
    for e in _chain(kb, lang):
        if code_of(e).lower() == code.lower():
            return e.name
    raise NotFound(f"no edition of set {code!r} in language {lang!r}")


def metadata(kb, lang: str = "en") -> dict:
    """``GET /metadata/cr``: ``{"data": [{"creationDay", "setCode", "setName"}]}``, newest
    first (``creationDay`` is the effective date; code and name ``None`` when unknown)."""
    return {
        "data": [
            {"creationDay": e.effective, "setCode": code_of(e), "setName": e.set or None}
            for e in reversed(_chain(kb, lang))
        ]
    }


def diff_metadata(kb, lang: str = "en") -> dict:
    """``GET /metadata/cr-diffs``: one row per pair of consecutive editions, newest first:
    ``{"creationDay", "sourceCode", "destCode", "destName", "bulletinUrl": None}``."""
    chain = _chain(kb, lang)
    return {
        "data": [
            {
                "creationDay": new.effective,
                "sourceCode": code_of(old),
                "destCode": code_of(new),
                "destName": new.set or None,
                "bulletinUrl": None,
            }
            for old, new in reversed(list(zip(chain, chain[1:])))
        ]
    }


def _mark(old: str, new: str) -> tuple[str, str]:
    """The two texts with the words that differ wrapped in ``<<<<`` … ``>>>>``."""
    a, b = old.split(" "), new.split(" ")
    out_a: list[str] = []
    out_b: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            out_a += a[i1:i2]
            out_b += b[j1:j2]
            continue
        if i2 > i1:
            out_a.append("<<<<" + " ".join(a[i1:i2]) + ">>>>")
        if j2 > j1:
            out_b.append("<<<<" + " ".join(b[j1:j2]) + ">>>>")
    return " ".join(out_a), " ".join(out_b)


def diff(
    kb,
    old: str | None = None,
    new: str | None = None,
    *,
    nav: bool = False,
    lang: str = "en",
    edition: str | None = None,
) -> dict:
    """``GET /diff/cr``: the changes from the edition of set ``old`` to that of ``new``.

    Neither given: the latest edition (or ``edition``) against the one before it; one
    given: that end and its neighbour. ``changes`` lists the rules added, removed or
    whose words changed (texts marked ``<<<<`` … ``>>>>``), ``moves`` the rules only
    renumbered; a rule whose only change is a renumbered reference is in neither.
    ``nav`` adds the neighbouring diffs' codes. Raises :class:`NotFound` when a code
    names no edition or ``old`` is not older than ``new``.
    """
    from .align.history import diff as align_pair

    chain = _chain(kb, lang)
    names = [e.name for e in chain]
    if old is None and new is None:
        end = kb.resolve_name(edition, lang=lang) if edition else (names[-1] if names else None)
        if end not in names or names.index(end) == 0:
            raise NotFound("no diff for this edition")
        o, n = names.index(end) - 1, names.index(end)
    else:
        o = names.index(edition_of_code(kb, old, lang)) if old else None
        n = names.index(edition_of_code(kb, new, lang)) if new else None
        if o is None:
            o = n - 1
        if n is None:
            n = o + 1
        if o < 0 or n >= len(names) or o >= n:
            raise NotFound("no diff between these editions")
    a_info, b_info = chain[o], chain[n]
    alignment = align_pair(kb, a_info.name, b_info.name)
    a_ed, b_ed = kb.load(a_info.name), kb.load(b_info.name)
    changes, moves = [], []
    for c in alignment.rules:
        if c.kind == "kept":
            continue
        ra = a_ed.get(c.old) if c.old else None
        rb = b_ed.get(c.new) if c.new else None
        if ra is not None and rb is not None and (c.words in (None, "references") or ra.text == rb.text):
            # the same rule text: its cited numbers at most followed the renumbering (the
            # alignment's facet), or only its examples changed (Academy Ruins diffs the rule
            # text, ``ruleText``): a move when its own number changed, nothing otherwise
            if c.old != c.new:
                moves.append({"from": c.old, "to": c.new})
            continue
        if (ra is not None and not _RULE_KEY.match(ra.number)) or (rb is not None and not _RULE_KEY.match(rb.number)):
            continue  # headings: Academy Ruins' diffs hold numbered rules only
        ta, tb = (ra.text if ra else ""), (rb.text if rb else "")
        if ra is not None and rb is not None:
            ta, tb = _mark(ta, tb)
        changes.append(
            {
                "old": {"ruleNumber": ra.number, "ruleText": ta} if ra else None,
                "new": {"ruleNumber": rb.number, "ruleText": tb} if rb else None,
            }
        )
    body = {
        "creationDay": b_info.effective,
        "sourceSet": a_info.set or None,
        "sourceCode": code_of(a_info),
        "destSet": b_info.set or None,
        "destCode": code_of(b_info),
        "changes": changes,
        "moves": moves,
        "nav": None,
    }
    if nav:
        body["nav"] = {
            "prevSourceCode": code_of(chain[o - 1]) if o > 0 else None,
            "nextDestCode": code_of(chain[n + 1]) if n + 1 < len(chain) else None,
        }
    return body


def trace(
    kb, number: str, edition: str | None = None, *, find_definition: bool = False, lang: str | None = None
) -> dict:
    """``GET /cr/trace/{rule}``: the changes that made rule ``number`` of ``edition``
    (default the latest), newest first: ``{"ruleNumber", "items": [{"action", "old",
    "new", "diff"}]}``. ``action`` is ``created`` (added), ``edited`` (same number, other
    words), ``moved`` (renumbered, same words) or ``replaced`` (renumbered and reworded,
    split or merged); ``diff`` names the two editions by set and code. Raises
    :class:`NotFound` for a number the edition does not hold."""
    from .align.history import kb_history

    name = kb.resolve_name(edition, lang=lang)
    ed = StoredRules(kb.store, name)
    if find_definition:
        number = definition_number(ed, number)
    _get(ed, number)
    info = kb.info(name)
    chain = [e for e in _chain(kb, info.lang)]
    by_name = {e.name: e for e in chain}
    order = [e.name for e in chain]
    try:
        steps = kb_history(kb, number, name)
    except UsageError:
        steps = []
    items = []
    for s in steps:
        if s.kind in ("first", "removed") or s.edition not in by_name:
            continue
        if order.index(s.edition) > order.index(name):
            continue
        prev = by_name[order[order.index(s.edition) - 1]] if order.index(s.edition) else None
        dest = by_name[s.edition]
        new = {"ruleNumber": s.number, "ruleText": s.text}
        old = None
        if s.kind == "added":
            action = "created"
        else:
            old_text = kb.store.text(prev.name, s.previous) if prev and s.previous else None
            old = {"ruleNumber": s.previous, "ruleText": old_text}
            if s.kind == "edited":
                action = "edited"
            elif s.kind == "renumbered" and not s.changes:
                action = "moved"
                old, new = {"ruleNumber": s.previous}, {"ruleNumber": s.number}
            else:
                action = "replaced"
        items.append(
            {
                "action": action,
                "old": old,
                "new": new,
                "diff": {
                    "sourceSet": prev.set or None if prev else None,
                    "sourceCode": code_of(prev) if prev else None,
                    "destSet": dest.set or None,
                    "destCode": code_of(dest),
                },
            }
        )
    return {"ruleNumber": number, "items": items[::-1]}
