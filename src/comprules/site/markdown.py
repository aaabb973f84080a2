"""Rule text to HTML: markdown-it-py, inline only, with every reference a link.

CR text is not markdown: ``1.`` at the start of a line is not a list, ``#`` not a
heading, an indented line not code, ``<script>`` not HTML. So each text is parsed
*inline* (``renderInline``: no block rule ever runs), with HTML off, and only two
inline rules on: ``escape`` and ``emphasis``, for the underscore italics of the
2008–2014 editions (``_Magic_``). A lone ``*`` ("power 1+*") is escaped before
parsing, so only underscores make emphasis.

The core rule :func:`rule_refs`, modelled on markdown-it-py's
``rules_core/linkify.py``, splits each text token at the references found by
``env["extract"](text, lang)`` into ``link_open``/``text``/``link_close`` tokens:
one link per *printed* member of a range or list ("601.2f–h" gives two links).
A target the edition lacks is not linked but wrapped in ``<span class="dangling">``.
The core rule :func:`glossary_terms`, after it, links glossary terms where they occur
(``env["terms"]``, a :class:`~comprules.site.terms.TermMatcher`): the first occurrence
of each term in a text, outside links, to ``env["glossary"]#slug``.

A text with nothing markdown could read (no ``_``, ``*``, ``\\``, carriage return or
NUL) skips the inline parser: it is one text token, given to the same two functions
and the same renderer, so the HTML is the same (``tests/test_site.py`` checks this on
a whole edition), three times faster.

``env`` keys: ``extract`` (the reference extractor), ``lang``, ``known`` (the set of
rule ids of the edition), ``edition`` (its name), ``urls`` (the page's
:class:`~comprules.site.urls.Urls`, which knows where each target lives), and
``stats`` (a dict counting ``links`` and ``dangling``); optionally ``terms`` and
``glossary`` (the link to the glossary page), and ``fallback(kind, number)``, the link
for a target the edition lacks (a French fragment's citation, sent to the English
edition it translates; ``class="xl"``), and ``memo``, a :class:`TextMemo` keeping the
HTML of texts without markdown for the next editions that link them alike.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from .. import model

Extract = Callable[[str, str], Sequence[Any]]


def make_markdown() -> MarkdownIt:
    """The one MarkdownIt instance of a render: inline emphasis, URLs (``<http://…>``
    and ``www.wizards.com/…``, linkify-it-py) and references linked, the 2003–04
    symbol font read, changes marked."""
    md = MarkdownIt("zero", {"html": False, "linkify": True, "typographer": False})
    md.enable(["escape", "emphasis", "autolink", "linkify"])
    md.use(refs_plugin)
    return md


#: A text longer than this is rendered without looking for URLs in it: linkify-it's search
#: grows faster than the text (13 s of a 10 MB source on one line, tests/test_fuzz.py),
#: and no text of the CR comes near (the longest of the corpus: 3,922 characters).
LINKIFY_LONGEST = 100_000


def _without_links(md: MarkdownIt) -> MarkdownIt:
    """``md`` without linkify (made once per instance, kept on it)."""
    other = md.__dict__.get("_without_links")
    if other is None:
        other = md.__dict__["_without_links"] = make_markdown()
        other.disable("linkify")
    return other


def refs_plugin(md: MarkdownIt) -> None:
    """Register :func:`rule_refs`, then :func:`glossary_terms`, :func:`symbol_font` and
    :func:`change_marks`, at the end of the core chain."""
    md.core.ruler.push("rule_refs", rule_refs)
    md.core.ruler.push("glossary_terms", glossary_terms)
    md.core.ruler.push("symbol_font", symbol_font)
    md.core.ruler.push("change_marks", change_marks)


def prepare(text: str) -> str:
    """Escape the characters markdown would misread in CR text: ``\\`` and ``*``."""
    if "\\" in text:
        text = text.replace("\\", "\\\\")
    if "*" in text:
        text = text.replace("*", "\\*")
    return text


_MARKDOWN = re.compile(r"[_*\\\r\0]")
#: What any link linkify-it finds holds: a scheme it knows ("http:", "https:", "ftp:",
#: "mailto:"), "//", an "@" (an e-mail address) or a dot before two letters (a domain's
#: last label: "Wizards.com"). A text without one is not given to its test, which costs
#: a tenth of a millisecond a text (``tests/test_site.py`` checks this on every text of
#: the corpus: the same texts found).
MAYBE_LINK = re.compile(r"//|@|\b(?:https?|ftp|mailto):|\.[^\W\d_]{2}", re.I)


@functools.lru_cache(maxsize=16_384)
def _plain(text: str) -> bool:
    """Whether ``text`` holds nothing markdown could read and nothing that could be a
    link (kept per text: every edition's pages ask again)."""
    return _MARKDOWN.search(text) is None and MAYBE_LINK.search(text) is None


def render_text(md: MarkdownIt, text: str, env: dict, marks: Sequence[tuple[int, int, str]] = ()) -> str:
    """One rule's (or example's, or sense's, or title's) text as inline HTML: the one
    place where CR text becomes HTML (sections, glossary, diffs, history, French ⇄
    English pages).

    ``marks`` are spans of ``text`` to wrap in a tag, ``(start, end, "del" | "ins")``
    (the changed words of a diff, :func:`comprules.align.alignment.change_spans`):
    they are placed as private-use characters before parsing, read past by the
    reference extractor, and become tags last, closed and reopened around any link or
    emphasis they cross, so that the HTML nests.

    >>> render_text(make_markdown(), "_Magic_ costs {o3}", {}, [(14, 18, "ins")])
    '<em>Magic</em> costs <ins>{3}</ins>'
    """
    if marks:
        text = _place_marks(text, marks)
        env = dict(env, marked=True)
        if "{" in text:  # "{o3}" whose braces a change mark split from the "o3"
            text = _MARKED_SYMBOL.sub(r"{\1\2\3}", text)
        if env.get("extract") is not None:
            env["extract"] = _unmarked(env["extract"])
    if len(text) > LINKIFY_LONGEST:
        md = _without_links(md)
        if _MARKDOWN.search(text):
            return md.renderInline(prepare(text), env)
    elif not _plain(text) and (_MARKDOWN.search(text) or md.linkify.test(text)):
        return md.renderInline(prepare(text), env)
    memo: TextMemo | None = env.get("memo") if not marks else None
    if memo is not None:
        return memo.render(md, text, env)
    return _render_plain(md, text, env, marks)


def _render_plain(md: MarkdownIt, text: str, env: dict, marks: Sequence[tuple[int, int, str]] = ()) -> str:
    """:func:`render_text` of a text without markdown: one text token, its references
    and terms linked, rendered."""
    tokens = [_text(text, 0)]
    if env.get("extract") is not None:
        tokens = link_refs(tokens, env)
    if env.get("terms") is not None:
        tokens = link_terms(tokens, env)
    if "{o" in text:  # (no URL here: linkify found none)
        tokens = read_symbol_font(tokens)
    if marks:
        tokens = mark_tokens(tokens)
    return md.renderer.renderInline(tokens, md.options, env)


#: Private-use characters standing for ``<del>``, ``</del>``, ``<ins>``, ``</ins>``.
MARK_CHARS = {"del": ("\ue000", "\ue001"), "ins": ("\ue002", "\ue003")}
_MARK_TAGS = {"\ue000": ("del", True), "\ue001": ("del", False), "\ue002": ("ins", True), "\ue003": ("ins", False)}
_MARK_RE = re.compile("[\ue000-\ue003]")
_UNMARKED_RUN = re.compile("[^\ue000-\ue003]+")


#: A symbol of the 2003–04 font with change marks inside: ``{``, mark, ``o3``, mark, ``}``.
_MARKED_SYMBOL = re.compile("\\{([\ue000-\ue003]*)o([^}\\s\ue000-\ue003]{1,2})([\ue000-\ue003]*)\\}")


def _place_marks(text: str, marks: Sequence[tuple[int, int, str]]) -> str:
    out, last = [], 0
    for start, end, tag in sorted(marks):
        if start < last or end <= start:
            continue
        opening, closing = MARK_CHARS[tag]
        out += [text[last:start], opening, text[start:end], closing]
        last = end
    out.append(text[last:])
    return "".join(out)


def _unmarked(extract: Extract) -> Extract:
    """The extractor reading past the mark characters: references found in the text
    without them, their spans moved back onto the marked text."""
    from dataclasses import replace

    def run(text: str, lang: str):
        if not _MARK_RE.search(text):
            return extract(text, lang)
        back: list[int] = []  # position in ``text`` of each character of the clean text
        for piece in _UNMARKED_RUN.finditer(text):
            back.extend(range(piece.start(), piece.end()))
        clean = _MARK_RE.sub("", text)

        def end(e: int) -> int:
            return back[e - 1] + 1 if e else 0

        return [
            replace(
                r,
                start=back[r.start] if r.start < len(back) else len(text),
                end=end(r.end),
                parts=tuple((back[a], end(b), n) for a, b, n in r.parts),
            )
            for r in extract(clean, lang)
        ]

    return run


def change_marks(state: StateCore) -> None:
    """Core rule: the mark characters of a diff become ``<del>``/``<ins>`` tags."""
    if not state.env.get("marked"):
        return
    for inline_token in state.tokens:
        if inline_token.type == "inline" and inline_token.children:
            inline_token.children = mark_tokens(inline_token.children)


def mark_tokens(tokens: list[Token]) -> list[Token]:
    """Text tokens split at the mark characters into tags; a mark open across the
    start or end of a link or emphasis is closed before it and reopened after."""
    out: list[Token] = []
    open_tag: str | None = None
    for token in tokens:
        if token.type != "text":
            if open_tag is not None and token.nesting != 0:
                out.append(_html(f"</{open_tag}>", token.level))
                out.append(token)
                out.append(_html(f"<{open_tag}>", token.level))
            else:
                out.append(token)
            continue
        content = token.content
        if not _MARK_RE.search(content):
            out.append(token)
            continue
        last = 0
        for m in _MARK_RE.finditer(content):
            if m.start() > last:
                out.append(_text(content[last : m.start()], token.level))
            tag, opening = _MARK_TAGS[m.group()]
            out.append(_html(f"<{tag}>" if opening else f"</{tag}>", token.level))
            open_tag = tag if opening else None
            last = m.end()
        if last < len(content):
            out.append(_text(content[last:], token.level))
    return _drop_empty(out)


def _drop_empty(tokens: list[Token]) -> list[Token]:
    """Without the empty ``<ins></ins>`` left where a mark was closed and reopened."""
    out: list[Token] = []
    for token in tokens:
        if (
            token.type == "html_inline"
            and token.content.startswith("</")
            and out
            and out[-1].type == "html_inline"
            and out[-1].content == "<" + token.content[2:]
        ):
            out.pop()
            continue
        out.append(token)
    return out


def _html(markup: str, level: int) -> Token:
    token = Token("html_inline", "", 0, content=markup)
    token.level = level
    return token


def symbol_font(state: StateCore) -> None:
    """Core rule: the 2003–04 symbol font's ``{o3}`` and ``{oT}`` shown as the mana and
    tap symbols they stand for, ``{3}`` and ``{T}`` (as every later edition prints them)."""
    for inline_token in state.tokens:
        if inline_token.type == "inline" and inline_token.children:
            inline_token.children = read_symbol_font(inline_token.children)


def read_symbol_font(tokens: list[Token]) -> list[Token]:
    """Text tokens with the symbol font read; the CR's printed URLs marked as such
    (``class="url" rel="external"``: a link the text prints, not a request of the site)."""
    for token in tokens:
        if token.type == "text" and "{o" in token.content:
            token.content = model.read_symbol_font(token.content)
        elif token.type == "link_open" and token.markup in ("linkify", "autolink"):
            token.attrSet("class", "url")
            token.attrSet("rel", "external")
    return tokens


def rule_refs(state: StateCore) -> None:
    """Core rule: split text tokens at references into links (cf. ``linkify``)."""
    if state.env.get("extract") is None:
        return
    for inline_token in state.tokens:
        if inline_token.type == "inline" and inline_token.children:
            inline_token.children = link_refs(inline_token.children, state.env)


def glossary_terms(state: StateCore) -> None:
    """Core rule: link the first occurrence of each glossary term, outside links."""
    if state.env.get("terms") is None:
        return
    for inline_token in state.tokens:
        if inline_token.type == "inline" and inline_token.children:
            inline_token.children = link_terms(inline_token.children, state.env)


def link_refs(tokens: list[Token], env: dict) -> list[Token]:
    """The tokens of one inline text with every reference split out into a link."""
    extract = env["extract"]
    # Scan from the end, to keep positions when tokens are inserted.
    i = len(tokens)
    while i >= 1:
        i -= 1
        token = tokens[i]
        if token.type == "link_close":  # skip the content of existing links
            i -= 1
            while tokens[i].level != token.level and tokens[i].type != "link_open":
                i -= 1
            continue
        if token.type != "text" or not token.content:
            continue
        refs = extract(token.content, env.get("lang", "en"))
        if refs:
            tokens[i : i + 1] = split_text(token.content, refs, token.level, env)
    return tokens


def link_terms(tokens: list[Token], env: dict) -> list[Token]:
    """The tokens with the first occurrence of each glossary term (outside links and
    dangling marks) made a link to the glossary.

    ``env["terms_seen"]`` (a set shared by a rule's text and its examples) keeps a
    term to its first occurrence in the whole rule; ``env["terms_skip"]`` holds the
    terms whose glossary entry cites the rule being read (no link back to it); a term
    inside quotation marks (a quoted title such as “Trample.”, quoted card text) is
    left plain.
    """
    matcher = env["terms"]
    page = env.get("glossary", "glossary.html")
    seen: set[str] = env["terms_seen"] if env.get("terms_seen") is not None else set()
    skip = env.get("terms_skip") or ()
    href_of = env.get("glossary_href")  # slug → link to the part of the glossary holding it
    out: list[Token] = []
    depth = 0
    quoted = False
    for token in tokens:
        if token.type in ("link_open", "span_open"):
            depth += 1
        elif token.type in ("link_close", "span_close"):
            depth -= 1
        if depth or token.type != "text" or not token.content:
            out.append(token)
            continue
        text, last = token.content, 0
        spans, quoted = quoted_spans(text, quoted)
        for start, end, slug in matcher.find(text):
            if slug in seen or slug in skip or any(a <= start < b for a, b in spans):
                continue
            seen.add(slug)
            if start > last:
                out.append(_text(text[last:start], token.level))
            href = href_of(slug) if href_of is not None else f"{page}#{slug}"
            open_ = Token("link_open", "a", 1, attrs={"class": "g", "href": href})
            open_.level = token.level
            close = Token("link_close", "a", -1)
            close.level = token.level
            out.extend((open_, _text(text[start:end], token.level + 1), close))
            last = end
        if last == 0:
            out.append(token)
        elif last < len(text):
            out.append(_text(text[last:], token.level))
    return out


_QUOTES = re.compile(r'[“”"]')


def quoted_spans(text: str, quoted: bool = False) -> tuple[list[tuple[int, int]], bool]:
    """The ``(start, end)`` runs of ``text`` inside quotation marks (“…” or "…"), and
    whether a quotation is still open at its end; ``quoted``: open at its start.

    >>> quoted_spans('See rule 702.19, “Trample.” Then "more".')
    ([(17, 27), (33, 39)], False)
    """
    spans: list[tuple[int, int]] = []
    start = 0 if quoted else None
    for m in _QUOTES.finditer(text):
        mark = m.group()
        if start is None and mark in '“"':
            start = m.start()
        elif start is not None and mark in '”"':
            spans.append((start, m.end()))
            start = None
    if start is not None:
        spans.append((start, len(text)))
    return spans, start is not None


def split_text(text: str, refs: Sequence[Any], level: int, env: dict) -> list[Token]:
    """The tokens of one text: plain runs, and a link (or dangling mark) per member."""
    nodes: list[Token] = []
    last = 0
    for start, end, number, kind in kept_members(refs):
        if start > last:
            nodes.append(_text(text[last:start], level))
        nodes.extend(_member(text[start:end], kind, number, level, env))
        last = end
    if last < len(text):
        nodes.append(_text(text[last:], level))
    return nodes


def kept_members(refs: Sequence[Any]) -> Iterator[tuple[int, int, str, str]]:
    """The members of :func:`_members` that become links, in order: an overlapping or
    empty one is left as text."""
    last = 0
    for start, end, number, kind in _members(refs):
        if start < last or end <= start:
            continue
        yield start, end, number, kind
        last = end


def _members(refs: Sequence[Any]) -> list[tuple[int, int, str, str]]:
    """Every printed member of every reference: (start, end, number, kind), in order."""
    out = []
    for ref in refs:
        parts = ref.parts or (((ref.start, ref.end, ref.targets[0]),) if len(ref.targets) == 1 else ())
        for start, end, number in parts:
            out.append((start, end, number, _member_kind(ref.kind, number)))
    out.sort()
    return out


def _member_kind(kind: str, number: str) -> str:
    """A range "rules 702–704" is section members; "rule 702.37" a rule member."""
    if kind == "glossary":
        return kind
    if "." in number:
        return "rule"
    if len(number) == 1:
        return "chapter"
    return "section" if len(number) == 3 and number.isdigit() else kind


def member_target(kind: str, number: str, env: dict) -> tuple[str | None, bool]:
    """Where one printed member links: ``(href, False)`` in the edition, ``(href, True)``
    in the English edition a fragment translates (a rule it cites and does not quote),
    ``(None, False)`` nowhere (a dangling reference)."""
    href = None
    known = env.get("known")
    if kind == "glossary" or known is None or number in known:
        urls = env.get("urls")
        href = urls.target(kind, number) if urls is not None else None
    if href is None and env.get("fallback") is not None:
        href = env["fallback"](kind, number)
        return href, href is not None
    return href, False


def _member(printed: str, kind: str, number: str, level: int, env: dict) -> list[Token]:
    stats = env.setdefault("stats", {})
    href, english = member_target(kind, number, env)
    attrs = {"href": href, "hreflang": "en", "class": "xl"} if english else {"href": href}
    if href is None:
        stats["dangling"] = stats.get("dangling", 0) + 1
        open_ = Token("span_open", "span", 1, attrs={"class": "dangling"})
        close = Token("span_close", "span", -1)
    else:
        stats["links"] = stats.get("links", 0) + 1
        open_ = Token("link_open", "a", 1, attrs=attrs, markup="ref", info="auto")
        close = Token("link_close", "a", -1, markup="ref", info="auto")
    open_.level = level
    close.level = level
    return [open_, _text(printed, level + 1), close]


def _text(content: str, level: int) -> Token:
    token = Token("text", "", 0, content=content)
    token.level = level
    return token


#: Rendered texts a :class:`TextMemo` keeps in each of its two generations (the texts
#: of an edition's section pages and its one-page CR are 10,000–14,000; 8,000 gave the
#: same build time as 12,000 with 70 MB less in each page worker, with the other caches
#: made smaller alike).
MEMO_TEXTS = 8_000


class TextMemo:
    """Texts rendered once for every edition that prints them the same way.

    Most rules read the same from one edition to the next; their HTML differs only
    where what the text links to differs. :meth:`render` keys a text by its characters
    and everything its links are made of in this page: where each reference member
    leads (:func:`member_target`), the glossary terms the edition's matcher finds in
    each run between them, and for those terms whether the rule has linked them already
    (``terms_seen``), whether they are not linked in it (``terms_skip``) and where they
    link. A text met again with the same key gets the HTML made the first time, its
    terms marked as seen and the links counted as rendering them would
    (``tests/test_site.py`` renders whole editions both ways and compares). It keeps
    the texts of the edition being rendered and of the one before (``limit`` texts a
    generation): what the next edition of a render can meet again.
    """

    def __init__(self, limit: int = MEMO_TEXTS):
        self.limit = limit
        self._kept: dict[tuple, tuple[str, tuple[str, ...], int, int]] = {}
        self._before: dict[tuple, tuple[str, tuple[str, ...], int, int]] = {}
        self.hits = 0

    def render(self, md: MarkdownIt, text: str, env: dict) -> str:
        key = self.key(text, env)
        found = self._kept.get(key)
        if found is None:
            found = self._before.get(key)
            if found is not None:
                self._kept[key] = found
        stats = env.setdefault("stats", {})
        seen = env.get("terms_seen")
        if found is not None:
            self.hits += 1
            html, linked, links, dangling = found
            if seen is not None:
                seen.update(linked)
            stats["links"] = stats.get("links", 0) + links
            stats["dangling"] = stats.get("dangling", 0) + dangling
            return html
        before = (set(seen) if seen else set(), stats.get("links", 0), stats.get("dangling", 0))
        html = _render_plain(md, text, env)
        linked = tuple(sorted(seen - before[0])) if seen else ()
        if len(self._kept) >= self.limit:
            self._before, self._kept = self._kept, {}
        self._kept[key] = (html, linked, stats.get("links", 0) - before[1], stats.get("dangling", 0) - before[2])
        return html

    @staticmethod
    def key(text: str, env: dict) -> tuple:
        lang = env.get("lang", "en")
        extract = env.get("extract")
        members = tuple(kept_members(extract(text, lang))) if extract is not None else ()
        targets = tuple(member_target(kind, number, env) for _s, _e, number, kind in members)
        matcher = env.get("terms")
        if matcher is None:
            return (text, lang, targets)
        runs, last = [], 0  # the text tokens link_terms reads: the runs between the members
        for start, end, _n, _k in members:
            if start > last:
                runs.append(text[last:start])
            last = end
        if last < len(text):
            runs.append(text[last:])
        found = tuple(tuple(matcher.find(run)) for run in runs)
        slugs = sorted({slug for run in found for _s, _e, slug in run})
        if not slugs:  # rendered as without a matcher
            return (text, lang, targets)
        seen, skip = env.get("terms_seen") or (), env.get("terms_skip") or ()
        href_of, page = env.get("glossary_href"), env.get("glossary", "glossary.html")
        return (
            text,
            lang,
            targets,
            found,
            tuple(slug in seen for slug in slugs),
            tuple(slug in skip for slug in slugs),
            tuple(href_of(slug) if href_of is not None else f"{page}#{slug}" for slug in slugs),
        )
