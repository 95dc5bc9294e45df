"""Links from PyTorch names in the pages' inline code to PyTorch's reference (docs/hooks/api_links.py,
docs/data/api-links.yml, tests/tools/api_links.py): every mapped object exists in the installed torch and has
the URL of PyTorch's documentation layout; a name is linked once per page, never in headings, links or code
blocks; nothing is requested at build time; and the built pages carry the links."""

from __future__ import annotations

import ast
import socket
from pathlib import Path
from types import SimpleNamespace

import pytest

from sitepages import DOCS, ROOT
from sitepages.api_links import Api, add_links, api_of, apis
from sitepages.data import load
from tests.tools import api_links as tool

BASE = "https://docs.pytorch.org/docs/stable/"
KNOWN = {
    "retain_grad": Api("retain_grad", "torch.Tensor.retain_grad", BASE + "r.html", True, ()),
    "torch.autograd.grad": Api("torch.autograd.grad", "torch.autograd.grad", BASE + "g.html", False, ()),
    "torch.no_grad": Api("torch.no_grad", "torch.no_grad", BASE + "n.html", False, ()),
    "grad": Api("grad", "torch.func.grad", BASE + "f.html", False, ("functional.md",)),
    "register_hook": Api("register_hook", "torch.Tensor.register_hook", BASE + "t.html", True, ()),
    "grad_fn.register_hook": Api("grad_fn.register_hook", "torch.autograd.graph.Node.register_hook",
                                 BASE + "node.html", True, ()),
}


@pytest.mark.parametrize("code, page, expected", [
    ("retain_grad()", "a.md", "torch.Tensor.retain_grad"),
    ("y.retain_grad()", "a.md", "torch.Tensor.retain_grad"),
    ("torch.no_grad()", "a.md", "torch.no_grad"),
    ("torch.autograd.grad(y, x)", "a.md", "torch.autograd.grad"),
    ("grad(f)(x)", "functional.md", "torch.func.grad"),
    ("grad", "hooks.md", None),  # ambiguous: linked only where the map says
    ("x.grad", "functional.md", None),  # an attribute, not a receiver's method
    ("no_grad", "a.md", None),
    ("y.grad_fn.register_hook(fn)", "a.md", "torch.autograd.graph.Node.register_hook"),
    ("h.register_hook", "a.md", "torch.Tensor.register_hook"),
    ("torch.no_grad() or x", "a.md", None),
])
def test_which_inline_code_names_an_api(code, page, expected):
    found = api_of(code, KNOWN, page)
    assert (found.object if found else None) == expected


def test_the_first_occurrence_per_page_is_linked_and_nothing_in_headings_links_or_code_blocks():
    html = ('<h2><code>retain_grad()</code></h2><pre><code>y.retain_grad()</code></pre>'
            '<p><a href="x/"><code>torch.no_grad()</code></a></p>'
            '<div class="admonition short-answer"><p><code>torch.no_grad()</code></p></div>'
            '<p>Call <code>y.retain_grad()</code>, then <code>retain_grad()</code> and '
            '<code>torch.no_grad()</code>.</p>'
            '<table><tr><td><code>torch.no_grad()</code></td></tr></table>')
    linked = add_links(html, "a.md", KNOWN)
    assert linked.count('class="api-link"') == 2
    assert f'<a class="api-link" href="{BASE}r.html"><code>y.retain_grad()</code></a>' in linked
    assert f'<a class="api-link" href="{BASE}n.html"><code>torch.no_grad()</code></a>.' in linked
    assert linked.startswith('<h2><code>retain_grad()</code></h2><pre><code>y.retain_grad()</code></pre>')


def test_every_mapped_name_resolves_in_torch_with_the_url_of_the_documentation_layout():
    data = load(tool.MAP, tool.SCHEMA)
    assert tool.problems(data) == []
    for name, entry in data.value["names"].items():
        assert tool.resolve(entry["object"]) is not None, name
    assert set(apis()) >= {"torch.autograd.grad", "retain_grad", "register_hook", "Tensor.register_hook",
                           "torch.no_grad", "torch.inference_mode", "detach", "requires_grad_",
                           "register_forward_hook", "register_full_backward_hook", "torch.func.grad",
                           "functional_call", "vmap", "torch.utils.checkpoint.checkpoint", "GradScaler",
                           "set_detect_anomaly", "register_post_accumulate_grad_hook", "saved_tensors_hooks"}


def test_the_layout_rules():
    data = load(tool.MAP, tool.SCHEMA).value
    assert tool.url_of("torch.autograd.grad", data) == "generated/torch.autograd.grad.html"
    assert tool.url_of("torch.Tensor.retain_grad", data) == "generated/torch.Tensor.retain_grad.html"
    assert tool.url_of("torch.nn.Module.register_forward_hook", data) == (
        "generated/torch.nn.Module.html#torch.nn.Module.register_forward_hook")
    assert tool.url_of("torch.utils.checkpoint.checkpoint", data) == (
        "checkpoint.html#torch.utils.checkpoint.checkpoint")
    with pytest.raises(LookupError, match="no_such_thing"):
        tool.resolve("torch.autograd.no_such_thing")


