"""blinkc: a firmware toolchain for Move38 Blinks game tiles."""

__version__ = "0.1.0"
