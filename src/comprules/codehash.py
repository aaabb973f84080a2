"""The hash of comprules' own code: an output made by other code is made again.

Every stage that keeps its output when its inputs are unchanged (the data, the
site, the build's own record of them) counts the code among the inputs: a parser fix
or a new template changes the output.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path

#: What counts as code: Python, templates, static files, data tables and the kept icons.
CODE_SUFFIXES = (".py", ".html", ".css", ".js", ".toml", ".json", ".txt", ".png")


@lru_cache(maxsize=1)
def code_hash() -> str:
    """Hash (hex, 32 digits) of every file of the ``comprules`` package (code,
    templates, data), with their paths; computed once per process (~20 ms)."""
    return tree_hash(resources.files("comprules"))


def tree_hash(root: Traversable | Path) -> str:
    """Hash (hex, 32 digits) of the code files under ``root`` (a folder or a package's
    ``Traversable``) and their paths from ``root``: the same code in another folder (a
    second clone, a moved checkout) has the same hash."""
    h = hashlib.blake2b(digest_size=16)
    stack = [(root, "")]
    files = []
    while stack:
        node, prefix = stack.pop()
        for item in node.iterdir():
            if item.name.startswith((".", "__pycache__")):
                continue
            if item.is_dir():
                stack.append((item, f"{prefix}{item.name}/"))
            elif item.name.endswith(CODE_SUFFIXES):
                files.append((f"{prefix}{item.name}", item))
    for path, item in sorted(files, key=lambda f: f[0]):
        h.update(path.encode() + b"\0")
        h.update(item.read_bytes())
    return h.hexdigest()
