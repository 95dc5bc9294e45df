"""The Grad-CAM picture of modules/grad-cam.md, drawn from the page's own run.

The page's blocks run (``page_namespace``) and leave behind ``image``, the
16x16 input, and ``cam``, the Grad-CAM map normalised to [0, 1]. Three panels
side by side: the image in grey levels (clamped to [0, 1]), the map as a grid of coloured cells
with a colour scale, and the map over the image (each cell covers
``image size / map size`` pixels, its opacity grows with its value). Nothing
about the picture is typed by hand except the captions.

Each language gets a light and a dark variant, written as self-contained SVG:
no script, no external font or URL, a <title> and an aria-label. Coordinates
and colours are rounded, so the output is the same on every run, and the
values are drawn in steps far enough from every value that another CPU's
last-bit differences cannot change a step (``_quantized``).
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path
from xml.sax.saxutils import escape

import torch

from sitepages import LANGUAGES
from sitepages.strings import strings
from tests.tools.figures import THEME_COLOURS, page_namespace

PAGE = Path("docs/en/modules/grad-cam.md")
NAME = "grad-cam"

PALETTES = THEME_COLOURS

# A few stops of the "inferno" colour map: dark for 0, pale yellow for 1.
STOPS = (
    (0.00, (0, 0, 4)),
    (0.25, (87, 16, 110)),
    (0.50, (188, 55, 84)),
    (0.75, (249, 142, 9)),
    (1.00, (252, 255, 164)),
)

PANEL = 192  # side of each square panel, in px
GAP = 40  # space between panels
MARGIN = 24
TOP = 64  # title and panel captions above the panels
SCALE_W = 14  # colour-scale bar
WIDTH = MARGIN + 3 * PANEL + 2 * GAP + GAP + SCALE_W + 40 + MARGIN
HEIGHT = TOP + PANEL + 36


def _hex(rgb: tuple[float, float, float]) -> str:
    return "#" + "".join(f"{max(0, min(255, round(c))):02x}" for c in rgb)


def heat(value: float) -> str:
    """Colour of a map value in [0, 1], interpolated between the stops."""
    value = min(1.0, max(0.0, value))
    for (v0, c0), (v1, c1) in itertools.pairwise(STOPS):
        if value <= v1:
            t = (value - v0) / (v1 - v0)
            return _hex(tuple(a + t * (b - a) for a, b in zip(c0, c1, strict=True)))
    return _hex(STOPS[-1][1])


def grey(value: float) -> str:
    level = round(255 * min(1.0, max(0.0, value)))
    return _hex((level, level, level))


def _cells(grid: list[list[float]], x0: float, y0: float, colour, opacity=None):
    """One <rect> per cell of a 2-D grid drawn into a PANEL x PANEL square."""
    rows, cols = len(grid), len(grid[0])
    h, w = PANEL / rows, PANEL / cols
    out = []
    for i, row in enumerate(grid):
        for j, value in enumerate(row):
            extra = ""
            if opacity is not None:
                extra = f' fill-opacity="{opacity(value):.2f}"'
            out.append(
                f'<rect x="{x0 + j * w:.1f}" y="{y0 + i * h:.1f}" '
                f'width="{w:.1f}" height="{h:.1f}" fill="{colour(value)}"{extra}/>'
            )
    return out


def _grids(namespace: dict[str, object]) -> tuple[list[list[float]], list[list[float]]]:
    image = namespace["image"]
    cam = namespace["cam"]
    assert isinstance(image, torch.Tensor) and isinstance(cam, torch.Tensor)
    image = image.detach().float()
    if image.dim() == 3:  # C x H x W: show the mean over channels
        image = image.mean(dim=0)
    cam = cam.detach().float()
    assert image.dim() == 2 and cam.dim() == 2, (image.shape, cam.shape)
    assert 0.0 <= cam.min().item() and cam.max().item() <= 1.0, "cam is not in [0, 1]"
    shown = image.clamp(0.0, 1.0).tolist()  # the page draws on [0, 1] plus noise
    return _quantized(shown, IMAGE_LEVELS, "image"), _quantized(cam.tolist(), CAM_LEVELS, "cam")


# Values are drawn in steps: 32 grey levels, the map in hundredths. Another CPU
# computes the trained map (and the noise) a little differently, in the last
# bits; a value that close to the middle between two steps could land on the
# other one and change the figure. So every value must keep MARGIN from those
# midpoints, or the renderer refuses it (then choose other steps, or another seed).
IMAGE_LEVELS, CAM_LEVELS, MARGIN = 32, 100, 1e-4


def _quantized(grid: list[list[float]], levels: int, name: str) -> list[list[float]]:
    for row in grid:
        for value in row:
            off = abs(value * levels - math.floor(value * levels) - 0.5) / levels
            if 0.0 < value < 1.0 and off < MARGIN:
                raise ValueError(
                    f"{PAGE}: a value of {name} ({value!r}) lies {off:.1e} from the midpoint between two of the "
                    f"figure's {levels} steps, closer than {MARGIN}: another CPU could draw it differently"
                )
    return [[round(value * levels) / levels for value in row] for row in grid]


def svg(image: list[list[float]], cam: list[list[float]], language: str, theme: str) -> str:
    text, colours = strings("figure_grad_cam", language), PALETTES[theme]
    ih, iw, ch, cw = len(image), len(image[0]), len(cam), len(cam[0])
    flat = [value for row in cam for value in row]
    row, col = divmod(flat.index(max(flat)), cw)
    title = text["title"]
    label = text["label"].format(
        ih=ih, iw=iw, ch=ch, cw=cw, row=row, col=col, row1=row + 1, col1=col + 1
    )
    xs = [MARGIN + k * (PANEL + GAP) for k in range(3)]
    y0 = TOP
    font = 'font-family="sans-serif"'
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{escape(label, {chr(34): "&quot;"})}">',
        f"<title>{escape(title)}</title>",
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="{colours["background"]}"/>',
        f'<text x="{MARGIN}" y="24" {font} font-size="16" font-weight="bold" '
        f'fill="{colours["text"]}">{escape(title)}</text>',
    ]
    captions = (
        text["image"].format(h=ih, w=iw),
        text["cam"].format(h=ch, w=cw),
        text["overlay"],
    )
    for x, caption in zip(xs, captions, strict=True):
        parts.append(
            f'<text x="{x + PANEL / 2:.1f}" y="{y0 - 12}" {font} font-size="13" '
            f'text-anchor="middle" fill="{colours["text"]}">{escape(caption)}</text>'
        )
    parts += _cells(image, xs[0], y0, grey)
    parts += _cells(cam, xs[1], y0, heat)
    parts += _cells(image, xs[2], y0, grey)
    parts += _cells(cam, xs[2], y0, heat, opacity=lambda v: 0.75 * v)
    for x in xs:
        parts.append(
            f'<rect x="{x}" y="{y0}" width="{PANEL}" height="{PANEL}" fill="none" '
            f'stroke="{colours["border"]}"/>'
        )
    # Colour scale: 0 at the bottom, 1 at the top.
    sx = xs[2] + PANEL + GAP
    steps = 32
    step_h = PANEL / steps
    for k in range(steps):
        value = 1 - (k + 0.5) / steps
        parts.append(
            f'<rect x="{sx}" y="{y0 + k * step_h:.1f}" width="{SCALE_W}" '
            f'height="{step_h + 0.2:.1f}" fill="{heat(value)}"/>'
        )
    parts.append(
        f'<rect x="{sx}" y="{y0}" width="{SCALE_W}" height="{PANEL}" fill="none" '
        f'stroke="{colours["border"]}"/>'
    )
    for value, y in ((1, y0 + 4), (0, y0 + PANEL)):
        parts.append(
            f'<text x="{sx + SCALE_W + 6}" y="{y + 4}" {font} font-size="12" '
            f'fill="{colours["muted"]}">{value}</text>'
        )
    parts.append(
        f'<text x="{sx + SCALE_W / 2:.1f}" y="{y0 + PANEL + 24}" {font} font-size="12" '
        f'text-anchor="middle" fill="{colours["muted"]}">{escape(text["scale"])}</text>'
    )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def render() -> dict[str, str]:
    """Repository-relative path -> SVG text, for both languages and both themes."""
    image, cam = _grids(page_namespace(PAGE))  # run from the repository root
    return {
        f"docs/{language}/figures/{NAME}-{theme}.svg": svg(image, cam, language, theme)
        for language in LANGUAGES
        for theme in PALETTES
    }
