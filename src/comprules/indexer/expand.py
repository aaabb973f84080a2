"""Query expansion: players' words and the CR's obsolete terms, searched in the CR's words.

comprules' own code. Two tables of (what is typed → what the rules say), built with the
index and stored in it (``expansions.json``), per analyzed language:

* **players' words** (``data/player_terms.toml``, English): slang and shorthand from
  public glossaries of Magic slang ("fizzle" → "targets illegal resolve", "ETB" →
  "enters", "bounce" → "return to owner's hand"); the file names its sources;
* **keywords' effects** (``data/keyword_effects.toml``, English): what a keyword ability
  does in the rules' other words, as the rule each entry cites defines it ("deathtouch"
  → "lethal damage", 702.2c; "trample" → "excess damage", 702.19b), each entry checked
  against the latest English edition (:func:`keyword_effects`): two keywords typed
  together find the rule where they meet, which rarely prints both names;
* **obsolete terms** of the latest edition's glossary: an entry whose headword says
  "(Obsolete)" and whose definition names the current term ("Converted Mana Cost
  (Obsolete): An obsolete term for mana value." → "mana value"; "In Play (Obsolete) …
  See Battlefield." → "battlefield"; "Unblockable (Obsolete): A term that meant “can't
  be blocked.”").

Each typed form is stored as its *keys*: per token, the query side's term for it
(:func:`.inflect.query_term`: the index's term for the token, or for an inflection of
it, "fizzles" → "fizzl") or else the folded token itself, stop words left out; the
site's JavaScript ranker, which has the index's token → term table and no stemmer,
makes the same keys. A query's plain words (not in a phrase, group or operator query) are
matched against the typed forms, longest first from left to right (:func:`matches`),
and each match becomes one ``alt`` clause (:mod:`.query`) whose first child is what
was typed (a word, or the group of the words) and whose other children are the
groups of the rules' words: :mod:`.rank` scores it as the best of the typed words and
:data:`WEIGHT` × each group of rules' words.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Container, Iterable

from . import text as T
from .inflect import query_term
from .languages import LANGUAGES

EXPANSIONS_FILE = "expansions.json"
PLAYER_TERMS = Path(__file__).resolve().parent.parent / "data" / "player_terms.toml"
KEYWORD_EFFECTS = Path(__file__).resolve().parent.parent / "data" / "keyword_effects.toml"
#: Weight of the rules' words of an expansion, relative to the words typed.
WEIGHT = 0.5
#: A keyword's effect ("keyword") is looked for when the query names exactly this many
#: keywords of the table (two keywords typed together ask where they meet), and only in
#: the units that hold the other keyword's words (``indexer/searching.py`` ``_expanded``).
KEYWORDS_MET = 2
#: Longest typed form looked up, in keys (stop words left out).
MAX_KEYS = 4
#: The language of the players' words table.
PLAYER_LANG = "en"

#: How an obsolete glossary definition names the current term, in order of preference.
_OBSOLETE_TARGET = (
    re.compile(r"\bobsolete term for (?:an? |the )?“?([^.,“”]+)", re.I),
    re.compile(r"\bolder name for (?:the )?([^.,“”]+)", re.I),
    re.compile(r"\bterm that meant “([^”]+?)[.,]?”", re.I),
    re.compile(r"\bSee rules? \d{3}(?:\.\d+[a-z]?)?, “([^”]+?)[.,]?”", re.I),
    re.compile(
        r"\berrata in the Oracle card reference (?:so they |to )(?:simply )?(?:say|read|refer to|state)[^“.]*“([^”]+?)[.,]?”",
        re.I,
    ),
    re.compile(r"\bSee ([A-Z][^.,“”]*)\."),
)
_PLACEHOLDER = re.compile(r"\[[^\]]*\]")


@dataclass(frozen=True)
class Expansion:
    """Typed ``keys`` (see the module doc) → the token lists of the rules' words."""

    keys: tuple[str, ...]
    rules: tuple[tuple[str, ...], ...]
    kind: str  # "player", "keyword" or "obsolete"

    def as_json(self) -> list:
        return [list(self.keys), [list(r) for r in self.rules], self.kind]


