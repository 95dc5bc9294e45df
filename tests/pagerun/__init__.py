"""The one engine that executes page blocks (``execute``), in this process or in fresh
interpreters (``fresh``), under the environments that switch CPU code paths (``environments``)."""
