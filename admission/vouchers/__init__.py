"""Provisional vouchers (volantes provisionales, art. 23.4, R11): the model, the voucher
book port and the printed view (``model``), and the desk flows that issue a voucher and
exchange it for the formal card (``desk``)."""