def load_player_terms(path: Path = PLAYER_TERMS) -> list[tuple[list[str], list[str]]]:
    """The (typed forms, rules' words) of the players' words table; ``ValueError`` names
    the file and the entry for a malformed one."""
    with open(path, "rb") as f:
        data = tomllib.load(f)
    sources = data.get("source", {})
    out = []
    for i, entry in enumerate(data.get("term", []), 1):
        say, rules, cited = entry.get("say"), entry.get("rules"), entry.get("source")
        if not (
            isinstance(say, list) and say and isinstance(rules, list) and rules and isinstance(cited, list) and cited
        ):
            raise ValueError(f"{path}: term {i}: needs say, rules and source lists")
        unknown = [s for s in cited if s not in sources]
        if unknown:
            raise ValueError(f"{path}: term {i} ({say[0]!r}): unknown source {unknown[0]!r}")
        out.append(([str(s) for s in say], [str(r) for r in rules]))
    return out


def load_keyword_effects(path: Path = KEYWORD_EFFECTS) -> list[tuple[list[str], list[str], str]]:
    """The (keyword forms, rules' words, rule number) of the keywords' effects table;
    ``ValueError`` names the file and the entry for a malformed one."""
    with open(path, "rb") as f:
        data = tomllib.load(f)
    out = []
    for i, entry in enumerate(data.get("keyword", []), 1):
        say, rules, rule = entry.get("say"), entry.get("rules"), entry.get("rule")
        if not (isinstance(say, list) and say and isinstance(rules, list) and rules and isinstance(rule, str)):
            raise ValueError(f"{path}: keyword {i}: needs say and rules lists and a rule")
        out.append(([str(s) for s in say], [str(r) for r in rules], rule))
    return out


def keyword_effects(
    edition, entries: Iterable[tuple[list[str], list[str], str]]
) -> tuple[list[tuple[list[str], list[str]]], list[str]]:
    """The (typed forms, rules' words) of the entries whose rule ``edition`` prints with
    every one of its rules' words (as the index's words: case and quotes aside), and
    the keywords of the entries it does not (renumbered or reworded since the table was
    written)."""
    kept, left = [], []
    for say, rules, number in entries:
        rule = edition.get(number)
        words = " ".join(T.tokens(rule.text)) if rule is not None else ""
        if rule is not None and all(f" {' '.join(T.tokens(r))} " in f" {words} " for r in rules):
            kept.append((say, rules))
        else:
            left.append(say[0])
    return kept, left


def translated_keyword_effects(
    doc, english, entries: Iterable[tuple[list[str], list[str], str]]
) -> list[tuple[list[str], list[str]]]:
    """The keywords' effects in a complete translation (the Chinese CR): for each entry
    that ``english`` (the English edition of ``doc``'s date) prints, the translation's
    title of the keyword's rule (702.19 践踏) and, for its rules' words, the headwords of
    the translation's glossary entries paired with the English ones of those words
    ("excess damage" → 过量伤害, :func:`comprules.align.translation.glossary_pairs`), kept
    when the translation's rule prints them all. An entry whose words are no glossary
    headword is left out: the table's words are English."""
    from ..align.translation import glossary_pairs
    from ..model import parent_number

    entries = list(entries)
    kept, _left = keyword_effects(english, entries)
    printed = {tuple(say) for say, _rules in kept}
    theirs = {" ".join(T.tokens(e.term)): g.term for g, e in glossary_pairs(doc, english)}
    out = []
    for say, rules, number in entries:
        if tuple(say) not in printed:
            continue
        keyword = doc.get(parent_number(number) or "")
        rule = doc.get(number)
        words = [theirs.get(" ".join(T.tokens(r))) or "" for r in rules]
        if keyword is not None and keyword.title and rule is not None and all(w and w in rule.text for w in words):
            out.append(([keyword.title], words))
    return out


