"""The desk window (PySide6): the application, the window and its menus, the dialogs,
the widgets, the store and device workers, and the Qt-free desk flow they share.

Its sibling ``ui.cli`` is the command line (no Qt); both receive the typed context
of ``ui.context`` from ``main.py``.
"""
