"""The first run: create the visitor file and its key, the administrator, the game
director, the casino's data, the RIAJ register and the card printer - at the end the
desk can admit its first visitor.

1. The file's key: the visitor file (art. 20.3) is encrypted. With an OS keyring its key
   is made once and kept there, never in a file beside it. Without one, the key is a
   passphrase the person chooses (typed twice, checked by :mod:`admission.passphrase`,
   stated to be unrecoverable, acknowledged); it is asked at each start. Creating the
   file is an explicit act (art. 20.4: the file never starts over on its own). A folder
   whose file was made before (``main.py init``) keeps it: ``init`` answers FILE_EXISTS
   and the wizard goes on (or the caller passes ``existing_file``).
2. The administrator: the first account (user name, name, password twice).
3. The game director (director de juegos): decides the exceptional cases (art. 23.5),
   keeps the bans (art. 21.2-3) and works the desk.
4. The casino's data: name, id, address, logo, opening hours (art. 27), card types and
   prices (art. 23.2-3). Nothing invented is filled in: the casino's name, its id and
   the prices are the casino's to type.
5. The RIAJ (art. 20.2): a copy imported from a file, or the online service; then a
   test query, which must be answered before the wizard goes on (R1: without it every
   visitor would be refused).
6. The card printer, with its preflight.

Every value is validated by :mod:`admission.settings` before the settings file is
written; a refused value shows the catalogue's text and the page does not advance.
Enter always moves forward (the default button is Next, or Finish); Cancel never takes
Enter. Each page puts the cursor in its first field to fill.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import (
    QPushButton,
    QWidget,
    QWizard,
    QWizardPage,
)

from admission.registry.port import RegistryAnswer
from admission.settings import Settings
from ui.desk.dialogs.printer import PrinterCheck
from ui.desk.dialogs.wizard.account_pages import AccountPage, AdminPage, DirectorPage
from ui.desk.dialogs.wizard.casino_pages import CasinoPage, PrinterPage
from ui.desk.dialogs.wizard.key_page import KeyPage
from ui.desk.dialogs.wizard.registry_page import RegistryImported, RegistryPage
from ui.desk.jobs import JobRunner

__all__ = [
    "AccountPage",
    "AdminPage",
    "CasinoPage",
    "DirectorPage",
    "FirstRunWizard",
    "KeyPage",
    "PrinterPage",
    "RegistryImported",
    "RegistryPage",
]


class FirstRunWizard(QWizard):
    """The first start of the desk: file and key, administrator, game director, casino,
    RIAJ register, printer."""

    def __init__(
        self,
        settings: Settings,
        settings_path: Path,
        runner: JobRunner,
        *,
        create_file: Callable[[], str],
        create_admin: Callable[[str, str, str], object],
        create_director: Callable[[str, str, str], object] | None = None,
        import_registry: Callable[[Path], RegistryImported] | None = None,
        test_registry: Callable[[], RegistryAnswer] | None = None,
        passphrase: Callable[[str], None] | None = None,
        preflight: PrinterCheck | None = None,
        existing_file: str = "",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Primera puesta en marcha"))
        self.setAccessibleName(self.windowTitle())
        self.setWizardStyle(QWizard.WizardStyle.ClassicStyle)
        self.setOption(QWizard.WizardOption.NoBackButtonOnStartPage, True)
        for button, label in (
            (QWizard.WizardButton.BackButton, self.tr("< &Atrás")),
            (QWizard.WizardButton.NextButton, self.tr("&Siguiente >")),
            (QWizard.WizardButton.CommitButton, self.tr("&Siguiente >")),
            (QWizard.WizardButton.FinishButton, self.tr("&Terminar")),
            (QWizard.WizardButton.CancelButton, self.tr("Cancelar")),
        ):
            self.setButtonText(button, label)
            widget = self.button(button)
            if widget is not None:
                widget.setAccessibleName(label.replace("&", ""))
        cancel = self.button(QWizard.WizardButton.CancelButton)
        if isinstance(cancel, QPushButton):
            cancel.setAutoDefault(False)  # Enter never cancels, even with the focus on it
        self.key_page = KeyPage(runner, create_file, existing_file, passphrase)
        self.admin_page = AdminPage(runner, create_admin)
        self.director_page = (
            DirectorPage(runner, create_director) if create_director is not None else None
        )
        self.casino_page = CasinoPage(settings, settings_path)
        self.registry_page = (
            RegistryPage(settings, settings_path, runner, import_registry, test_registry)
            if import_registry is not None and test_registry is not None
            else None
        )
        self.printer_page = PrinterPage(settings, settings_path, runner, preflight)
        pages: list[QWizardPage] = [self.key_page, self.admin_page]
        if self.director_page is not None:
            pages.append(self.director_page)
        pages.append(self.casino_page)
        if self.registry_page is not None:
            pages.append(self.registry_page)
        pages.append(self.printer_page)
        self._renumber(pages)
        for page in pages:
            self.addPage(page)
        self.resize(1000, 680)

    def _renumber(self, pages: list[QWizardPage]) -> None:
        """The titles count the pages this wizard shows (1. to n.)."""
        for number, page in enumerate(pages, start=1):
            title = page.title()
            head, dot, rest = title.partition(". ")
            if dot and head.isdigit():
                page.setTitle(f"{number}. {rest}")
                page.setAccessibleName(page.title())
