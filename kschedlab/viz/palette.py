"""Colour-blind-safe colours for every figure.

Categorical colours come from Okabe & Ito's palette ("Color Universal Design", 2008), extended
with Paul Tol's "muted" and "light" schemes (https://personal.sron.nl/~pault/) when a figure needs
more than seven. States that must never be confused (passed / rejected, running / terminating)
use blue or sky against vermillion, which stay apart for every kind of colour blindness.

:func:`cvd_distance` checks that: it simulates protanopia, deuteranopia and tritanopia with the
matrices of Machado, Oliveira & Fernandes (2009, severity 1.0) and returns the smallest CIELAB
distance (ΔE*ab) between two colours as seen with normal vision or any of the three.

>>> round(cvd_distance(BLUE, VERMILLION))
92
>>> round(cvd_distance("#2ca02c", "#d62728"))  # matplotlib's green and red: one colour for a deuteranope
7
"""

from __future__ import annotations

import numpy as np

BLUE = "#0072B2"
ORANGE = "#E69F00"
GREEN = "#009E73"
VERMILLION = "#D55E00"
SKY = "#56B4E9"
PURPLE = "#CC79A7"
YELLOW = "#F0E442"
INDIGO = "#332288"
WINE = "#882255"
OLIVE = "#999933"
GREY = "#999999"

#: categorical colours in the order figures use them
CATEGORICAL = (BLUE, ORANGE, GREEN, VERMILLION, SKY, PURPLE, INDIGO, WINE, OLIVE, YELLOW, GREY)
#: lighter companions for a second series of categories (Tol's "light")
LIGHT = ("#77AADD", "#EE8866", "#44BB99", "#FFAABB", "#99DDFF", "#BBCC33", "#EEDD88", "#DDDDDD")

_MACHADO = {
    "protanopia": np.array([[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                            [-0.003882, -0.048116, 1.051998]]),
    "deuteranopia": np.array([[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                              [-0.011820, 0.042940, 0.968881]]),
    "tritanopia": np.array([[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602],
                            [0.004733, 0.691367, 0.303900]]),
}
_SRGB_TO_XYZ = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
_WHITE = np.array([0.95047, 1.0, 1.08883])


def _linear(color: str) -> np.ndarray:
    code = color.lstrip("#")
    if len(code) == 3:
        code = "".join(c * 2 for c in code)
    srgb = np.array([int(code[i:i + 2], 16) for i in (0, 2, 4)]) / 255
    return np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)


def _lab(linear: np.ndarray) -> np.ndarray:
    xyz = _SRGB_TO_XYZ @ np.clip(linear, 0, 1) / _WHITE
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def cvd_distance(a: str, b: str) -> float:
    """The smallest ΔE*ab between hex colours ``a`` and ``b`` under normal vision, protanopia,
    deuteranopia and tritanopia (about 10 is a clear difference, under 5 barely one)."""
    la, lb = _linear(a), _linear(b)
    views = [np.eye(3), *_MACHADO.values()]
    return float(min(np.linalg.norm(_lab(m @ la) - _lab(m @ lb)) for m in views))

#: single-hue ramps (ColorBrewer), light to dark: an amount or a severity told by lightness alone
BLUES = ("#deebf7", "#c6dbef", "#9ecae1", "#6baed6", "#4292c6", "#3182bd", "#2171b5", "#08519c", "#08306b")
ORANGES = ("#fee6ce", "#fdd49e", "#fdd0a2", "#fdae6b", "#e6550d")
REDS = ("#fb6a4a", "#a50f15", "#67000d")


def is_neutral(color: str) -> bool:
    """Whether ``color`` is a grey (black and white included), which every reader sees alike.

    >>> is_neutral("#bdbdbd"), is_neutral("#f6f8fa"), is_neutral(BLUE)
    (True, True, False)
    """
    code = color.lstrip("#")
    if len(code) == 3:
        code = "".join(c * 2 for c in code)
    rgb = [int(code[i:i + 2], 16) for i in (0, 2, 4)]
    return max(rgb) - min(rgb) <= 8
