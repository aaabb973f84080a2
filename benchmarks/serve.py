"""Load `comprules serve` on loopback: requests/s and latency percentiles, against a baseline.

Usage: ``python benchmarks/serve.py [--kb DIR] [--requests N] [--workers N]``

Without ``--kb`` a knowledge base of three English editions (2024-07-30, 2024-11-08 and
the latest) is built into a temporary folder first (not timed). Then ``comprules serve``
is started in a subprocess and timed from launch to its first answer (target ≤ 2 s), and
a fixed number of requests (``--requests``, default 3000 per run at 50 clients and 600 at
one) is sent over keep-alive connections (a lean asyncio client, see :func:`load`), for

* ``/ar/cr/{rule}`` (a cycle of 40 rule numbers; target ≥ 500 requests/s at 50 clients),
* ``/api/v1/search?q=…`` (the queries of ``tests/relevance.toml``; target ≥ 150 /s): the
  server keeps answers per knowledge base generation, so after the first round these are
  answered from memory; then again from a server started with ``COMPRULES_SEARCH_CACHE=0``,
  where each request runs the search (the figure the targets are checked on),
* a static section page (gzip asked for),

at 1 and at 50 concurrent clients, printing requests/s, p50/p95/p99 in ms (target p99 ≤
100 ms at 50 clients) and errors (target 0). The baseline, in the same run: the standard
library's static server (``python -m http.server``, what ``comprules serve`` was before)
on the same site folder, same page, same clients; the ratio is comprules / baseline.
Each measurement is run ``--repeat`` times (default 3) and the run of median throughput is
printed, with every run's figures. Everything listens on 127.0.0.1 only and stops by itself. The load generator shares the
machine's cores with the server: figures are upper bounds of the client-server pair; the
server's own CPU time per request (``/proc``) is printed too, which the machine's load
does not inflate much.
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kb", type=Path, help="a built knowledge base (default: build three editions)")
    ap.add_argument("--requests", type=int, default=3000, help="requests per run at 50 clients")
    ap.add_argument("--workers", type=int, default=1, help="server processes")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each measurement; the median is printed")
    args = ap.parse_args()

    tmp = None
    kb = args.kb
    if kb is None:
        tmp = Path(tempfile.mkdtemp(prefix="comprules-bench-serve-"))
        kb = tmp / "kb"
        en = corpus_dir() / "en"
        latest = sorted(en.glob("*.txt"))[-1]
        print(f"building {kb} from 2024-07-30, 2024-11-08, {latest.stem} …", flush=True)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "comprules.cli",
                "build",
                str(en / "2024-07-30.txt"),
                str(en / "2024-11-08.txt"),
                str(latest),
                "--kb",
                str(kb),
            ],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    site = kb / "site"
    latest_dir = sorted(p for p in (site / "en").iterdir() if p.name[0].isdigit())[-1]
    page = f"/en/{latest_dir.name}/702.html"
    gzip = {"Accept-Encoding": "gzip"}
    print(f"cores: {os.cpu_count()}, load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    try:
        port = free_port()
        cmd = [
            sys.executable,
            "-m",
            "comprules.cli",
            "serve",
            "--kb",
            str(kb),
            "--port",
            str(port),
            "--workers",
            str(args.workers),
        ]
        base = f"http://127.0.0.1:{port}"
        proc, first = start(cmd, base + "/ar/cr/100.1")
        print(f"comprules serve: start to first answer {first:.2f} s (target ≤ 2 s), workers {args.workers}")
        known = httpx.get(base + "/ar/cr", timeout=60).json()
        rules = [r for r in RULES if r in known]
        results = {}
        routes = (
            ("/ar/cr/{rule}", [f"/ar/cr/{r}" for r in rules], {}),
            ("/api/v1/search", [f"/api/v1/search?q={quote(q)}" for q in queries()], {}),
            (f"static {page}", [page], gzip),
        )
        try:
            for clients in (1, 50):
                n = args.requests if clients == 50 else max(100, args.requests // 5)
                for name, paths, headers in routes:
                    r = median_of(args.repeat, partial(measured, proc.pid, base, paths, n, clients, headers))
                    results[(name, clients)] = r
                    print(line(name, clients, r), flush=True)
        finally:
            stop(proc)
        # the same searches with no answer kept: each request runs the search
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        cmd[cmd.index("--port") + 1] = str(port)
        os.environ["COMPRULES_SEARCH_CACHE"] = "0"
        try:
            proc, _ = start(cmd, base + "/ar/cr/100.1")
        finally:
            del os.environ["COMPRULES_SEARCH_CACHE"]
        try:
            for clients in (1, 50):
                n = args.requests if clients == 50 else max(100, args.requests // 5)
                name, paths, headers = "/api/v1/search, nothing kept", routes[1][1], {}
                r = median_of(args.repeat, partial(measured, proc.pid, base, paths, n, clients, headers))
                results[(name, clients)] = r
                print(line(name, clients, r), flush=True)
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
        ar, se = results[("/ar/cr/{rule}", 50)], results[("/api/v1/search, nothing kept", 50)]
        errors = sum(r["errors"] for r in results.values())
        ok = ar["rps"] >= 500 and se["rps"] >= 150 and max(ar["p99"], se["p99"]) <= 100 and not errors and first <= 2
        print(
            f"targets (≥ 500 and ≥ 150 req/s at 50 clients, p99 ≤ 100 ms, 0 errors, start ≤ 2 s): "
            f"{'met' if ok else 'NOT met'}"
        )
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
