"""Camera-like frames of invented documents (``synthetic``), for tests, benchmarks, the
classifier's training and the demo's fake camera; never on the product's runtime path
(``tests/test_layering.py`` enforces it)."""
