"""Make Pagefind's filter indexes the same from one build to the next.

Pagefind (1.5.2) writes the values of a filter in hash-map order, which changes from
run to run (upstream issue #638: "other files will still change, such as the
filter/metadata indexes"); the file names are content hashes, so the metadata index and
``pagefind-entry.json`` that name them change too. After the CLI has run, each filter
file's values are put in sorted order (the bytes of each value's entry are kept as they
are: only their order changes), the file is renamed by a hash of its new content, and
the metadata index (whose list of filters is sorted the same way) and the entry file
are rewritten to name it.

The filter layout read here: ``pagefind_dcd`` then CBOR ``[name, [[value, [page…]]…]]``.
A file of another layout is left untouched.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

MAGIC = b"pagefind_dcd"


def _head(data: bytes, i: int) -> tuple[int, int, int]:
    """CBOR item at ``i``: (major type, length or value, offset after the head)."""
    first = data[i]
    major, info = first >> 5, first & 31
    if info < 24:
        return major, info, i + 1
    size = {24: 1, 25: 2, 26: 4, 27: 8}.get(info)
    if size is None:
        raise ValueError("indefinite or reserved CBOR length")
    return major, int.from_bytes(data[i + 1 : i + 1 + size], "big"), i + 1 + size


def _end(data: bytes, i: int) -> int:
    """Offset just after the CBOR item at ``i`` (unsigned ints, strings, arrays, maps)."""
    major, value, j = _head(data, i)
    if major == 0:
        return j
    if major in (2, 3):
        return j + value
    if major in (4, 5):
        for _ in range(value * (2 if major == 5 else 1)):
            j = _end(data, j)
        return j
    raise ValueError(f"unexpected CBOR major type {major}")


def sorted_filter(data: bytes) -> bytes | None:
    """The filter index with its values in sorted order, or ``None`` if not understood."""
    try:
        if not data.startswith(MAGIC) or data[len(MAGIC)] != 0x82:
            return None
        name_end = _end(data, len(MAGIC) + 1)
        major, count, j = _head(data, name_end)
        if major != 4:
            return None
        header_end = j
        entries = []
        for _ in range(count):
            end = _end(data, j)
            kind, length, text_at = _head(data, j + 1)  # the entry is [value, pages]
            if data[j] != 0x82 or kind != 3:
                return None
            entries.append((data[text_at : text_at + length], data[j:end]))
            j = end
        if j != len(data):
            return None
    except (IndexError, ValueError):
        return None
    return data[:header_end] + b"".join(entry for _, entry in sorted(entries))


def _sorted_filter_list(data: bytes, files: set[bytes]) -> bytes:
    """The metadata index with its list of filters (``[[name, file]…]``) sorted by name.

    The list is the top-level item whose entries are all pairs of texts naming one of
    ``files``; anything not understood is returned unchanged.
    """
    try:
        major, count, j = _head(data, len(MAGIC))
        if major != 4:
            return data
        for _ in range(count):
            end = _end(data, j)
            kind, n, k = _head(data, j)
            pairs = []
            if kind == 4 and n:
                for _ in range(n):
                    pair_end = _end(data, k)
                    if data[k] != 0x82:
                        break
                    _, name_len, name_at = _head(data, k + 1)
                    _, file_len, file_at = _head(data, name_at + name_len)
                    if data[file_at : file_at + file_len] not in files:
                        break
                    pairs.append((data[name_at : name_at + name_len], data[k:pair_end]))
                    k = pair_end
                if len(pairs) == n and k == end:
                    head_end = end - sum(len(p) for _, p in pairs)
                    body = b"".join(p for _, p in sorted(pairs))
                    return data[:head_end] + body + data[end:]
            j = end
    except (IndexError, ValueError):
        pass
    return data


def stabilize(bundle: Path) -> int:
    """Rewrite the filter indexes of a Pagefind bundle in sorted order; how many changed."""
    renames: dict[str, str] = {}
    for path in sorted((bundle / "filter").glob("*.pf_filter")):
        fixed = sorted_filter(gzip.decompress(path.read_bytes()))
        if fixed is None:
            continue
        lang, _, old = path.stem.partition("_")
        new = hashlib.sha256(fixed).hexdigest()[: len(old)]
        path.unlink()
        (path.parent / f"{lang}_{new}.pf_filter").write_bytes(gzip.compress(fixed, mtime=0))
        renames[f"{lang}_{old}"] = f"{lang}_{new}"
    if not renames:
        return 0
    entry_path = bundle / "pagefind-entry.json"
    entry = json.loads(entry_path.read_text(encoding="utf-8"))
    for meta in sorted(bundle.glob("pagefind.*.pf_meta")):
        data = gzip.decompress(meta.read_bytes())
        for old, new in renames.items():
            data = data.replace(old.encode(), new.encode())
        data = _sorted_filter_list(data, {new.encode() for new in renames.values()})
        lang, _, old_hash = meta.name[len("pagefind."): -len(".pf_meta")].partition("_")
        new_hash = hashlib.sha256(data).hexdigest()[: len(old_hash)]
        meta.unlink()
        (bundle / f"pagefind.{lang}_{new_hash}.pf_meta").write_bytes(gzip.compress(data, mtime=0))
        if lang in entry.get("languages", {}):
            entry["languages"][lang]["hash"] = f"{lang}_{new_hash}"
    entry_path.write_text(json.dumps(entry, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
    return len(renames)
