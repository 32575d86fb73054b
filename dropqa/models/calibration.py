"""The fitted answerability model ("do the documents hold the answer?"), a standardised logistic regression
shipped as data (``answerability.json`` beside this module) or refitted into a file of the user's
(``Settings.retrieval.calibration_file``).

The features they read are computed in ``dropqa.retrieval.answerability``; ``python -m dropqa.evals.fit``
fits them on the golden suites. The services load them once (:func:`load_calibration`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Logistic:
    """A standardised logistic model: p = σ(b + Σ wᵢ (xᵢ − μᵢ) / σᵢ)."""

    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    threshold: float
    confident: float = 1.0

    def probability(self, x: dict[str, float]) -> float:
        z = self.intercept + sum(w * (x.get(f, 0.0) - m) / (s or 1.0)
                                 for f, m, s, w in zip(self.features, self.mean, self.scale, self.coef, strict=True))
        return 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, z))))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Logistic:
        return cls(features=tuple(data["features"]), mean=tuple(data["mean"]), scale=tuple(data["scale"]),
                   coef=tuple(data["coef"]), intercept=float(data["intercept"]), threshold=float(data["threshold"]),
                   confident=float(data.get("confident", 1.0)))


@dataclass(frozen=True)
class Calibration:
    question: Logistic
    meta: dict[str, Any]


def load_calibration(path: Path | str | None = None) -> Calibration:
    """The shipped fit, or a refitted file (``Settings.retrieval.calibration_file``)."""
    if path:
        text = Path(path).read_text(encoding="utf-8")
    else:
        text = resources.files("dropqa.models").joinpath("answerability.json").read_text(encoding="utf-8")
    data = json.loads(text)
    return Calibration(question=Logistic.from_dict(data["question"]),
                       meta=data.get("meta", {}))
