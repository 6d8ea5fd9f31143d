"""Dialogs of the desk window: sign-in and unlock (``sign_in``), the game director's
authorisation (``authorise``), and the other dialogs beside them (docs/desk-window.md).

Each dialog receives the services it needs from the window, never the store's connection.
"""