def obsolete_terms(glossary: Iterable[tuple[list[str], str]]) -> list[tuple[list[str], list[str]]]:
    """(typed forms, rules' words) of obsolete glossary entries, given as (headword and
    aliases, definition): the current term the definition names ("an obsolete term
    for …", "an older name for …", "a term that meant “…”", "See rule 308,
    “Kindreds.”", "errata … to say “…”", "See Battlefield."; placeholders such as
    "[something]" left out). Entries that name none ("Mana Burn") are left out.

    >>> obsolete_terms([(["Converted Mana Cost"], "An obsolete term for mana value. Cards…"),
    ...                 (["Remove from the Game", "Removed"], "“Remove [x] from the game” is an obsolete"
    ...                  " term for “exile [x].” … See Exile."),
    ...                 (["Mana Burn"], "Older versions of the rules stated that…")])
    [(['Converted Mana Cost'], ['mana value']), (['Remove from the Game', 'Removed'], ['exile'])]
    """
    out = []
    for names, definition in glossary:
        for pattern in _OBSOLETE_TARGET:
            if m := pattern.search(definition):
                target = " ".join(_PLACEHOLDER.sub(" ", m.group(1)).split())
                if target:
                    out.append((list(names), [target]))
                break
    return out


def typed_keys(tokens: list[str], lang: str, term: Callable[[str], str | None]) -> tuple[str, ...]:
    """The keys of a typed form's tokens: the query side's term of each (``term(token)``,
    :func:`.inflect.query_term`) or the token itself, stop words left out."""
    stop = LANGUAGES[lang].stop
    return tuple(term(t) or t for t in tokens if t not in stop)


def build_expansions(
    lang: str, pairs: list[tuple[list[str], list[str]]], kind: str, term: Callable[[str], str | None]
) -> list[Expansion]:
    """The expansions of one language from (typed forms, rules' words) pairs; a form that
    is the rules' words themselves is left out, and the rules' words must all be known
    to the index (``term``) so that both engines score them alike. A form of filler
    words only ("play") or one that is a single key once its stop words are left out
    ("In Play") is left out too: a question's wording would expand."""
    out: dict[tuple[str, ...], Expansion] = {}
    stop, filler = LANGUAGES[lang].stop, LANGUAGES[lang].filler
    for forms, rules in pairs:
        groups = []
        for r in rules:
            words = tuple(T.tokens(r))
            if words and all(term(w) is not None or w in LANGUAGES[lang].stop for w in words):
                groups.append(words)
        if not groups:
            continue
        for form in forms:
            tokens = T.tokens(form)
            keys = typed_keys(tokens, lang, term)
            if not keys or len(keys) > MAX_KEYS or any(keys == typed_keys(list(g), lang, term) for g in groups):
                continue
            if all(t in filler or t in stop for t in tokens) or (len(keys) == 1 < len(tokens)):
                continue  # a question word ("play"), or a form whose meaning was in its stop words ("in play")
            if keys not in out:  # the first entry of a form wins
                out[keys] = Expansion(keys, tuple(groups), kind)
    return list(out.values())


