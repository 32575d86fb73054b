"""The HTTP service: FastAPI app, routers, auth, errors."""
