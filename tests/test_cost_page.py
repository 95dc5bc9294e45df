"""The cost page shows exactly the stored benchmark results, in both languages.

`python -m tests.tools cost_page` measures and writes
tests/tools/cost_page/results/cpu.json, then rewrites the tables of
docs/*/cost-of-methods.md between marker comments. This checks consistency
only: the page's tables are what the stored results render to. Nothing here
measures or times anything.
"""

import re

import pytest

from sitepages import LANGUAGES, ROOT
from tests.tools.cost_page import tables as cost_tables
from tests.tools.cost_page.page import PAGES, page_sections


@pytest.mark.parametrize("language", LANGUAGES)
def test_cost_page_tables_are_the_stored_results(language):
    cpu, gpu = cost_tables.load_results()
    expected = cost_tables.sections(cpu, gpu, language)
    page = PAGES[language]
    shown = page_sections(page.read_text(encoding="utf-8"))
    assert sorted(shown) == sorted(expected), f"{page}: markers {sorted(shown)}, expected {sorted(expected)}"
    stale = [name for name in expected if shown[name] != expected[name]]
    assert not stale, (
        f"{page}: the sections {stale} differ from tests/tools/cost_page/results/; "
        "run `python -m tests.tools cost_page --pages-only`"
    )


def test_stored_results_cover_every_method_and_k():
    cpu, _ = cost_tables.load_results()
    assert {(case["model"], case["batch"]) for case in cpu["cases"]} == set(cost_tables.CASES)
    for case in cpu["cases"]:
        measured = {(entry["method"], entry["k"]) for entry in case["methods"]}
        assert measured == {(m, k) for m in cost_tables.METHODS for k in cost_tables.KS}, case["model"]
        assert [entry["mode"] for entry in case["forward"]] == list(cost_tables.MODES)
    assert cpu["machine"]["torch"].startswith("2.13.0"), "measured with another torch than the pinned one"


# Pages whose advice quotes the measured ratios. Their prose is written by hand,
# so when the benchmark is run again this names every figure that went stale.
CITING_PAGES = ["choosing-a-method.md", "grad-modes.md", "intermediate/index.md"]
_RATIO = re.compile(r"(\d+\.\d+)(?:[–-](\d+\.\d+))?\s*(?:×|倍)")


def cited_ratios(text: str) -> list[str]:
    """Every ratio written as 1.23× or as a range 0.96–1.16× (in Chinese prose: 1.23 倍, 0.96–1.16 倍)."""
    return [number for match in _RATIO.findall(text) for number in match if number]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("page", CITING_PAGES)
def test_ratios_quoted_elsewhere_are_on_the_cost_page(language, page):
    measured = set(cited_ratios((ROOT / "docs" / language / "cost-of-methods.md").read_text(encoding="utf-8")))
    citing = ROOT / "docs" / language / page
    cited = cited_ratios(citing.read_text(encoding="utf-8"))
    assert cited, f"{citing} quotes no measured ratio; it should cite the cost page's figures"
    stale = [number for number in cited if number not in measured]
    assert not stale, f"{citing} quotes {stale}×, which the cost page no longer shows; update the prose"


def test_quoted_ratio_check_sees_ranges_and_single_figures():
    assert cited_ratios("took 0.96–1.16× the time, and 3.40× for 16 calls") == ["0.96", "1.16", "3.40"]
    assert cited_ratios("时间是 0.96–1.16 倍，16 次调用是 3.40 倍") == ["0.96", "1.16", "3.40"]
