from .shapes import Square, scale
