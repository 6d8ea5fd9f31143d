"""Reading the machine readable zone (MRZ) of identity documents from camera frames.

* :class:`hardware.mrz.reader.MrzReader` - one frame or still: locate, rectify, recognise,
  decode with the check digits, refuse when unsure (reason codes).
* :class:`hardware.mrz.live.LiveMrzReader` - a stream: answers when consecutive frames
  agree; quality hints for the GUI.
* :func:`hardware.mrz.cli.read_document_command` - ``main.py read-document``.
* :mod:`hardware.mrz.synthetic` - seeded synthetic documents for training and tests.

See docs/mrz-reader.md.
"""
