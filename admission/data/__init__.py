"""Data files of the domain, read with :mod:`importlib.resources`."""
