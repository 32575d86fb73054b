"""Small helpers shared by the bench steps: timed calls, percentiles, interleaved rounds."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any


def timed(fn: Callable[..., Any], *args: Any) -> tuple[Any, float]:
    started = time.perf_counter()
    out = fn(*args)
    return out, (time.perf_counter() - started) * 1000


def interleaved(systems: dict[str, Callable[[Any], Any]], items: Sequence[Any], rounds: int,
                ) -> tuple[dict[str, list[Any]], dict[str, list[float]]]:
    """Run every system on every item ``rounds`` times, rotating the order of the systems per item
    (a noisy, shared machine then slows all of them alike). One untimed warm-up call each first.
    Returns (first-round outputs per system, all latencies in ms per system)."""
    names = list(systems)
    outputs: dict[str, list[Any]] = {n: [] for n in names}
    latencies: dict[str, list[float]] = {n: [] for n in names}
    if items:
        for n in names:
            systems[n](items[0])
    for r in range(max(1, rounds)):
        for i, item in enumerate(items):
            shift = (i + r) % len(names)
            for n in names[shift:] + names[:shift]:
                out, ms = timed(systems[n], item)
                latencies[n].append(ms)
                if r == 0:
                    outputs[n].append(out)
    return outputs, latencies


def percentiles(latencies_ms: Sequence[float]) -> dict[str, float | None]:
    """p50 / p95 as the eval report defines them (``dropqa.evals.metrics``: the median, and the
    nearest rank below ``0.95 n``), to 0.1 ms: sub-millisecond baselines need the decimal."""
    lat = sorted(latencies_ms)
    if not lat:
        return {"p50_ms": None, "p95_ms": None, "n": 0}
    p95 = lat[min(len(lat) - 1, int(0.95 * len(lat)))]
    return {"p50_ms": round(statistics.median(lat), 1), "p95_ms": round(p95, 1), "n": len(lat)}


def ratio(a: float | None, b: float | None, places: int = 2) -> float | None:
    if a is None or b is None or b == 0:
        return None
    return round(a / b, places)
