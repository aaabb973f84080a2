"""Load `comprules serve` on loopback: the figures of issue 20, each beside a baseline of the same run.

Usage: ``python benchmarks/serve.py [--kb DIR] [--requests N] [--repeat K] [--workers N]``

Without ``--kb`` a knowledge base of the 74 English editions is built into a temporary
folder first (not timed). ``comprules serve`` is started in a subprocess and timed from
launch to its first answer; requests go over keep-alive connections from a lean asyncio
client (:func:`load`) sharing the machine's two cores with the server. Printed:

* **cold rules**: ``/api/v1/rules/{n}?edition=E`` over every rule and subrule of the 10
  newest editions in turn, each asked once (never before), at 50 clients, beside the same
  route answered from the server's memory (40 rules asked again) in the same run: target
  ≥ 0.8× the cached throughput and ≥ 500 req/s (50× the 10 req/s of 2026-12-01);
* **unique searches**: ``/api/v1/search`` of two-word queries never asked before (words
  of the latest edition's glossary headwords), at 50 clients, beside a static page at 50
  clients: target ≥ 0.25× the static page's throughput;
* **cold diffs** of 12 pairs of English editions (1999-04-23 → the latest among them) and
  **cold traces** of 30 rules (``/ar/cr/trace/{n}``), one client, each asked once: target
  ≤ 300 ms and ≤ 100 ms for the slowest;
* **a static page's p99** at 10 clients alone, then while four clients ask cold diffs of
  pairs never asked: target ≤ 3× its p99 alone;
* **the server's memory** (proportional set of the server and its worker processes, and
  their resident set) after the run: target ≤ 500 MB;
* ``/ar/cr/{rule}`` (a cycle of 40 rules) and the static page at 1 and 50 clients, and the
  baseline: the standard library's ``python -m http.server`` on the same site, same page,
  same clients.

Each throughput is the run of median throughput among ``--repeat`` runs (default 3), with
every run's figures. Everything listens on 127.0.0.1 only and stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from functools import partial
from pathlib import Path
from urllib.parse import quote

import httpx
from _common import ROOT, corpus_dir

RULES = [
    "100.1",
    "100.1a",
    "101.2",
    "117.3a",
    "302.6",
    "603.7a",
    "613.1f",
    "702.19",
    "702.19b",
    "702.37a",
    "704.5a",
    "704.5k",
    "509.1h",
    "601.2f",
    "405.1",
    "608.2b",
    "112.3c",
    "205.3m",
    "506.4",
    "800.4a",
    "702.3b",
    "702.2c",
    "305.6",
    "713.4",
    "903.8",
    "107.4e",
    "122.1",
    "207.2c",
    "510.1c",
    "614.12",
    "616.1",
    "702.11d",
    "702.9a",
    "712.8d",
    "715.3",
    "722.2",
    "406.3",
    "103.4",
    "514.3a",
    "726.3a",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def queries() -> list[str]:
    path = ROOT / "tests" / "relevance.toml"
    if path.is_file():
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        found = [c["query"] for c in data.get("case", data.get("cases", [])) if "query" in c]
        if found:
            return found
    return [
        "trample",
        "morph",
        "deathtouch first strike",
        "state-based actions",
        "702.19",
        "banding",
        "hexproof",
        "combat damage step",
        "mana ability",
        "legend rule",
    ]


def start(cmd: list[str], probe: str, timeout: float = 60.0) -> tuple[subprocess.Popen, float]:
    """Launch ``cmd``; (process, seconds from launch to the first 200 of ``probe``)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while time.perf_counter() - t0 < timeout:
        try:
            if httpx.get(probe, timeout=2).status_code == 200:
                return proc, time.perf_counter() - t0
        except httpx.HTTPError:
            pass
        time.sleep(0.01)
    proc.kill()
    raise SystemExit(f"no answer from {probe} within {timeout} s")


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


_next: dict[int, int] = {}


