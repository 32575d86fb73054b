"""A CJK-capable font for tests that render text into images (no download: the system's, or PyMuPDF's)."""

from __future__ import annotations

import io
import shutil
import subprocess

from PIL import Image, ImageDraw, ImageFont


def cjk_font_source() -> str | bytes | None:
    if shutil.which("fc-list"):
        command = ["fc-list", ":lang=zh", "file"]
        out = subprocess.run(command, capture_output=True, text=True, check=False).stdout
        paths = [line.split(":")[0].strip() for line in out.splitlines() if line.strip()]
        if paths:
            return sorted(paths)[0]
    try:
        import pymupdf

        return bytes(pymupdf.Font("china-s").buffer)  # PyMuPDF ships Droid Sans Fallback
    except Exception:
        return None


FONT_SOURCE = cjk_font_source()
CJK = FONT_SOURCE is not None


def font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    if FONT_SOURCE is None:
        return ImageFont.load_default(size=size)
    source = FONT_SOURCE if isinstance(FONT_SOURCE, str) else io.BytesIO(FONT_SOURCE)
    return ImageFont.truetype(source, size)


def render(lines: list[tuple[int, int, str, int]], size: tuple[int, int]) -> Image.Image:
    """White image with each ``(x, y, text, font_px)`` line drawn in black."""
    img = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(img)
    for x, y, text, px in lines:
        draw.text((x, y), text, font=font(px), fill="black")
    return img
