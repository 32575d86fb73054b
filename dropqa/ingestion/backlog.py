"""The embedding backlog while ``dropqa index`` waits for it: how much is left and about how long.

Work left is counted in distinct texts still to embed (passages that share a text, or differ only in
numbers, are embedded once and copied — :func:`~dropqa.ingestion.rows.embed_key`), so the estimate
follows what the model still has to do, not how many rows wait for a copy. The rate is measured over
the last ``window_s`` seconds of the run itself (the machine may be busy with other work), and there
is no estimate until the backlog has shrunk at least once.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass


@dataclass(frozen=True)
class Backlog:
    """Passages (``nodes``) waiting for an embedding, the distinct ``texts`` among them the model
    still has to embed, the measured ``rate`` (texts per second) and the seconds left (``eta_s``)."""

    nodes: int
    texts: int
    rate: float | None = None
    eta_s: float | None = None

    def line(self) -> str:
        """``embedding: 1,234 passages left (56 texts to embed) · 3.1 texts/s · about 18 s left``"""
        out = f"embedding: {self.nodes:,} passage(s) left ({self.texts:,} text(s) to embed)"
        if self.rate is not None:
            out += f" · {self.rate:.1f} texts/s"
        if self.eta_s is not None:
            out += f" · about {duration(self.eta_s)} left"
        elif self.texts:
            out += " · estimating the time left"
        return out


def duration(seconds: float) -> str:
    """``45 s``, ``3 min``, ``1 h``, ``1 h 20 min``."""
    seconds = max(0.0, seconds)
    if seconds < 90:
        return f"{seconds:.0f} s"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60} h" + (f" {minutes % 60} min" if minutes % 60 else "")


class BacklogClock:
    """Turns successive counts of the backlog into a rate and a time left."""

    def __init__(self, window_s: float = 60.0) -> None:
        self.window_s = window_s
        self._samples: deque[tuple[float, int]] = deque()

    def update(self, nodes: int, texts: int, now: float | None = None) -> Backlog:
        now = time.monotonic() if now is None else now
        if self._samples and texts > self._samples[-1][1]:
            self._samples.clear()  # new files added texts: the earlier slope says nothing about these
        self._samples.append((now, texts))
        while len(self._samples) > 2 and now - self._samples[1][0] >= self.window_s:
            self._samples.popleft()
        first_t, first_texts = self._samples[0]
        if now <= first_t or first_texts <= texts:
            return Backlog(nodes, texts)
        rate = (first_texts - texts) / (now - first_t)
        return Backlog(nodes, texts, rate, texts / rate)
