"""The RIAJ check (art. 20.2): the check itself, setting up its adapters, and the
registry's files and changes.

code value -> (Spanish, English), grouped by the enum that declares the code.
"""

TEXTS: dict[str, tuple[str, str]] = {
    # -- the RIAJ check, art. 20.2 (admission.registry.port.RegistryErrorCode) ------------
    "REGISTRY_NOT_CONFIGURED": (
        "RIAJ sin configurar: ni servicio en línea ni copia local",
        "RIAJ not configured: no online service and no local copy",
    ),
    "REGISTRY_UNAVAILABLE": (
        "Servicio en línea del RIAJ no disponible",
        "RIAJ online service unavailable",
    ),
    "REGISTRY_ADAPTER_ERROR": (
        "Fallo interno al consultar el RIAJ",
        "Internal failure while checking the RIAJ",
    ),
    "REPLICA_UNDATED": (
        "Copia local del RIAJ sin fecha: no sirve para comprobar",
        "Local RIAJ copy has no date: it cannot be used",
    ),
    "REPLICA_STALE": ("Copia local del RIAJ demasiado antigua", "Local RIAJ copy too old"),
    "REPLICA_EMPTY": (
        "No hay copia local del RIAJ: importe una",
        "No local RIAJ copy: import one",
    ),
    "REPLICA_READ_FAILED": (
        "Error al leer la copia local del RIAJ",
        "Reading the local RIAJ copy failed",
    ),
    "REGISTRY_TIMEOUT": ("El RIAJ no respondió a tiempo", "The RIAJ did not answer in time"),
    "REGISTRY_CONNECTION": ("Sin conexión con el RIAJ", "No connection to the RIAJ"),
    "REGISTRY_TLS": (
        "Falló la conexión segura con el RIAJ (certificados)",
        "Secure connection to the RIAJ failed (certificates)",
    ),
    "REGISTRY_HTTP_5XX": (
        "El servicio del RIAJ falló (error del servidor)",
        "The RIAJ service failed (server error)",
    ),
    "REGISTRY_HTTP_ERROR": (
        "El servicio del RIAJ rechazó la consulta",
        "The RIAJ service refused the request",
    ),
    "REGISTRY_FAULT": (
        "El servicio del RIAJ devolvió un error",
        "The RIAJ service returned an error",
    ),
    "REGISTRY_MALFORMED": ("Respuesta del RIAJ no válida", "Invalid answer from the RIAJ"),
    "REGISTRY_UNEXPECTED_PERSON": (
        "El RIAJ respondió sobre alguien no consultado: respuesta descartada",
        "The RIAJ answered about someone not asked: answer discarded",
    ),
    "REGISTRY_NO_ANSWER": (
        "El RIAJ no respondió sobre esta persona",
        "The RIAJ gave no answer for this person",
    ),
    "REGISTRY_CANNOT_VERIFY": (
        "El RIAJ no puede verificar a esta persona (COD006)",
        "The RIAJ cannot verify this person (COD006)",
    ),
    "SYNC_FAILED": (
        "Falló la actualización de la copia local del RIAJ",
        "Updating the local RIAJ copy failed",
    ),
    # -- setting up the RIAJ adapters (admission.registry.port.RegistryConfigCode) --------
    "REGISTRY_ENDPOINT": (
        "Dirección del servicio del RIAJ no válida: debe ser https",
        "Invalid RIAJ service address: it must be https",
    ),
    "REGISTRY_SETTINGS": (
        "Ajustes del servicio del RIAJ fuera de rango",
        "RIAJ service settings out of range",
    ),
    "REGISTRY_CLIENT_CERT": (
        "Certificado de cliente del RIAJ inutilizable",
        "RIAJ client certificate unusable",
    ),
    "KEYRING_UNAVAILABLE": ("Llavero del sistema no disponible", "System keyring unavailable"),
    "REGISTRY_PUBLIC_KEY": (
        "Clave pública del RIAJ no válida (Ed25519)",
        "Invalid RIAJ public key (Ed25519)",
    ),
    # -- RIAJ files and changes (admission.registry.snapshot.SnapshotErrorCode) -----------
    "SNAPSHOT_INVALID": ("Archivo del RIAJ rechazado", "RIAJ file rejected"),
    "SNAPSHOT_UNREADABLE": (
        "No se puede leer el archivo del RIAJ",
        "The RIAJ file cannot be read",
    ),
    "SNAPSHOT_EMPTY": ("Archivo del RIAJ vacío", "The RIAJ file is empty"),
    "SNAPSHOT_ENCODING": (
        "Archivo del RIAJ con codificación no válida (no es UTF-8)",
        "RIAJ file with an invalid encoding (not UTF-8)",
    ),
    "SNAPSHOT_UNKNOWN_FORMAT": (
        "Versión del archivo del RIAJ no admitida",
        "Unsupported RIAJ file version",
    ),
    "SNAPSHOT_MALFORMED_LINE": (
        "Línea no válida en el archivo del RIAJ",
        "Invalid line in the RIAJ file",
    ),
    "SNAPSHOT_HEADER_MISSING": (
        "Falta una cabecera obligatoria en el archivo del RIAJ",
        "A required header is missing from the RIAJ file",
    ),
    "SNAPSHOT_BAD_HEADER": (
        "Cabecera no válida en el archivo del RIAJ",
        "Invalid header in the RIAJ file",
    ),
    "SNAPSHOT_UNKNOWN_SCHEME": (
        "Esquema de identificadores desconocido en el archivo del RIAJ",
        "Unknown identifier scheme in the RIAJ file",
    ),
    "SNAPSHOT_BAD_SALT": (
        "Sal de los identificadores no válida en el archivo del RIAJ",
        "Invalid identifier salt in the RIAJ file",
    ),
    "SNAPSHOT_WRONG_SCOPE": (
        "El archivo del RIAJ no es el de casinos",
        "The RIAJ file is not the casinos' one",
    ),
    "SNAPSHOT_TRUNCATED": (
        "Archivo del RIAJ incompleto (cortado)",
        "RIAJ file incomplete (truncated)",
    ),
    "SNAPSHOT_TRAILING_DATA": (
        "Datos de más al final del archivo del RIAJ",
        "Extra data at the end of the RIAJ file",
    ),
    "SNAPSHOT_CHECKSUM_MISMATCH": (
        "La suma de comprobación del archivo del RIAJ no coincide",
        "The RIAJ file's checksum does not match",
    ),
    "SNAPSHOT_COUNT_MISMATCH": (
        "El archivo del RIAJ no tiene el número de registros que declara",
        "The RIAJ file does not hold the number of entries it declares",
    ),
    "SNAPSHOT_DUPLICATE": (
        "Identificador repetido en el archivo del RIAJ",
        "Duplicate identifier in the RIAJ file",
    ),
    "SNAPSHOT_UNSIGNED": (
        "Archivo del RIAJ sin firma (se exige firma)",
        "RIAJ file unsigned (a signature is required)",
    ),
    "SNAPSHOT_BAD_SIGNATURE": (
        "Firma del archivo del RIAJ no válida",
        "The RIAJ file's signature is not valid",
    ),
    "SNAPSHOT_FROM_THE_FUTURE": (
        "Archivo del RIAJ con fecha futura",
        "RIAJ file dated in the future",
    ),
    "SNAPSHOT_OLDER_THAN_ACTIVE": (
        "Archivo del RIAJ más antiguo que la copia en uso",
        "RIAJ file older than the copy in use",
    ),
    "SNAPSHOT_VERSION_CONFLICT": (
        "Misma versión del RIAJ con otro contenido",
        "Same RIAJ version with different content",
    ),
    "REPLICA_BUSY": (
        "Copia local del RIAJ ocupada: inténtelo de nuevo",
        "Local RIAJ copy busy: try again",
    ),
    "REPLICA_WRITE_FAILED": (
        "No se pudo guardar la copia local del RIAJ; sigue en uso la anterior",
        "Saving the local RIAJ copy failed; the previous one stays in use",
    ),
    "FEED_MALFORMED_LINE": (
        "Línea no válida en los cambios del RIAJ",
        "Invalid line in the RIAJ changes",
    ),
    "FEED_BAD_ACTION": (
        "Cambio del RIAJ que no es alta (A) ni baja (B)",
        "RIAJ change that is neither an addition (A) nor a removal (B)",
    ),
    "FEED_BAD_IDENTITY": (
        "Número de identidad no válido en los cambios del RIAJ",
        "Invalid identity number in the RIAJ changes",
    ),
    "FEED_BAD_DATE": (
        "Fecha no válida en los cambios del RIAJ",
        "Invalid date in the RIAJ changes",
    ),
    "FEED_OUT_OF_ORDER": (
        "Cambios del RIAJ desordenados o anteriores a la copia local",
        "RIAJ changes out of order or older than the local copy",
    ),
    "FEED_WITHOUT_SNAPSHOT": (
        "Importe primero un archivo del RIAJ: los cambios se aplican sobre él",
        "Import a RIAJ file first: the changes apply to it",
    ),
    "FEED_GAP": (
        "Faltan cambios del RIAJ entre la copia local y los recibidos",
        "RIAJ changes are missing between the local copy and those received",
    ),
}
