"""The command line: one module per command, each declaring its arguments beside its
handler (``ARGUMENTS`` and ``run``), gathered in :data:`COMMANDS`.

A handler receives the typed context (``ui.context``) from ``main.py`` and returns a
:data:`~ui.cli.result.CommandResult`: an :class:`~ui.cli.result.ExitCode` and the JSON
payload ``main.py`` prints. The JSON field names are a stable contract: operators script
them.
"""