async def load(base: str, paths: list[str], total: int, clients: int, headers: dict) -> dict:
    """``total`` GETs of ``paths`` (in turn) by ``clients`` concurrent keep-alive connections.

    A lean HTTP/1.1 client on asyncio streams (request line, headers, ``Content-Length``
    body): httpx spends about as much CPU per request as the server does, and the two share
    the machine's cores, so a heavier client would measure itself.
    """
    host, port = base.removeprefix("http://").rsplit(":", 1)
    extra = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    requests = [f"GET {p} HTTP/1.1\r\nHost: {host}\r\n{extra}\r\n".encode() for p in paths]
    latencies: list[float] = []
    errors = 0
    start = _next.get(id(paths), 0)  # each run goes on where the last run of these paths stopped
    _next[id(paths)] = start + total + clients
    counter = iter(range(start + clients, start + clients + total))

    async def one(reader, writer, i: int) -> tuple[int, bool]:
        """(status, whether the server keeps the connection open)."""
        writer.write(requests[i % len(requests)])
        head = await reader.readuntil(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        length = re.search(rb"(?i)\r\ncontent-length: *(\d+)", head)
        if length:
            await reader.readexactly(int(length.group(1)))
        closes = head.startswith(b"HTTP/1.0") or re.search(rb"(?i)\r\nconnection: *close", head) is not None
        return status, not closes

    async def client_loop(warm: int) -> None:
        nonlocal errors
        reader, writer = await asyncio.open_connection(host, int(port))
        try:
            _, alive = await one(reader, writer, start + warm)  # connection open, first answer computed
            await ready.wait()
            for i in counter:
                t = time.perf_counter()
                if not alive:  # a server without keep-alive (the baseline): a new connection each time
                    writer.close()
                    reader, writer = await asyncio.open_connection(host, int(port))
                try:
                    status, alive = await one(reader, writer, i)
                    errors += status != 200
                except (OSError, asyncio.IncompleteReadError, ValueError):
                    errors += 1
                    alive = False
                latencies.append(time.perf_counter() - t)
        finally:
            writer.close()

    ready = asyncio.Event()
    tasks = [asyncio.create_task(client_loop(k)) for k in range(clients)]
    await asyncio.sleep(0.5)
    t0 = time.perf_counter()
    ready.set()
    await asyncio.gather(*tasks)
    wall = time.perf_counter() - t0
    latencies.sort()

    def pct(q: float) -> float:
        return latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000

    return {
        "rps": len(latencies) / wall,
        "p50": pct(0.50),
        "p95": pct(0.95),
        "p99": pct(0.99),
        "errors": errors,
        "n": len(latencies),
        "mean": statistics.fmean(latencies) * 1000,
    }


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` (Linux ``/proc``; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measured(pid: int, base: str, paths: list[str], n: int, clients: int, headers: dict) -> dict:
    """One run of :func:`load`, with the server's CPU time per request."""
    before = cpu_seconds(pid)
    r = asyncio.run(load(base, paths, n, clients, headers))
    r["cpu_ms"] = (cpu_seconds(pid) - before) * 1000 / (r["n"] + clients)
    return r


def median_of(k: int, run) -> dict:
    """The run of median throughput among ``k`` runs (the machine is shared: one run can
    meet a burst of other jobs); its ``runs`` lists every run's req/s and p99."""
    runs = sorted((run() for _ in range(k)), key=lambda r: r["rps"])
    chosen = dict(runs[len(runs) // 2])
    chosen["runs"] = [(round(r["rps"]), round(r["p99"], 1)) for r in runs]
    return chosen


def line(name: str, clients: int, r: dict, base: dict | None = None) -> str:
    ratio = f"  ×{r['rps'] / base['rps']:.2f} vs baseline" if base else ""
    cpu = f"  server CPU {r['cpu_ms']:.2f} ms/req" if r.get("cpu_ms") else ""
    runs = f"  runs (req/s, p99) {r['runs']}" if len(r.get("runs", ())) > 1 else ""
    return (
        f"{name:<34} {clients:>3} clients  {r['rps']:8.0f} req/s  p50 {r['p50']:6.1f}  p95 {r['p95']:6.1f}  "
        f"p99 {r['p99']:6.1f} ms  errors {r['errors']}/{r['n']}{cpu}{ratio}{runs}"
    )


def memory_mb(pid: int) -> tuple[float, float, float]:
    """(resident, proportional, file) set of process ``pid`` and its children, MB (Linux
    ``/proc``): the proportional set size counts a page the processes share (the code of
    Python and its libraries) once, divided among them, as ``benchmarks/build.py`` does;
    ``file`` is the part of it that maps files (mostly the database, which the store reads
    through ``mmap``: pages of the kernel's cache, given back under pressure)."""
    pids = [pid]
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    pids.append(int(entry))
            except (OSError, IndexError, ValueError):
                continue
    sizes = {"Rss:": 0, "Pss:": 0, "Pss_File:": 0}
    for p in pids:
        try:
            for row in Path(f"/proc/{p}/smaps_rollup").read_text().splitlines():
                key = row.split(maxsplit=1)[0] if row else ""
                if key in sizes:
                    sizes[key] += int(row.split()[1]) * 1024
        except OSError:
            continue
    return sizes["Rss:"] / 1e6, sizes["Pss:"] / 1e6, sizes["Pss_File:"] / 1e6


def timed_once(base: str, paths: list[str]) -> list[float]:
    """Each path asked once, one after the other: the seconds of each answer (200 only)."""
    out = []
    with httpx.Client(base_url=base, timeout=120) as client:
        for p in paths:
            t = time.perf_counter()
            r = client.get(p)
            out.append(time.perf_counter() - t)
            if r.status_code != 200:
                raise SystemExit(f"{p}: {r.status_code} {r.text[:200]}")
    return out


def kb_facts(kb: Path) -> tuple[list[str], dict[str, list[str]], list[str]]:
    """(English editions oldest first, rule ids of the 10 newest, words of the latest
    edition's glossary headwords), read from the knowledge base's database."""
    import sqlite3

    db = sqlite3.connect(f"file:{kb / 'data' / 'comprules.sqlite'}?mode=ro&immutable=1", uri=True)
    english = [
        n for (n,) in db.execute("SELECT name FROM editions WHERE lang = 'en' AND kind = 'edition' ORDER BY effective")
    ]
    rules = {
        name: [
            r
            for (r,) in db.execute(
                "SELECT id FROM rules WHERE edition = ? AND kind IN ('rule', 'subrule') ORDER BY seq", (name,)
            )
        ]
        for name in english[-10:]
    }
    words = sorted(
        {
            w.lower()
            for (t,) in db.execute("SELECT term FROM glossary_entries WHERE edition = ?", (english[-1],))
            for w in re.findall(r"[A-Za-z]{4,}", t)
        }
    )
    return english, rules, words


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kb", type=Path, help="a built knowledge base (default: build the 74 English editions)")
    ap.add_argument("--requests", type=int, default=3000, help="requests per run at 50 clients")
    ap.add_argument("--workers", type=int, default=1, help="server processes")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each measurement; the median is printed")
    args = ap.parse_args()
    import random

    rng = random.Random(20)
    tmp = None
    kb = args.kb
    if kb is None:
        tmp = Path(tempfile.mkdtemp(prefix="comprules-bench-serve-"))
        kb = tmp / "kb"
        en = corpus_dir() / "en"
        print(f"building {kb} from {en} …", flush=True)
        subprocess.run(
            [sys.executable, "-m", "comprules.cli", "build", str(en), "--kb", str(kb)],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    site = kb / "site"
    english, rules_of, words = kb_facts(kb)
    page = f"/{english[-1]}/702.html"
    gzip = {"Accept-Encoding": "gzip"}
    print(f"cores: {os.cpu_count()}, load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"knowledge base: {kb} ({len(english)} English editions)")
    figures: dict[str, float] = {}
    try:
        port = free_port()
        cmd = [sys.executable, "-m", "comprules.cli", "serve", "--kb", str(kb), "--port", str(port)]
        cmd += ["--workers", str(args.workers)]
        base = f"http://127.0.0.1:{port}"
        proc, first = start(cmd, base + "/ar/cr/100.1")
        print(f"comprules serve: start to first answer {first:.2f} s, workers {args.workers}")
        results = {}
        try:
            run = partial(median_of, args.repeat)
            known = httpx.get(base + "/ar/cr", timeout=60).json()
            ar_rules = [r for r in RULES if r in known]
            cold_rules = [f"/api/v1/rules/{r}?edition={quote(name)}" for name, ids in rules_of.items() for r in ids]
            rng.shuffle(cold_rules)
            cached_rules = [f"/api/v1/rules/{r}?edition={quote(english[-1])}" for r in ar_rules]
            timed_once(base, cached_rules)  # asked once: kept
            searches = [f"/api/v1/search?q={quote(a + ' ' + b)}" for a in words for b in words if a < b]
            rng.shuffle(searches)
            routes = [
                ("/ar/cr/{rule}", ar_rules and [f"/ar/cr/{r}" for r in ar_rules], {}, (1, 50)),
                ("/api/v1/rules/{n}, asked before", cached_rules, {}, (50,)),
                ("/api/v1/rules/{n}, never asked", cold_rules, {}, (50,)),
                ("/api/v1/search, never asked", searches, {}, (50,)),
                (f"static {page}", [page], gzip, (1, 50)),
            ]
            for name, paths, headers, counts in routes:
                for clients in counts:
                    n = args.requests if clients == 50 else max(100, args.requests // 5)
                    r = run(partial(measured, proc.pid, base, paths, n, clients, headers))
                    results[(name, clients)] = r
                    print(line(name, clients, r), flush=True)
            cold, hot = (
                results[("/api/v1/rules/{n}, never asked", 50)],
                results[("/api/v1/rules/{n}, asked before", 50)],
            )
            figures["cold rules req/s"] = cold["rps"]
            figures["cold / cached rules"] = cold["rps"] / hot["rps"]
            static50 = results[(f"static {page}", 50)]
            figures["unique searches / static"] = results[("/api/v1/search, never asked", 50)]["rps"] / static50["rps"]
            print(
                f"cold rules: {cold['rps']:.0f} req/s = ×{cold['rps'] / hot['rps']:.2f} the cached route "
                f"(target ≥ 0.8), ×{cold['rps'] / 10:.0f} the 10 req/s of 2026-12-01 (target ≥ 50)"
            )
            print(
                f"unique searches: ×{figures['unique searches / static']:.2f} a static page's throughput (target ≥ 0.25)"
            )

            pairs = [(english[0], english[-1])]
            while len(pairs) < 12:
                a, b = rng.sample(english, 2)
                if (a, b) not in pairs:
                    pairs.append((a, b))
            diffs = timed_once(base, [f"/api/v1/diff?old={quote(a)}&new={quote(b)}" for a, b in pairs])
            latest_ids = rules_of[english[-1]]
            traced = rng.sample(latest_ids, 30)
            traces = timed_once(base, [f"/ar/cr/trace/{r}" for r in traced])
            figures["cold diff max ms"] = max(diffs) * 1000
            figures["cold trace max ms"] = max(traces) * 1000
            print(
                f"cold diffs (12 pairs, {pairs[0][0]} → {pairs[0][1]} among them): median "
                f"{statistics.median(diffs) * 1000:.0f} ms, slowest {max(diffs) * 1000:.0f} ms (target ≤ 300 ms: "
                f"{' → '.join(pairs[diffs.index(max(diffs))])})"
            )
            print("  each: " + ", ".join(f"{a[3:]}→{b[3:]} {t * 1000:.0f}" for (a, b), t in zip(pairs, diffs)))
            print(
                f"cold traces (30 rules of {english[-1]}): median {statistics.median(traces) * 1000:.0f} ms, "
                f"slowest {max(traces) * 1000:.0f} ms (target ≤ 100 ms)"
            )

            alone = measured(proc.pid, base, [page], args.requests, 10, gzip)
            untouched = [(a, b) for a in english for b in english if a != b and (a, b) not in pairs]
            rng.shuffle(untouched)
            busy = [f"/api/v1/diff?old={quote(a)}&new={quote(b)}" for a, b in untouched]

            async def beside() -> dict:
                stop_event = asyncio.Event()
                asked = 0

                async def differ(k: int) -> None:
                    nonlocal asked
                    async with httpx.AsyncClient(base_url=base, timeout=120) as client:
                        i = k
                        while not stop_event.is_set() and i < len(busy):
                            await client.get(busy[i])
                            asked += 1
                            i += 4

                tasks = [asyncio.create_task(differ(k)) for k in range(4)]
                await asyncio.sleep(0.5)
                r = await load(base, [page], args.requests, 10, gzip)
                stop_event.set()
                await asyncio.gather(*tasks)
                r["diffs"] = asked
                return r

            loaded = asyncio.run(beside())
            figures["static p99 with diffs / alone"] = loaded["p99"] / alone["p99"]
            print(line(f"static {page}, alone", 10, alone))
            print(line(f"static {page}, 4 clients diffing", 10, loaded))
            print(
                f"static p99 while four clients ask cold diffs ({loaded['diffs']} diffs): "
                f"×{figures['static p99 with diffs / alone']:.2f} its p99 alone (target ≤ 3)"
            )
            rss, figures["memory MB"], mapped = memory_mb(proc.pid)
            print(
                f"server memory after the run (the server and its worker processes): {figures['memory MB']:.0f} MB "
                f"proportional set (target ≤ 500 MB; {mapped:.0f} MB of it files mapped, the database's pages "
                f"read), {rss:.0f} MB resident"
            )
        finally:
            stop(proc)
        bport = free_port()
        bproc, bfirst = start(
            [sys.executable, "-m", "http.server", str(bport), "--bind", "127.0.0.1", "--directory", str(site)],
            f"http://127.0.0.1:{bport}{page}",
        )
        try:
            print(f"baseline python -m http.server: start to first answer {bfirst:.2f} s")
            for clients in (1, 50):
                n = args.requests if clients == 50 else max(100, args.requests // 5)
                r = median_of(
                    args.repeat, partial(measured, bproc.pid, f"http://127.0.0.1:{bport}", [page], n, clients, gzip)
                )
                print(line(f"baseline static {page}", clients, r), flush=True)
                print(line(f"static {page}", clients, results[(f"static {page}", clients)], r))
        finally:
            stop(bproc)
        errors = sum(r["errors"] for r in results.values())
        checks = {
            "cold rules ≥ 0.8× cached": figures["cold / cached rules"] >= 0.8,
            "cold rules ≥ 500 req/s": figures["cold rules req/s"] >= 500,
            "unique searches ≥ 0.25× static": figures["unique searches / static"] >= 0.25,
            "cold diff ≤ 300 ms": figures["cold diff max ms"] <= 300,
            "cold trace ≤ 100 ms": figures["cold trace max ms"] <= 100,
            "static p99 with diffs ≤ 3× alone": figures["static p99 with diffs / alone"] <= 3,
            "memory ≤ 500 MB": figures["memory MB"] <= 500,
            "no errors": errors == 0,
        }
        for name, ok in checks.items():
            print(f"  {'met' if ok else 'NOT met'}: {name}")
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
