"""The desk's devices: the camera, the barcode decoder, the printer and its spooler,
photos and scans of documents, the reader's and the camera's hints, printed cards
and the desk's papers.

code value -> (Spanish, English), grouped by the enum that declares the code.
"""

TEXTS: dict[str, tuple[str, str]] = {
    # -- devices (admission.devices.DeviceErrorCode): the camera --------------------------
    "CAMERA_NOT_FOUND": ("No se encuentra la cámara", "The camera cannot be found"),
    "CAMERA_LOST": (
        "Se ha perdido la conexión con la cámara",
        "The camera stopped sending images",
    ),
    "CAMERA_END_OF_STREAM": (
        "No quedan más imágenes que leer",
        "There are no more images to read",
    ),
    "CAMERA_NO_MEDIA": ("La cámara no da imagen", "The camera gives no image"),
    "CAMERA_BUSY": (
        "La cámara está en uso por otro programa",
        "Another program is using the camera",
    ),
    "CAMERA_PAUSED": ("La cámara está en pausa", "The camera is paused"),
    "CAMERA_REJECTING": ("La cámara no admite lecturas", "The camera refuses to be read"),
    "CAMERA_ERROR": ("Error de la cámara", "The camera reported an error"),
    # -- devices: the barcode decoder -----------------------------------------------------
    "DECODER_NOT_FOUND": (
        "El programa lector de códigos de barras no está instalado",
        "The barcode reading software is not installed",
    ),
    "DECODER_ERROR": (
        "No se ha podido leer el código de barras",
        "The barcode could not be read",
    ),
    # -- devices: the printer and its spooler ---------------------------------------------
    "CUPS_NOT_INSTALLED": (
        "El sistema de impresión no está instalado",
        "The printing system is not installed",
    ),
    "CUPS_TIMEOUT": (
        "El sistema de impresión no responde",
        "The printing system is not responding",
    ),
    "PRINTER_BAD_NAME": (
        "El nombre de impresora configurado no es válido",
        "The configured printer name is not valid",
    ),
    "PRINTER_NOT_FOUND": (
        "No se encuentra la impresora de tarjetas",
        "The card printer cannot be found",
    ),
    "PRINTER_PAUSED": ("La impresora está en pausa", "The printer is paused"),
    "PRINTER_REJECTING": (
        "La impresora no acepta trabajos",
        "The printer is not accepting jobs",
    ),
    "PRINTER_NO_MEDIA": (
        "La impresora no tiene tarjetas o papel",
        "The printer is out of cards or paper",
    ),
    "PRINTER_ERROR": (
        "La impresora indica un error (atasco, tapa abierta, sin conexión)",
        "The printer reports an error (jam, cover open, offline)",
    ),
    "PRINT_SUBMIT_FAILED": (
        "La impresora ha rechazado el documento",
        "The printer refused the document",
    ),
    "PRINT_UNKNOWN_JOB": (
        "La impresora no reconoce el trabajo de impresión",
        "The printer does not know this print job",
    ),
    # -- devices: a print's outcome; the card stays pending, art. 22.3 --------------------
    "RENDER_FAILED": (
        "No se ha podido preparar el documento para imprimir",
        "The document could not be prepared for printing",
    ),
    "PRINT_FAILED": (
        "La impresión se ha cancelado; queda pendiente de reimprimir",
        "Printing was cancelled; it can be printed again",
    ),
    "PRINTER_VANISHED": (
        "La impresora ha desaparecido durante la impresión",
        "The printer disappeared while printing",
    ),
    "PRINT_TIMEOUT": (
        "La impresión ha tardado demasiado y se ha cancelado",
        "Printing took too long and was cancelled",
    ),
    # -- the barcode decoder's setting (hardware.barcode.BarcodeConfigCode) ---------------
    "UNKNOWN_DECODER": (
        "Lector de códigos de barras mal configurado: use zxing o zbar",
        "Barcode reader badly configured: use zxing or zbar",
    ),
    # -- photos and scans of documents (hardware.mrz.images.ImageErrorCode) ---------------
    "NOT_AN_IMAGE": (
        "El archivo no es una imagen que se pueda leer",
        "The file is not an image that can be read",
    ),
    "TRUNCATED_IMAGE": (
        "La imagen está incompleta (el archivo está cortado)",
        "The image is incomplete (the file is cut short)",
    ),
    "IMAGE_TOO_LARGE": ("La imagen es demasiado grande", "The image is too large"),
    "FILE_NOT_FOUND": ("No se encuentra el archivo", "The file cannot be found"),
    # -- reading a document's image (hardware.mrz.reader.ReadReason) ----------------------
    "NO_MRZ": (
        "No se encuentra la zona de lectura mecánica en la imagen",
        "No machine-readable zone found in the image",
    ),
    "MRZ_UNREADABLE": (
        "La zona de lectura mecánica no se lee con seguridad: vuelva a leer",
        "The machine-readable zone cannot be read reliably: read it again",
    ),
    # -- the camera's hints to the clerk (hardware.mrz.live.Quality) ----------------------
    "OK": ("Documento leído", "Document read"),
    "READING": ("Leyendo: mantenga el documento quieto", "Reading: hold the document still"),
    "NO_DOCUMENT": (
        "No se ve ningún documento: colóquelo ante la cámara",
        "No document in view: place it in front of the camera",
    ),
    "TOO_FAR": (
        "Documento demasiado lejos: acérquelo a la cámara",
        "Document too far away: bring it closer to the camera",
    ),
    "BLURRED": (
        "Imagen borrosa: mantenga el documento quieto y enfocado",
        "Blurred image: hold the document still and in focus",
    ),
    "GLARE": (
        "Reflejos en el documento: inclínelo o apártelo de la luz",
        "Glare on the document: tilt it or move it out of the light",
    ),
    # -- watching a camera (hardware.mrz.watch.WatchReason) -------------------------------
    "NO_READING": (
        "La cámara no ha podido leer el documento",
        "The camera could not read the document",
    ),
    # -- printed cards and documents (hardware.printer.render.CardWarning) ----------------
    "LOGO_MISSING": (
        "Se imprime sin logotipo: no está configurado o no se encuentra el archivo",
        "Printed without the logo: none is configured or the file is missing",
    ),
    "LOGO_TOO_LARGE": (
        "Se imprime sin logotipo: el archivo es demasiado grande",
        "Printed without the logo: the file is too large",
    ),
    "LOGO_UNREADABLE": (
        "Se imprime sin logotipo: el archivo no es una imagen válida",
        "Printed without the logo: the file is not a valid image",
    ),
    "SIGNATURE_MISSING": (
        "Se imprime sin la firma del director: no se encuentra el archivo",
        "Printed without the director's signature: the file is missing",
    ),
    "SIGNATURE_TOO_LARGE": (
        "Se imprime sin la firma del director: el archivo es demasiado grande",
        "Printed without the director's signature: the file is too large",
    ),
    "SIGNATURE_UNREADABLE": (
        "Se imprime sin la firma del director: el archivo no es una imagen válida",
        "Printed without the director's signature: the file is not a valid image",
    ),
    "NAME_TRUNCATED": (
        "El nombre no cabe entero en la tarjeta: se ha recortado",
        "The name does not fit on the card: it was shortened",
    ),
    "NO_SIGNATURE_OR_LOGO": (
        "Tarjeta sin firma del director ni sello del casino (art. 22.3)",
        "Card without the director's signature or the casino's seal (art. 22.3)",
    ),
    # -- the print service (hardware.printer.service.PrintServiceErrorCode) ---------------
    "PRINT_NOT_CONFIGURED": (
        "La impresión de tarjetas no está preparada: falta el fichero de visitantes",
        "Card printing is not set up: the visitor file is missing",
    ),
    "REPRINT_NEEDS_REASON": (
        "Tarjeta ya impresa: indique el motivo de la reimpresión",
        "Card already printed: give the reason for reprinting",
    ),
    # -- desk papers (hardware.printer.desk_documents.PaperError) -------------------------
    "REGULATION_UNREADABLE": (
        "No se puede leer el texto del reglamento para imprimirlo",
        "The regulation's text cannot be read for printing",
    ),
}