def test_the_check_finds_an_object_torch_lacks_and_a_stale_url(tmp_path):
    text = tool.MAP.read_text(encoding="utf-8").replace(
        "retain_grad: {object: torch.Tensor.retain_grad, url: generated/torch.Tensor.retain_grad.html",
        "retain_grad: {object: torch.Tensor.retain_grad, url: generated/torch.Tensor.retain.html").replace(
        "vmap: {object: torch.func.vmap,", "vmap: {object: torch.func.vmapp,")
    (tmp_path / "api-links.yml").write_text(text, encoding="utf-8")
    found = "\n".join(tool.problems(load(tmp_path / "api-links.yml", tool.SCHEMA)))
    assert "retain_grad: url is 'generated/torch.Tensor.retain.html'" in found
    assert "vmap: the installed torch has no torch.func.vmapp" in found


def test_the_tool_lists_the_names_the_pages_use():
    names = tool.code_names(DOCS / "en" / "leaf-nodes.md")
    assert "retain_grad" in names
    assert tool.looks_like_torch("y.retain_grad") == "torch.Tensor.retain_grad"
    assert tool.looks_like_torch("np.sum") is None


def test_the_build_asks_nothing_of_the_network(monkeypatch):
    """The hooks import no network client, and adding the links with sockets refused works."""
    for path in (ROOT / "docs/hooks/api_links.py", ROOT / "docs/hooks/sitepages/api_links.py",
                 ROOT / "docs/hooks/sitepages/prose.py", ROOT / "docs/hooks/term_tooltips.py"):
        imported = {alias.name.split(".")[0] for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                    if isinstance(node, ast.Import) for alias in node.names}
        imported |= {(node.module or "").split(".")[0] for node in ast.walk(ast.parse(path.read_text(
            encoding="utf-8"))) if isinstance(node, ast.ImportFrom)}
        assert not imported & {"urllib", "http", "socket", "requests", "httpx", "urllib3"}, path

    def refused(*args, **kwargs):
        raise AssertionError("the build opened a socket")

    monkeypatch.setattr(socket.socket, "connect", refused)
    monkeypatch.setattr(socket, "create_connection", refused)
    apis.cache_clear()
    import api_links as hook

    class Page:
        class file:  # noqa: N801 - what MkDocs' Page.file offers the hook
            src_uri = "en/leaf-nodes.md"

    html = hook.on_page_content("<p><code>retain_grad()</code></p>", page=Page,
                                config=SimpleNamespace(docs_dir=str(DOCS)), files=None)
    assert 'href="https://docs.pytorch.org/docs/stable/generated/torch.Tensor.retain_grad.html"' in html


@pytest.mark.parametrize("url", ["/leaf-nodes/", "/zh/leaf-nodes/"])
def test_the_leaf_nodes_page_links_retain_grad_to_the_reference(built_page, url):
    links = {a.get_text(): a["href"] for a in built_page(url).select("article a.api-link")}
    assert links.get("retain_grad()") == BASE + "generated/torch.Tensor.retain_grad.html", (url, links)
    assert not built_page(url).select("article h1 a.api-link, article h2 a.api-link, article pre a.api-link")


@pytest.mark.parametrize("url", ["/intermediate/autograd-grad/", "/zh/intermediate/autograd-grad/"])
def test_the_autograd_grad_page_links_torch_autograd_grad_once(built_page, url):
    links = [a["href"] for a in built_page(url).select("article a.api-link")]
    assert links.count(BASE + "generated/torch.autograd.grad.html") == 1, (url, links)


def test_the_hook_is_registered_after_the_tooltips():
    hooks = [line.strip() for line in (ROOT / "mkdocs.yml").read_text(encoding="utf-8").splitlines()]
    assert hooks.index("- docs/hooks/term_tooltips.py") < hooks.index("- docs/hooks/api_links.py")
    assert Path(ROOT / "docs/data/api-links.yml").is_file()


def test_a_name_without_its_url_says_to_run_the_tool(tmp_path):
    from sitepages.api_links import ApiLinkDataError

    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "api-links.schema.json").write_text(tool.SCHEMA.read_text(encoding="utf-8"),
                                                            encoding="utf-8")
    (tmp_path / "data" / "api-links.yml").write_text(
        f"base: {BASE}\nnames:\n  vmap: {{object: torch.func.vmap}}\n", encoding="utf-8")
    with pytest.raises(ApiLinkDataError, match=r"api-links\.yml:3: vmap has no url: run `python -m tests.tools"):
        apis(tmp_path)


def test_the_map_is_as_the_tool_writes_it():
    assert tool.write(load(tool.MAP, tool.SCHEMA)) == tool.MAP.read_text(encoding="utf-8"), (
        f"docs/data/api-links.yml is not as `{tool.COMMAND} write` writes it: run it")
