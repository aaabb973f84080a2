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

import re
from collections.abc import Iterable, Iterator

from .. import languages
from ..model import GlossaryEntry

MIN_LENGTH = 3
#: Terms found in more than this share of an edition's rules are not linked.
COMMON = 0.02
#: ... and in more than this many (a small document links all its terms).
MIN_COMMON = 25


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


class TermMatcher:
    """Find glossary terms in text: ``(start, end, slug)`` of each, left to right."""

    def __init__(self, slugs: dict[str, str], spaced: bool = True):
        self.slugs = slugs
        self.spaced = spaced
        self.pattern = None
        self._found: dict[str, tuple[str, ...]] = {}
        if slugs:
            body = "(?:" + _trie_pattern(slugs) + ")"
            self.pattern = re.compile(r"(?<![\w-])" + body + r"(?![\w-])" if spaced else body, re.IGNORECASE)

    @classmethod
    def of(cls, glossary: Iterable[GlossaryEntry], lang: str = "en") -> "TermMatcher":
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
        return cls(slugs, spaced)

    @classmethod
    def for_edition(cls, edition, common: float = COMMON, full: "TermMatcher | None" = None) -> "TermMatcher":
        """The matcher of an edition's glossary, less the terms found in more than
        ``common`` of its rules ("player", "card", "ability"): linked everywhere, they
        would only weigh the pages down. ``full``: the edition's :meth:`of`, when made
        already (its pattern takes a tenth of a second to compile)."""
        full = full if full is not None else cls.of(edition.glossary, edition.lang)
        if full.pattern is None:
            return full
        counts: dict[str, int] = {}
        for r in edition.rules:
            for slug in full.slugs_in(r.text):
                counts[slug] = counts.get(slug, 0) + 1
        limit = max(MIN_COMMON, common * len(edition.rules))
        frequent = {slug for slug, n in counts.items() if n > limit}
        if not frequent:
            return full
        return cls({form: slug for form, slug in full.slugs.items() if slug not in frequent}, full.spaced)

    def slugs_in(self, text: str) -> tuple[str, ...]:
        """The distinct slugs :meth:`find` finds in ``text``, in the order first found;
        kept per text (an edition's rule texts are read twice: :meth:`for_edition` and
        the glossary's "used in" lists)."""
        found = self._found.get(text)
        if found is None:
            found = self._found[text] = tuple(dict.fromkeys(slug for _s, _e, slug in self.find(text)))
        return found

    def find(self, text: str) -> Iterator[tuple[int, int, str]]:
        if self.pattern is None:
            return
        slugs = self.slugs
        for m in self.pattern.finditer(text):
            slug = slugs.get(m.group().lower())
            if slug is not None:
                yield m.start(), m.end(), slug
