"""Glossary terms where they occur in rule text: one matcher per edition.

Every glossary headword (each part of "Control, Controller"), and each alias, is
looked for in rule text with its plural ("Counters", "Abilities"), case-insensitively,
longest match first ("mana pool" before "mana"), as whole words. The matcher is one
regular expression built as a trie of the lower-cased forms, so matching costs one
pass over the text whatever the size of the glossary. Obsolete entries, and forms
shorter than three letters, are not linked. In a language written without spaces
(Chinese, per the language table) a term is found anywhere in the text, longest
first, without plurals, from two characters on ("践踏").

>>> from comprules.model import GlossaryEntry
>>> def g(term, slug): return GlossaryEntry(term, (), False, ("…",), "…", 1, slug)
>>> m = TermMatcher.of([g("Mana", "mana"), g("Mana Pool", "mana-pool"), g("Ability", "ability")])
>>> [(text[s:e], slug) for s, e, slug in m.find(text := "Abilities add mana to a mana pool.")]
[('Abilities', 'ability'), ('mana', 'mana'), ('mana pool', 'mana-pool')]
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator

from .. import languages
from ..model import GlossaryEntry

MIN_LENGTH = 3
#: Terms found in more than this share of an edition's rules are not linked.
COMMON = 0.02
#: ... and in more than this many (a small document links all its terms).
MIN_COMMON = 25
#: The texts whose matches a :class:`TermScan` keeps (about two editions' rules,
#: examples and glossary senses; the caches of a page worker together cost about 60 MB,
#: ``docs/measurements.md``, Build).
SCAN_KEEP = 12_000


def forms(name: str) -> list[str]:
    """A headword and its plurals, lower-cased: ``ability`` → ``abilities``, ``abilitys``."""
    low = name.lower()
    out = [low]
    if low.endswith("y") and len(low) > 1 and low[-2] not in "aeiou":
        out.append(low[:-1] + "ies")
    elif low.endswith(("s", "x", "ch", "sh")):
        out.append(low + "es")
    else:
        out.append(low + "s")
    return out


def _trie_pattern(words: Iterable[str]) -> str:
    """A regular expression matching any of ``words`` (a trie, longest first)."""
    trie: dict = {}
    for w in words:
        node = trie
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = True

    def build(node: dict) -> str:
        end = "" in node
        branches = [re.escape(ch) + build(child) for ch, child in sorted(node.items()) if ch]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if end else body

    return build(trie)


_ONE_WORD = re.compile(r"\w+")


@functools.lru_cache(maxsize=4)
def _pattern(forms: frozenset[str], spaced: bool) -> re.Pattern:
    """The pattern of ``forms``, compiled once for the matchers that share them (an
    edition's whole glossary and the same less its common terms)."""
    body = "(?:" + _trie_pattern(forms) + ")"
    return re.compile(r"(?<![\w-])" + body + r"(?![\w-])" if spaced else body, re.IGNORECASE)


class TermScan:
    """The glossary forms of every edition of one language, found in a text once for
    all of them: ``(start, end, form)`` of each match, the form lower-cased.

    A site renders the same rule texts in edition after edition, each with a matcher
    of its own glossary; compiling each edition's pattern (a tenth of a second) and
    running it over each text again was a sixth of the edition pages' time. A
    :class:`TermMatcher` whose forms are all in the scan's reads the scan's matches
    instead (:meth:`TermMatcher.find` says when that gives its own answer). The
    matches of the last :data:`SCAN_KEEP` texts are kept.
    """

    def __init__(self, forms: Iterable[str], spaced: bool = True, keep: int = SCAN_KEEP):
        self.forms = frozenset(forms)
        self.spaced = spaced
        self.pattern = _pattern(self.forms, spaced)
        self.find = functools.lru_cache(maxsize=keep)(self._find)

    def _find(self, text: str) -> tuple[tuple[int, int, str], ...]:
        return tuple((m.start(), m.end(), m.group().lower()) for m in self.pattern.finditer(text))

    @classmethod
    def of(cls, matchers: Iterable["TermMatcher"]) -> dict[bool, "TermScan"]:
        """One scan for the spaced matchers, one for the others (languages written
        without spaces), each of the forms of all of them."""
        forms: dict[bool, set[str]] = {}
        for m in matchers:
            forms.setdefault(m.spaced, set()).update(m.slugs)
        return {spaced: cls(found, spaced) for spaced, found in forms.items() if found}


class TermMatcher:
    """Find glossary terms in text: ``(start, end, slug)`` of each, left to right.

    ``scan``: a :class:`TermScan` holding every form of this matcher (it is not used
    otherwise); the pattern of the matcher's own forms is compiled only when a text
    needs it. ``skip``: slugs found but not given (the terms too common to link).
    """

    def __init__(
        self,
        slugs: dict[str, str],
        spaced: bool = True,
        scan: TermScan | None = None,
        skip: frozenset[str] = frozenset(),
    ):
        self.slugs = slugs
        self.spaced = spaced
        self.skip = skip
        self._pattern: re.Pattern | None = None
        self._found: dict[str, tuple[str, ...]] = {}
        fits = scan is not None and scan.spaced == spaced and scan.forms.issuperset(slugs)
        self.scan = scan if fits else None

    @property
    def pattern(self) -> re.Pattern | None:
        """The pattern of this matcher's forms (``None`` without any), compiled once."""
        if self._pattern is None and self.slugs:
            self._pattern = _pattern(frozenset(self.slugs), self.spaced)
        return self._pattern

    @classmethod
    def of(cls, glossary: Iterable[GlossaryEntry], lang: str = "en", scan: TermScan | None = None) -> "TermMatcher":
        """The matcher of an edition's glossary in ``lang``."""
        spaced = languages.get(lang).spaced
        min_length = MIN_LENGTH if spaced else 2
        slugs: dict[str, str] = {}
        for entry in glossary:
            if entry.obsolete:
                continue
            names = [p.strip() for p in entry.term.split(",")] + list(entry.aliases)
            for name in names:
                if len(name) < min_length or not any(ch.isalpha() for ch in name):
                    continue
                if "(" in name or '"' in name or "“" in name or "（" in name:
                    continue
                for form in forms(name) if spaced else [name.lower()]:
                    slugs.setdefault(form, entry.slug)
        return cls(slugs, spaced, scan)

    @classmethod
    def for_edition(cls, edition, common: float = COMMON, full: "TermMatcher | None" = None) -> "TermMatcher":
        """The matcher of an edition's glossary, less the terms found in more than
        ``common`` of its rules ("player", "card", "ability"): linked everywhere, they
        would only weigh the pages down. They are still found, and left out: the words
        of a common term are not linked as other terms ("mana" in "mana cost").
        ``full``: the edition's :meth:`of`, when made already (with its scan, which the
        result shares)."""
        full = full if full is not None else cls.of(edition.glossary, edition.lang)
        if not full.slugs:
            return full
        counts: dict[str, int] = {}
        for r in edition.rules:
            for slug in full.slugs_in(r.text):
                counts[slug] = counts.get(slug, 0) + 1
        limit = max(MIN_COMMON, common * len(edition.rules))
        frequent = {slug for slug, n in counts.items() if n > limit}
        if not frequent:
            return full
        return cls(full.slugs, full.spaced, full.scan, frozenset(frequent))

    def slugs_in(self, text: str) -> tuple[str, ...]:
        """The distinct slugs :meth:`find` finds in ``text``, in the order first found;
        kept per text (an edition's rule texts are read twice: :meth:`for_edition` and
        the glossary's "used in" lists)."""
        found = self._found.get(text)
        if found is None:
            found = self._found[text] = tuple(dict.fromkeys(slug for _s, _e, slug in self.find(text)))
        return found

    def find(self, text: str) -> Iterator[tuple[int, int, str]]:
        """``(start, end, slug)`` of each term in ``text``, left to right.

        With a scan, its matches are this matcher's when every matched form is one of
        this matcher's: both patterns are tries taking the longest form at a position,
        and this matcher's forms are a subset of the scan's, so where the scan's
        longest form is one of ours it is ours too, and where the scan matches nothing
        neither do we. Where it matched one word we lack (a term of another edition's
        glossary), none of ours starts in that word nor ends inside it (a form is a
        whole word in a spaced language). A text where the scan matched several words
        we lack ("mana pool" in an edition whose glossary has only "mana") is read with
        our own pattern.
        """
        slugs, skip = self.slugs, self.skip
        if self.scan is not None:
            found = self.scan.find(text)
            if all(form in slugs or (self.spaced and _ONE_WORD.fullmatch(form)) for _s, _e, form in found):
                for start, end, form in found:
                    slug = slugs.get(form)
                    if slug is not None and slug not in skip:
                        yield start, end, slug
                return
        pattern = self.pattern
        if pattern is None:
            return
        for m in pattern.finditer(text):
            slug = slugs.get(m.group().lower())
            if slug is not None and slug not in skip:
                yield m.start(), m.end(), slug
