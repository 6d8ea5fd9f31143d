"""Generators of invented documents and people, for tests, benchmarks and the demo.

Never on the product's runtime path: only the demo, the tests, the benchmarks and the
training script import this package (``tests/test_layering.py`` enforces it).
"""
