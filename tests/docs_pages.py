"""Where the pages are, how an English page maps to its Chinese twin, and where each is served."""

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


def page_url(source: Path) -> str:
    """docs/en/a/b.md -> /a/b/, docs/zh/a/index.md -> /zh/a/, docs/zh/nb/x.ipynb -> /zh/nb/x/."""
    language, *parts = (ROOT / source).relative_to(DOCS).with_suffix("").parts
    if parts[-1] == "index":
        parts = parts[:-1]
    prefix = "/" if language == "en" else f"/{language}/"
    return prefix + "".join(f"{part}/" for part in parts)


def built_pages(site: Path) -> list[str]:
    """URL paths of every index.html of a built site, e.g. '/', '/zh/leaf-nodes/'."""
    folders = (html.parent.relative_to(site).as_posix() for html in site.rglob("index.html"))
    return sorted("/" if folder == "." else f"/{folder}/" for folder in folders)
