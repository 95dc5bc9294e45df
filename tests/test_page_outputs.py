"""Every executed block prints exactly the output its page shows."""

import pytest

from docs_pages import page_id, pages
from page_runner import run_page


@pytest.mark.parametrize("page", pages(), ids=page_id)
def test_every_block_prints_what_the_page_shows(page):
    runs = run_page(page)
    failures = [message for run in runs for message in run.failures]
    if failures:
        pytest.fail("\n\n".join(failures), pytrace=False)
