"""The torch version matrix: every page's code run on one release of every minor version, stored as data.

Not part of the test suite, and never run by CI's test job: each release is a
multi-GB download (PyPI publishes recent torch as CUDA builds only; they run
on a CPU). The releases are listed in docs/data/torch-versions/releases.yml;
sitepages.torch_versions explains what is stored and how the site shows it.
``python -m tests.tools torch_versions --help`` lists the commands. One module
per job:

- ``__main__``: the command line;
- ``data``: the stored data, one ``RELEASE.json`` per release: reading,
  writing, what is stale, and merging one release's results into it;
- ``venvs``: the virtual environment of one release (torch, a numpy it
  supports, the page parser's packages, TensorFlow where it fits);
- ``refresh``: running the stale pages on one release and writing its
  results (``run``), and every release in turn (``refresh``: run, then merge);
- ``discover``: the releases on PyPI that releases.yml lacks.

``run`` writes one release's results to a folder, ``merge`` brings them into
docs/data/torch-versions: the weekly workflow (.github/workflows/torch-versions.yml)
runs every release in a job of its own and merges their results in one, and
the same two commands run one release on a writer's machine.
"""
