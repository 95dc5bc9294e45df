"""Browser tests: the built site in Chromium (see harness.py for how to install what they need)."""