class Expansions:
    """The expansions of one index, per language, keyed by their typed keys."""

    def __init__(self, by_lang: dict[str, list[Expansion]]):
        self.by_lang = {lang: {e.keys: e for e in items} for lang, items in by_lang.items()}

    @classmethod
    def load(cls, path: Path) -> "Expansions":
        try:
            raw = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return cls({})
        return cls(
            {
                lang: [Expansion(tuple(k), tuple(tuple(r) for r in rules), kind) for k, rules, kind in items]
                for lang, items in raw.get("langs", {}).items()
            }
        )

    def save(self, path: Path) -> None:
        data = {
            "format": 1,
            "langs": {lang: [e.as_json() for e in table.values()] for lang, table in sorted(self.by_lang.items())},
        }
        Path(path).write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")

    def matches(self, lang: str, keys: list[str | None]) -> list[tuple[int, int, Expansion]]:
        """The (start, end, expansion) found in a query's keys (``None`` for a word that
        cannot be part of a match: a stop word is skipped, anything else breaks a match),
        longest first, left to right, without overlaps."""
        table = self.by_lang.get(lang)
        if not table:
            return []
        out = []
        i = 0
        while i < len(keys):
            found = None
            if keys[i]:
                for end in range(min(len(keys), i + MAX_KEYS * 2), i, -1):
                    raw = [k for k in keys[i:end] if k != ""]
                    if None in raw or keys[end - 1] in ("", None):
                        continue
                    span = tuple(k for k in raw if k is not None)
                    if span in table:
                        found = (i, end, table[span])
                        break
            if found:
                out.append(found)
                i = found[1]
            else:
                i += 1
        return out


def index_expansions(
    editions: Iterable,
    current: Iterable[str],
    tables: dict[str, dict[str, str]],
    terms: dict[str, Container[str]],
    player_terms: Path | None = PLAYER_TERMS,
    keywords: Path | None = KEYWORD_EFFECTS,
) -> Expansions:
    """The expansions an index stores: the obsolete terms of the glossary of each
    analyzed language's latest edition (``current``: the default scope's edition names),
    the players' words (English), and the keywords' effects that the latest English
    edition prints (:func:`keyword_effects`), over the index's token → term ``tables``
    and its ``terms`` per language (what the query side looks words up in); a form
    already expanded keeps its first expansion."""
    current = set(current)
    by_lang: dict[str, list[Expansion]] = {}

    def term_of(lang: str) -> Callable[[str], str | None]:
        table, known = tables.get(lang, {}), terms.get(lang, ())
        return lambda token: query_term(token, lang, table, known)

    def add(found: list[Expansion]) -> None:  # English forms not expanded yet
        known = {e.keys for e in by_lang.get(PLAYER_LANG, [])}
        by_lang.setdefault(PLAYER_LANG, []).extend(e for e in found if e.keys not in known)

    for edition in editions:
        if edition.name not in current or edition.lang not in LANGUAGES or not edition.glossary:
            continue
        pairs = obsolete_terms([([g.term, *g.aliases], g.text) for g in edition.glossary if g.obsolete])
        by_lang.setdefault(edition.lang, []).extend(
            build_expansions(edition.lang, pairs, "obsolete", term_of(edition.lang))
        )
    if player_terms is not None and PLAYER_LANG in LANGUAGES:
        add(build_expansions(PLAYER_LANG, load_player_terms(player_terms), "player", term_of(PLAYER_LANG)))
    english = [e for e in editions if e.name in current and e.lang == PLAYER_LANG and e.kind == "edition"]
    if keywords is not None and english and PLAYER_LANG in LANGUAGES:
        table = load_keyword_effects(keywords)
        pairs, _left = keyword_effects(english[-1], table)
        add(build_expansions(PLAYER_LANG, pairs, "keyword", term_of(PLAYER_LANG)))
        # a complete translation's latest edition beside the English edition of its date
        # (a trial: "死触 践踏" found 122.1b first, "trample deathtouch" 702.2c and 702.19b)
        by_date = {e.effective: e for e in editions if e.lang == PLAYER_LANG and e.kind == "edition"}
        for doc in editions:
            twin = by_date.get(doc.effective)
            if doc.name in current and doc.lang != PLAYER_LANG and doc.lang in LANGUAGES and twin is not None:
                found = translated_keyword_effects(doc, twin, table)
                by_lang.setdefault(doc.lang, []).extend(build_expansions(doc.lang, found, "keyword", term_of(doc.lang)))
    return Expansions(by_lang)
