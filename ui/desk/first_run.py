"""What the first-run wizard (``ui.desk.dialogs.wizard``) asks of the open file: the
RIAJ copy imported into it and the test query of the register (art. 20.2, R1).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from admission.errors import AdmissionError

if TYPE_CHECKING:
    from ui.context import AppContext, Tools


# an invented DNI (valid check letter): the wizard's test query of the RIAJ (art. 20.2)
REGISTRY_PROBE_NUMBER = "00000000T"


def import_registry_copy(ctx: AppContext | None, path: Path) -> Any:
    """The wizard's RIAJ copy: imported into the file as ``registry import`` does."""
    from ui.desk.dialogs.wizard import RegistryImported

    if ctx is None:
        raise AdmissionError("the visitor file is not open")
    result = ctx.replica.import_file(path)
    return RegistryImported(result.entries, result.as_of)


def probe_registry(tools: Tools, ctx: AppContext | None) -> Any:
    """One query of an invented identity: through the online service when one is set
    (and only it: a copy answering instead would hide a broken service), else through
    the copy, as the desk will ask them (fail closed, max. age)."""
    from datetime import timedelta

    from admission.identity import IdentityKey, IdKind
    from admission.registry.policy import RegistryPolicy, RegistryPolicySettings

    if ctx is None:
        raise AdmissionError("the visitor file is not open")
    settings = tools.settings
    factory = tools.devices.online_registry
    online = factory(settings) if settings["registry.online_url"] and factory else None
    policy = RegistryPolicy(
        tools.clock,
        online=online,
        replica=None if online is not None else ctx.replica,
        settings=RegistryPolicySettings(
            max_replica_age=timedelta(hours=settings["registry.max_replica_age_hours"])
        ),
    )
    return policy.check(IdentityKey.of(IdKind.DNI, "ESP", REGISTRY_PROBE_NUMBER))
