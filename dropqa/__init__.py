"""DropQA: self-hosted document question answering with section-level citations."""

__version__ = "0.1.0"
