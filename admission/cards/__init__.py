"""Entry cards (tarjetas de entrada, art. 22): the casino's card types and prices
(``catalogue``), the signed code printed on each card (``code``), its verification at
the gaming-room door (``verification``) and what a printed card shows (``view``)."""
