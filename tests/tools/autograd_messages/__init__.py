"""Autograd's error and warning messages in a torch build, derived from its sources, as the error index's list.

    python -m tests.tools autograd_messages derive                     # the pinned torch (this interpreter's)
    python -m tests.tools autograd_messages derive --torch VENV/bin/python   # another release
    python -m tests.tools autograd_messages counts                     # the counts table of the data file

``docs/data/autograd-messages.yml`` lists every message, by family, with where
torch raises it. ``derive`` reads a torch's Python modules of each family
(``scan.SCOPE``) with ``ast`` and finds every message they raise or warn
(``scan.py``); it checks each C++ message of the list against that build's
compiled libraries (``binary.py``: the literal parts of the message must be in
the libraries' read-only data, or in the C++ headers the wheel ships). It
prints, per family, what the list holds, then the messages in the sources but
not in the list (new), those in the list but not in that build (gone or
reworded) and those whose line moved; it exits 1 when any is found, so that
tests/test_autograd_messages.py fails when the list and the pinned torch
disagree.

Why no library: a linter or message catalogue (``pylint``'s checkers, gettext
extraction with ``babel``/``xgettext``) extracts plain string literals, not the
messages an exception is raised with once f-strings, ``%``, ``.format``, a
message built in a variable, ``torch._check(..., lambda: ...)`` and dynamo's
``unimplemented(gb_type=...)`` are resolved, and none reads a compiled
library's strings; ``strings`` (binutils) reads them, but is not installed
everywhere and prints hundreds of megabytes to parse. The C++ sources are not in
the wheel, so a C++ message's text comes from pytorch/pytorch's sources and is
kept in the data file; only the build can say whether it is still there.
"""
