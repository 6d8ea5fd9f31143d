"""What every page of the first-run wizard does alike: Enter moves forward (the
default button is Next, or Finish; Cancel never takes Enter), a job's answer advances
the page, a password field is masked and bounded.
"""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (
    QAbstractButton,
    QLineEdit,
    QWizard,
    QWizardPage,
)

MAX_PASSWORD = 256


def advance(page: QWizardPage) -> None:
    """Go to the next page once the current job has answered."""
    wizard = page.wizard()
    if wizard is not None:
        QTimer.singleShot(0, wizard.next)


def forward_button(page: QWizardPage) -> QAbstractButton | None:
    """The button Enter presses on ``page``: Finish, Commit or Next."""
    wizard = page.wizard()
    if wizard is None:
        return None
    if page.isFinalPage() or wizard.nextId() == -1:
        kind = QWizard.WizardButton.FinishButton
    elif page.isCommitPage():
        kind = QWizard.WizardButton.CommitButton
    else:
        kind = QWizard.WizardButton.NextButton
    return wizard.button(kind)


def focus_forward(page: QWizardPage) -> None:
    button = forward_button(page)
    if button is not None and button.isVisible():
        button.setFocus()


def password_edit(name: str, max_length: int = MAX_PASSWORD) -> QLineEdit:
    edit = QLineEdit()
    edit.setAccessibleName(name)
    edit.setEchoMode(QLineEdit.EchoMode.Password)
    edit.setMaxLength(max_length)
    return edit
