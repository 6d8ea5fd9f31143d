"""The wizard's accounts: the administrator (the first account; art. 20.3: every
admission names who made it) and the game director (arts. 21.2-3, 23.5).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (
    QFormLayout,
    QLabel,
    QLineEdit,
    QWizardPage,
)

from admission.errors import AdmissionError
from ui.desk.dialogs.common import (
    DialogCode,
    ErrorLine,
)
from ui.desk.dialogs.wizard.page_tools import (
    advance,
    focus_forward,
    password_edit,
)
from ui.desk.jobs import JobRunner


class AccountPage(QWizardPage):
    """An account made by the wizard: user name, name, password twice."""

    def __init__(
        self,
        runner: JobRunner,
        create: Callable[[str, str, str], object],
        title: str,
        explanation: str,
        who: str,
    ) -> None:
        super().__init__()
        self._runner = runner
        self._create = create
        self._busy = False
        self.created = False
        self.setTitle(title)
        self.setAccessibleName(title)
        info = QLabel(explanation)
        info.setWordWrap(True)
        info.setAccessibleName(self.tr("Explicación de la cuenta"))
        self.username = QLineEdit()
        self.username.setAccessibleName(self.tr("Usuario: %1").replace("%1", who))
        self.username.setMaxLength(64)
        self.display_name = QLineEdit()
        self.display_name.setAccessibleName(self.tr("Nombre: %1").replace("%1", who))
        self.display_name.setMaxLength(120)
        self.password = password_edit(self.tr("Contraseña"))
        self.repeat = password_edit(self.tr("Repita la contraseña"))
        self.errors = ErrorLine()
        form = QFormLayout(self)
        form.addRow(info)
        form.addRow(self.tr("&Usuario:"), self.username)
        form.addRow(self.tr("&Nombre y apellidos:"), self.display_name)
        form.addRow(self.tr("&Contraseña:"), self.password)
        form.addRow(self.tr("&Repita la contraseña:"), self.repeat)
        form.addRow(self.errors)
        self.setCommitPage(True)

    def initializePage(self) -> None:  # Qt override
        if self.created:
            QTimer.singleShot(0, self, lambda: focus_forward(self))
        else:
            QTimer.singleShot(0, self, self.username.setFocus)

    def validatePage(self) -> bool:
        if self.created:
            return True
        if self._busy:
            return False
        username = self.username.text().strip()
        name = " ".join(self.display_name.text().split())
        password = self.password.text()
        for edit, value in (
            (self.username, username),
            (self.display_name, name),
            (self.password, password),
        ):
            if not value:  # Enter in a field moves on to the first one left to fill
                self.errors.show_code(DialogCode.FIELD_REQUIRED)
                edit.setFocus()
                return False
        if password != self.repeat.text():
            self.errors.show_code(DialogCode.PASSWORDS_DIFFER)
            self.repeat.setFocus()
            self.repeat.selectAll()
            return False
        self._busy = True
        self.errors.clear_message()

        def done(_: object) -> None:
            self._busy = False
            self.created = True
            self.password.clear()
            self.repeat.clear()
            for edit in (self.username, self.display_name, self.password, self.repeat):
                edit.setEnabled(False)
            advance(self)

        def failed(error: AdmissionError) -> None:
            self._busy = False
            self.errors.show_error(error)
            self.password.setFocus()

        create = self._create
        self._runner.submit(lambda: create(username, name, password), done, failed)
        return False


class AdminPage(AccountPage):
    def __init__(self, runner: JobRunner, create_admin: Callable[[str, str, str], object]) -> None:
        super().__init__(
            runner,
            create_admin,
            self.tr("2. El administrador"),
            self.tr(
                "El administrador gestiona las cuentas, la configuración y los dispositivos. "
                "No decide admisiones: el director de juegos tendrá su propia cuenta."
            ),
            self.tr("administrador"),
        )


class DirectorPage(AccountPage):
    def __init__(
        self, runner: JobRunner, create_director: Callable[[str, str, str], object]
    ) -> None:
        super().__init__(
            runner,
            create_director,
            self.tr("3. El director de juegos"),
            self.tr(
                "El director de juegos responde del servicio de admisión: autoriza las "
                "tarjetas excepcionales (art. 23.5), lleva la lista de prohibiciones "
                "(art. 21.2-3) y puede trabajar en el puesto. Con su cuenta se admite al "
                "primer visitante; las cuentas del personal de recepción se crean después "
                "en Administración > Cuentas."
            ),
            self.tr("director de juegos"),
        )
