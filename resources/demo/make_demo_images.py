"""Draw the demo casino logo and director's signature (nothing downloaded).

Run: .venv/bin/python resources/demo/make_demo_images.py
"""

from __future__ import annotations

import math
from pathlib import Path

from PIL import Image, ImageDraw

HERE = Path(__file__).resolve().parent


def logo(size: int = 256) -> Image.Image:
    img = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    d.ellipse(
        (8, 8, size - 8, size - 8), fill=(201, 162, 39, 255), outline=(255, 255, 255, 255), width=10
    )
    c = size / 2
    r = size * 0.30
    # a spade-like five-pointed star for the demo casino
    pts = []
    for i in range(10):
        ang = -math.pi / 2 + i * math.pi / 5
        rad = r if i % 2 == 0 else r * 0.45
        pts.append((c + rad * math.cos(ang), c + rad * math.sin(ang)))
    d.polygon(pts, fill=(11, 61, 46, 255))
    return img


def signature(width: int = 480, height: int = 160) -> Image.Image:
    img = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    pts = []
    for i in range(400):
        t = i / 399
        x = 20 + t * (width - 40)
        y = height / 2 + 38 * math.sin(t * 11) * (1 - t * 0.6) + 18 * math.sin(t * 37)
        pts.append((x, y))
    d.line(pts, fill=(20, 30, 110, 255), width=5, joint="curve")
    d.line((60, height - 30, width - 60, height - 42), fill=(20, 30, 110, 255), width=4)
    return img


if __name__ == "__main__":
    logo().save(HERE / "logo.png", optimize=True)
    signature().save(HERE / "signature.png", optimize=True)
