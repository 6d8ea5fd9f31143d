"""Reading the machine readable zone (MRZ) of identity documents from camera frames.

* :class:`hardware.mrz.reader.MrzReader` - one frame or still: locate, rectify, recognise,
  decode with the check digits, refuse when unsure (reason codes).
* :class:`hardware.mrz.live.LiveMrzReader` - a stream: fuses the frames of one document
  and answers when the fused reading passes; quality hints for the GUI.
* :mod:`hardware.mrz.watch` - a still image or a camera stream read to JSON-ready fields
  (``read-document`` and ``watch-document``, the demo's camera).
* :mod:`hardware.generators.synthetic` - seeded synthetic documents (and documents held
  under the camera for several frames) for training, tests and benchmarks.

See docs/mrz-reader.md.
"""
