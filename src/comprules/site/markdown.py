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

``env`` keys: ``extract`` (the reference extractor), ``lang``, ``known`` (the set of
rule ids of the edition), ``edition`` (its name), ``urls`` (the page's
:class:`~comprules.site.urls.Urls`, which knows where each target lives), and
``stats`` (a dict counting ``links`` and ``dangling``).
"""

from __future__ import annotations

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
    """Register :func:`rule_refs` at the end of the core chain."""
    md.core.ruler.push("rule_refs", rule_refs)


def prepare(text: str) -> str:
    """Escape the characters markdown would misread in CR text: ``\\`` and ``*``."""
    if "\\" in text:
        text = text.replace("\\", "\\\\")
    if "*" in text:
        text = text.replace("*", "\\*")
    return text


def render_text(md: MarkdownIt, text: str, env: dict) -> str:
    """One rule's (or example's, or sense's) text as inline HTML."""
    return md.renderInline(prepare(text), env)


def rule_refs(state: StateCore) -> None:
    """Core rule: split text tokens at references into links (cf. ``linkify``)."""
    env = state.env
    extract = env.get("extract")
    if extract is None:
        return
    for inline_token in state.tokens:
        if inline_token.type != "inline" or not inline_token.children:
            continue
        tokens = inline_token.children
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
                nodes = split_text(token.content, refs, token.level, env)
                tokens[i : i + 1] = nodes
        inline_token.children = tokens


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
    if href is None:
        stats["dangling"] = stats.get("dangling", 0) + 1
        open_ = Token("span_open", "span", 1, attrs={"class": "dangling"})
        close = Token("span_close", "span", -1)
    else:
        stats["links"] = stats.get("links", 0) + 1
        open_ = Token("link_open", "a", 1, attrs={"href": href}, markup="ref", info="auto")
        close = Token("link_close", "a", -1, markup="ref", info="auto")
    open_.level = level
    close.level = level
    return [open_, _text(printed, level + 1), close]


def _text(content: str, level: int) -> Token:
    token = Token("text", "", 0, content=content)
    token.level = level
    return token
