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
edition it translates; ``class="xl"``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

Extract = Callable[[str, str], Sequence[Any]]


def make_markdown() -> MarkdownIt:
    """The one MarkdownIt instance of a render: inline emphasis, references linked."""
    md = MarkdownIt("zero", {"html": False, "linkify": False, "typographer": False})
    md.enable(["escape", "emphasis"])
    md.use(refs_plugin)
    return md


def refs_plugin(md: MarkdownIt) -> None:
    """Register :func:`rule_refs`, then :func:`glossary_terms`, at the end of the core chain."""
    md.core.ruler.push("rule_refs", rule_refs)
    md.core.ruler.push("glossary_terms", glossary_terms)


def prepare(text: str) -> str:
    """Escape the characters markdown would misread in CR text: ``\\`` and ``*``."""
    if "\\" in text:
        text = text.replace("\\", "\\\\")
    if "*" in text:
        text = text.replace("*", "\\*")
    return text


_MARKDOWN = re.compile(r"[_*\\\r\0]")


def render_text(md: MarkdownIt, text: str, env: dict) -> str:
    """One rule's (or example's, or sense's) text as inline HTML."""
    if _MARKDOWN.search(text):
        return md.renderInline(prepare(text), env)
    tokens = [_text(text, 0)]
    if env.get("extract") is not None:
        tokens = link_refs(tokens, env)
    if env.get("terms") is not None:
        tokens = link_terms(tokens, env)
    return md.renderer.renderInline(tokens, md.options, env)


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
    dangling marks) made a link to the glossary."""
    matcher = env["terms"]
    page = env.get("glossary", "glossary.html")
    seen: set[str] = set()
    out: list[Token] = []
    depth = 0
    for token in tokens:
        if token.type in ("link_open", "span_open"):
            depth += 1
        elif token.type in ("link_close", "span_close"):
            depth -= 1
        if depth or token.type != "text" or not token.content:
            out.append(token)
            continue
        text, last = token.content, 0
        for start, end, slug in matcher.find(text):
            if slug in seen:
                continue
            seen.add(slug)
            if start > last:
                out.append(_text(text[last:start], token.level))
            open_ = Token("link_open", "a", 1, attrs={"class": "g", "href": f"{page}#{slug}"})
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


def split_text(text: str, refs: Sequence[Any], level: int, env: dict) -> list[Token]:
    """The tokens of one text: plain runs, and a link (or dangling mark) per member."""
    nodes: list[Token] = []
    last = 0
    for start, end, number, kind in _members(refs):
        if start < last or end <= start:
            continue  # overlapping or empty member: leave it as text
        if start > last:
            nodes.append(_text(text[last:start], level))
        nodes.extend(_member(text[start:end], kind, number, level, env))
        last = end
    if last < len(text):
        nodes.append(_text(text[last:], level))
    return nodes


def _members(refs: Sequence[Any]) -> list[tuple[int, int, str, str]]:
    """Every printed member of every reference: (start, end, number, kind), in order."""
    out = []
    for ref in refs:
        parts = ref.parts or (
            ((ref.start, ref.end, ref.targets[0]),) if len(ref.targets) == 1 else ()
        )
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


def _member(printed: str, kind: str, number: str, level: int, env: dict) -> list[Token]:
    stats = env.setdefault("stats", {})
    href = None
    known = env.get("known")
    if kind == "glossary" or known is None or number in known:
        urls = env.get("urls")
        href = urls.target(kind, number) if urls is not None else None
    attrs = {"href": href}
    if href is None and env.get("fallback") is not None:
        # a fragment citing a rule it does not quote: the rule in the edition it translates
        href = env["fallback"](kind, number)
        attrs = {"href": href, "hreflang": "en", "class": "xl"}
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
