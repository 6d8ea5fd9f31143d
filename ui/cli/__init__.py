"""The command line: one module per command, each declaring a
:class:`~ui.cli.result.Command` - its name, help, arguments and handler side by side -
gathered in :mod:`ui.cli.commands`.

A handler receives the typed context (``ui.context``) from ``main.py`` and returns a
:data:`~ui.cli.result.CommandResult`: an :class:`~ui.cli.result.ExitCode` and the JSON
payload ``main.py`` prints. The JSON field names are a stable contract: operators script
them.
"""
