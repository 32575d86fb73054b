"""A CJK-capable font for tests that render text into images (no download: the system's, or PyMuPDF's)."""

from __future__ import annotations

import shutil
import subprocess


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
