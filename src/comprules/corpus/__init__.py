"""Stage 1 of the pipeline: source files → :class:`~comprules.model.Edition`.

``decode`` turns bytes into text, ``detect`` finds language and effective date,
``parse`` finds rules and glossary, ``load`` walks source folders and reports bad
files without stopping the build.
"""

from .decode import decode_bytes, decode_file
from .load import LoadResult, load_sources, parse_file
from .parse import parse_text

__all__ = ["decode_bytes", "decode_file", "parse_text", "parse_file", "load_sources", "LoadResult"]
