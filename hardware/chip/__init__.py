"""Reading the ICAO 9303 chip (eMRTD) of a passport, an EU identity card or a DNI 3.0/4.0.

Qt-free; imports :mod:`admission`, never ``ui`` (STYLE.md rule 3). The modules:

* ``apdu`` -- the ISO 7816-4 command and response units, the :class:`Transport` port and
  :class:`ChipError`, the one exception of this package (a :class:`ChipCode` inside);
* ``access``, ``crypto``, ``ec``, ``sm``, ``bac``, ``pace``, ``chip_auth``,
  ``card_security`` -- access control (BAC, PACE), secure messaging and chip
  authentication (ICAO 9303-11), both the terminal's side and the chip's;
* ``lds``, ``passive``, ``masterlist``, ``document_pki`` -- the data groups, passive
  authentication of EF.SOD against a CSCA master list, and the tests' PKI;
* ``reader`` -- :func:`read_chip`, the whole read from SELECT to the verdict's check;
* ``pcsc`` -- the PC/SC adapter (pyscard); ``fake`` -- the scripted reader for the demo
  and the desk's tests; ``virtual_chip`` -- a chip in Python that speaks APDUs.

The photo (DG2) stays in memory: nothing here writes it, logs it or prints it.
"""
