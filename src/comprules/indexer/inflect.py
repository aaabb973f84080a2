"""Inflections of a query word the index never saw: "died" → "die", "trampler" → "trample".

comprules' own code. The query side turns a token into an index term through the
index's token → term table (:mod:`.suggest`), so that the site's JavaScript ranker,
which has the same table and no stemmer, does the same. A word typed in a form the
rules never print ("died", "trampling", "lifelinking", "overloaded", "swapped")
would then match nothing; :func:`inflections` lists the forms to try instead, in
order, and :mod:`.rank` takes the first one the index knows (as a token, or as a
term: "trampl" is the term of "trample"). ``site/static/search.js`` has the same
rules. Only English words of plain letters a–z, four letters or more, are inflected;
a candidate has three letters at least.
"""

from __future__ import annotations

from typing import Container, Mapping

#: The languages whose words are inflected.
LANGS = frozenset({"en"})


def inflections(token: str, lang: str) -> list[str]:
    """The forms to try for an unknown token, in order (empty when none apply).

    >>> inflections("swapped", "en"), inflections("trampling", "en"), inflections("abilities", "en")
    (['swapp', 'swappe', 'swap'], ['trampl', 'trample'], ['ability', 'abiliti', 'abilitie'])
    >>> inflections("kill", "en"), inflections("créatures", "fr"), inflections("seed", "en")
    ([], [], [])
    """
    if lang not in LANGS or len(token) < 4 or not _ascii_word(token):
        return []
    t = token
    out: list[str] = []
    if t.endswith("ies"):
        out.append(t[:-3] + "y")
    if t.endswith("es"):
        out.append(t[:-2])
    if t.endswith("s") and not t.endswith("ss"):
        out.append(t[:-1])
    if t.endswith("ed"):
        # "died" is die, "seed" not see: no verb of two letters but "ee" before its -d
        out += [t[:-2]] if len(t) == 4 and t.endswith("eed") else [t[:-2], t[:-1]]
        if t[-3] == t[-4]:
            out.append(t[:-3])
    if t.endswith("ing"):
        out += [t[:-3], t[:-3] + "e"]
        if len(t) > 5 and t[-4] == t[-5]:
            out.append(t[:-4])
    if t.endswith("ers"):
        out += [t[:-3], t[:-2]]
    if t.endswith("er"):
        out += [t[:-2], t[:-1]]
    return [c for c in out if len(c) >= 3]


def _ascii_word(token: str) -> bool:
    return all("a" <= c <= "z" for c in token)


def query_term(token: str, lang: str, table: Mapping[str, str], terms: Container[str]) -> str | None:
    """The index term of a query token: from the index's token → term ``table``; for a
    token the index never saw, the term of its first inflection that the table knows,
    or that is itself one of the index's ``terms`` ("trampl"); else ``None``.

    >>> query_term("died", "en", {"dies": "die", "die": "die"}, set())
    'die'
    >>> query_term("trampler", "en", {"trample": "trampl"}, {"trampl"}), query_term("kills", "en", {}, set())
    ('trampl', None)
    """
    found = table.get(token)
    if found is None:
        for candidate in inflections(token, lang):
            found = table.get(candidate) or (candidate if candidate in terms else None)
            if found is not None:
                break
    return found
