"""Every command of the command line, in the order ``--help`` lists them.

Commands over the visitor file receive the :class:`~ui.context.AppContext`; the others
(parsing and reading documents) receive only the :class:`~ui.context.Tools` and open no
file. ``support-bundle`` receives what ``main.py`` gathers for it
(:class:`~ui.cli.support.SupportInputs`): it is made even when the settings or the file
fail, and signs nobody in. A refused sign-in or director authorisation
(:mod:`ui.cli.sign_in`) is answered as a JSON error by every file command alike.
"""

from __future__ import annotations

from dataclasses import replace

from ui.cli import (
    access_report,
    account,
    admit,
    audit,
    backup,
    card_key,
    chip,
    db_server,
    demo,
    desk_papers,
    floor,
    init,
    inspect,
    parse_mrz,
    print_card,
    purge,
    read_chip,
    read_document,
    rectify,
    registry,
    report,
    retention,
    scan,
    server_restore,
    support,
    user,
    verify_card,
    visitor,
    voucher,
)
from ui.cli.result import Command
from ui.cli.sign_in import guarded
from ui.cli.support import SupportInputs
from ui.context import AppContext, Tools

__all__ = ["FILE_COMMANDS", "SUPPORT_COMMANDS", "TOOL_COMMANDS"]

TOOL_COMMANDS: dict[str, Command[Tools]] = {
    c.name: c
    for c in (
        init.COMMAND,
        parse_mrz.COMMAND,
        read_document.READ_DOCUMENT,
        read_document.WATCH_DOCUMENT,
        backup.RESTORE,
    )
}
FILE_COMMANDS: dict[str, Command[AppContext]] = {
    c.name: replace(c, run=guarded(c.run))
    for c in (
        admit.COMMAND,
        registry.COMMAND,
        purge.COMMAND,
        audit.COMMAND,
        visitor.COMMAND,
        inspect.COMMAND,
        report.COMMAND,
        access_report.COMMAND,
        verify_card.COMMAND,
        print_card.PRINT_CARD,
        print_card.VOID_CARD,
        print_card.REPRINT_QUEUE,
        desk_papers.LEAFLET,
        desk_papers.REGULATION,
        scan.COMMAND,
        voucher.COMMAND,
        demo.COMMAND,
        account.COMMAND,
        user.COMMAND,
        backup.BACKUP,
        rectify.COMMAND,
        retention.COMMAND,
        db_server.COMMAND,
        server_restore.COMMAND,
        card_key.COMMAND,
        floor.COMMAND,
        chip.COMMAND,
        read_chip.COMMAND,
    )
}
SUPPORT_COMMANDS: dict[str, Command[SupportInputs]] = {support.COMMAND.name: support.COMMAND}
