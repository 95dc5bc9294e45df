"""Where the site's sources are, which language each is in, its twin, and the URL it is served at.

Pages and notebooks live in ``docs/<language>/`` under the same relative paths in
every language. The languages are those of mkdocs.yml's i18n plugin, the one
place they are listed; the default one is served at ``/``, every other one at
``/<language>/``.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parents[3]
DOCS = ROOT / "docs"


def _site_languages() -> tuple[tuple[str, ...], str]:
    from .data import load  # data names files relative to ROOT, defined above

    config = load(ROOT / "mkdocs.yml").value  # its tags (!ENV, !!python/name:...) read as None
    i18n = next(plugin["i18n"] for plugin in config["plugins"] if isinstance(plugin, dict) and "i18n" in plugin)
    languages = tuple(language["locale"] for language in i18n["languages"])
    return languages, next(language["locale"] for language in i18n["languages"] if language.get("default"))


LANGUAGES, DEFAULT_LANGUAGE = _site_languages()
SOURCE_SUFFIXES = (".md", ".ipynb")


def _relative(path: Path) -> Path:
    path = Path(path)
    return path.relative_to(ROOT) if path.is_absolute() else path


def sources(language: str | None = None, suffixes: tuple[str, ...] = SOURCE_SUFFIXES) -> list[Path]:
    """Every page and notebook, relative to the repository root, in a stable order."""
    chosen = (language,) if language else LANGUAGES
    return sorted(
        path.relative_to(ROOT)
        for lang in chosen
        for path in (DOCS / lang).rglob("*")
        if path.suffix in suffixes and ".ipynb_checkpoints" not in path.parts
    )


def pages(language: str | None = None) -> list[Path]:
    """Every Markdown page (docs/LANG/**/*.md), relative to the repository root."""
    return sources(language, (".md",))


def notebooks(language: str | None = None) -> list[Path]:
    """Every notebook (docs/LANG/**/*.ipynb), relative to the repository root."""
    return sources(language, (".ipynb",))


def language_of(path: str | Path) -> str:
    """The language of a source file or of a URL path.

    Accepts a repository path (``docs/zh/a.md``, absolute or relative), a path
    relative to ``docs/`` (``zh/a.md``, as MkDocs' ``src_uri``) or a URL path
    (``/zh/a/``); anything not under another language's folder is English.
    """
    parts = [part for part in PurePosixPath(Path(path).as_posix()).parts if part != "/"]
    if Path(path).is_absolute() and Path(path).is_relative_to(DOCS):
        parts = list(Path(path).relative_to(DOCS).parts)
    elif parts[:1] == ["docs"]:
        parts = parts[1:]
    return parts[0] if parts and parts[0] in LANGUAGES else DEFAULT_LANGUAGE


def twin(source: Path, language: str) -> Path:
    """The same source in another language: docs/en/a/b.md -> docs/zh/a/b.md."""
    relative = _relative(source).relative_to("docs")
    return Path("docs", language, *relative.parts[1:])


def page_id(source: Path) -> str:
    """A source's name in test ids and messages: docs/zh/a/b.md -> zh/a/b.md."""
    return _relative(source).relative_to("docs").as_posix()


def page_url(source: Path) -> str:
    """docs/en/a/b.md -> /a/b/, docs/zh/a/index.md -> /zh/a/, docs/zh/nb/x.ipynb -> /zh/nb/x/."""
    language, *parts = _relative(source).relative_to("docs").with_suffix("").parts
    if parts and parts[-1] == "index":
        parts = parts[:-1]
    prefix = "/" if language == DEFAULT_LANGUAGE else f"/{language}/"
    return prefix + "".join(f"{part}/" for part in parts)


def nav_pages(nav: list | None) -> dict[str, str]:
    """Page (relative to docs/LANG) -> its title, for every page of a navigation as mkdocs.yml writes it.

    The titles are the untranslated ones of mkdocs.yml; the "Torch versions"
    page has a section for exactly these pages.
    """
    titles: dict[str, str] = {}

    def walk(items) -> None:
        for item in items:
            for title, target in item.items() if isinstance(item, dict) else ():
                if isinstance(target, list):
                    walk(target)
                else:
                    titles[target] = title

    walk(nav or [])
    return titles
