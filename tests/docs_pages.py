"""Where the pages are, and how an English page maps to its Chinese twin."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
LANGUAGES = ("en", "zh")


def pages(language: str | None = None) -> list[Path]:
    """Every Markdown page, relative to the repository root, in a stable order."""
    chosen = (language,) if language else LANGUAGES
    return sorted(
        path.relative_to(ROOT) for lang in chosen for path in (DOCS / lang).rglob("*.md")
    )


def notebooks(language: str | None = None) -> list[Path]:
    """Every hands-on notebook (docs/LANG/notebooks/*.ipynb), relative to the repository root."""
    chosen = (language,) if language else LANGUAGES
    return sorted(
        path.relative_to(ROOT) for lang in chosen for path in (DOCS / lang / "notebooks").glob("*.ipynb")
    )


def twin(page: Path, language: str) -> Path:
    """The same page in another language: docs/en/a/b.md -> docs/zh/a/b.md."""
    parts = page.parts
    return Path(*parts[:1], language, *parts[2:])


def page_id(page: Path) -> str:
    return str(page.relative_to("docs"))
