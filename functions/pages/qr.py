"""The QR code that takes a phone to the play page, as inline SVG (segno: pure Python)."""

from __future__ import annotations

import segno


def qr_svg(url: str) -> str:
    """`url` as a QR code: an `<svg>` without a size of its own (the page's CSS sizes it),
    black on white with the quiet zone readers need, error correction M or better."""
    code = segno.make(url, error="m", micro=False)
    return code.svg_inline(scale=1, border=4, omitsize=True, dark="#000", light="#fff")
