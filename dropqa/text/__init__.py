"""Language-aware text utilities shared by every room (segmentation, sentences, language).

A leaf package: it imports nothing from the rest of DropQA, so the store,
ingestion, tools and graph can all use the same segmentation.
"""
