"""The vision-model settings and the pieces of ingestion/vision.py that need no server."""

from __future__ import annotations

import base64
import io

import pytest
from PIL import Image
from pydantic import ValidationError

from dropqa.config import Settings
from dropqa.ingestion.vision import ImageReading, VisionReader, _reading, data_url


def test_vision_model_is_not_configured_by_default(tmp_path):
    settings = Settings(data_dir=tmp_path)
    assert settings.models.vision.model == "" and VisionReader.from_settings(settings) is None


def test_vision_settings_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("DROPQA_MODELS__VISION__MODEL", "qwen-vl-plus")
    monkeypatch.setenv("DROPQA_MODELS__VISION__BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("DROPQA_MODELS__VISION__MAX_SIDE", "512")
    settings = Settings(data_dir=tmp_path)
    reader = VisionReader.from_settings(settings)
    assert reader is not None and reader.name == "qwen-vl-plus@http://127.0.0.1:9/v1" and reader.max_side == 512


def test_unknown_vision_key_is_an_error(tmp_path, monkeypatch):
    monkeypatch.setenv("DROPQA_MODELS__VISION__MAXSIDE", "512")
    with pytest.raises(ValidationError, match="maxside"):
        Settings(data_dir=tmp_path)


def test_data_url_is_a_downscaled_png():
    buf = io.BytesIO()
    Image.new("RGB", (2000, 500), "red").save(buf, format="JPEG")
    url = data_url(buf.getvalue(), 400)
    assert url is not None and url.startswith("data:image/png;base64,")
    assert Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).size == (400, 100)
    assert data_url(b"not an image", 400) is None


def test_a_reading_without_content_is_refused():
    assert isinstance(_reading(ImageReading(kind="chart", summary="rises")), ImageReading)
    assert isinstance(_reading(ImageReading(kind="chart", description="x")), ValueError)
    assert isinstance(_reading(ImageReading(kind="table")), ValueError)
    failed = RuntimeError("bad json")
    assert _reading(failed) is failed
