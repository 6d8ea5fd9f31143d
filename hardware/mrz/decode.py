"""From per-character probabilities to MRZ lines: class masks and check-digit search.

A character that the check digits can settle is settled there, not guessed: when a
check group fails on the most likely reading, the cheapest combination of plausible
alternatives (by log-probability) that satisfies the check digit is searched exactly
(dynamic programming over the weighted sum modulo 10). A fix is taken only when it is
cheap (the alternatives were really in doubt) and clearly better than the next one;
otherwise the characters stay as read - a document whose check digits are wrong as
printed is reported as printed, with the failing groups.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from admission.country_codes import MRZ_COUNTRY_CODES
from hardware.mrz.layout import (
    ALPHABET,
    LETTERS,
    CheckGroup,
    Layout,
    Span,
    char_value,
    group_ok,
    layouts_for,
)

MAX_FIX_COST = 6.0  # nats: the alternative may be ~400 times less likely than the top
MIN_FIX_MARGIN = 1.0  # nats between the best and the second-best valid fix
_TOP_K = 4
ALIAS_CAP = 4.0  # nats: alias margins beyond this are not computed exactly
_WEIGHTS = (7, 3, 1)
_VALUES = tuple(char_value(c) for c in ALPHABET)  # by class index
_INDEX = {c: i for i, c in enumerate(ALPHABET)}
# the prior that a document's issuer or nationality is not a listed code (a new state, a
# national specimen: the German passport specimen of the real set is issued by "BDR").
# Far above the true share: it also absorbs the classifier's overconfidence in its rare
# alternatives - at 0.01 that specimen's crisp BDR (0.9996, 0.993, 0.999) lost half its
# probability to listed codes one unlikely character away
UNLISTED_COUNTRY_PRIOR = 0.1
_CODES = sorted(MRZ_COUNTRY_CODES)
_CODE_INDEX = np.array([[_INDEX[c] for c in code] for code in _CODES])


@dataclass
class Decoded:
    lines: list[str]
    layout: Layout
    char_prob: NDArray[np.float32]  # (lines, length) probability of each chosen character
    failed: list[str] = field(default_factory=list)  # check groups failing after search
    fixed: int = 0  # characters changed by the check-digit search
    mask_violations: int = 0  # positions whose unmasked top guess was of the wrong class
    log_prob: float = 0.0
    raw_lines: list[str] = field(default_factory=list)  # unmasked top guesses
    raw_min_prob: float = 0.0
    # the classifier's (lines, length, 37) it was decoded from
    probs: NDArray[np.float32] | None = None
    # -log p of each class against the position's top (masked)
    cost: NDArray[np.float32] | None = None
    chosen: NDArray[np.intp] | None = None  # (lines, length) class index of each chosen character

    @functools.cached_property
    def alias_margin(self) -> float:
        """Nats by which the chosen reading of each passing check group beats the most
        likely other reading that passes the same check digit (the smallest over the
        groups; capped at ALIAS_CAP): small when the digit cannot tell two readings apart
        (0/O twice). Computed when first asked - the acceptance rules ask last, so a
        reading refused for another reason never pays for the search."""
        if self.cost is None or self.chosen is None:
            return math.inf
        passing = [g for g in self.layout.groups if g.name not in self.failed]
        return min(
            (_alias_margin(g, self.cost, self.chosen, _others(g, passing)) for g in passing),
            default=math.inf,
        )


def _mask(layout: Layout) -> NDArray[np.bool_]:
    m = np.zeros((layout.line_count, layout.line_length, len(ALPHABET)), bool)
    for r in range(layout.line_count):
        for c in range(layout.line_length):
            for ch in layout.allowed(r, c):
                m[r, c, _INDEX[ch]] = True
    return m


def _choose_layout(probs: NDArray[np.float32]) -> Layout | None:
    options = layouts_for(probs.shape[0], probs.shape[1])
    if len(options) <= 1:
        return options[0] if options else None
    first = "".join(ALPHABET[i] for i in probs[0, :5].argmax(axis=1))
    if first.startswith("V"):
        return options[1]
    if len(options) == 3 and first.startswith("IDFRA"):
        return options[2]
    return options[0]


def group_positions(group: CheckGroup) -> list[tuple[int, int]]:
    return [(ln, c) for ln, a, b in group.spans for c in range(a, b)]


def _search(
    group: CheckGroup,
    cost: NDArray[np.float32],
    chosen: NDArray[np.intp],
    locked: set[tuple[int, int]],
) -> tuple[float, float, dict[tuple[int, int], int]] | None:
    """Cheapest reassignment that satisfies ``group``: (cost, runner-up cost, changes)."""
    # states: weighted sum mod 10 -> list of (cost, changes) keeping the two best
    states: dict[int, list[tuple[float, dict[tuple[int, int], int]]]] = {0: [(0.0, {})]}
    for i, pos in enumerate(group_positions(group)):
        weight = _WEIGHTS[i % 3]
        if pos in locked:
            options = [(int(chosen[pos]), 0.0)]
        else:
            order = np.argsort(cost[pos])[:_TOP_K]
            options = [(int(k), float(cost[pos][k])) for k in order if cost[pos][k] < MAX_FIX_COST]
        nxt: dict[int, list[tuple[float, dict[tuple[int, int], int]]]] = {}
        for s, entries in states.items():
            for k, c in options:
                ns = (s + _VALUES[k] * weight) % 10
                for base, changes in entries:
                    total = base + c
                    if total >= MAX_FIX_COST:
                        continue
                    new = changes if k == chosen[pos] else {**changes, pos: k}
                    bucket = nxt.setdefault(ns, [])
                    bucket.append((total, new))
                    bucket.sort(key=lambda e: e[0])
                    del bucket[2:]
        states = nxt
    check = group.check
    finals: list[tuple[float, dict[tuple[int, int], int]]] = []
    for s, entries in states.items():
        digit = _INDEX[str(s)]
        dc = 0.0 if check in locked and chosen[check] == digit else float(cost[check][digit])
        if check in locked and chosen[check] != digit:
            continue
        for base, changes in entries:
            new = changes if digit == chosen[check] else {**changes, check: digit}
            finals.append((base + dc, new))
    finals.sort(key=lambda e: e[0])
    if not finals or finals[0][0] >= MAX_FIX_COST:
        return None
    runner = finals[1][0] if len(finals) > 1 else math.inf
    return finals[0][0], runner, finals[0][1]


def decode(probs: NDArray[np.float32]) -> Decoded | None:
    """``probs``: (lines, length, 37) -> the most likely MRZ consistent with its checks.

    An "IDFRA" 2 x 36 zone is read as a French national ID card first and, when its
    checks fail there, as an ICAO TD2 (as the domain parser does).
    """
    layout = _choose_layout(probs)
    if layout is None:
        return None
    found = _decode(probs, layout)
    if found.failed and layout.name == "FRA":
        td2 = _decode(probs, layouts_for(probs.shape[0], probs.shape[1])[0])
        if not td2.failed:
            return td2
    return found


def _decode(probs: NDArray[np.float32], layout: Layout) -> Decoded:
    raw_top = probs.argmax(axis=2)
    mask = _mask(layout)
    masked = np.where(mask, probs, 0.0) + 1e-9
    masked /= masked.sum(axis=2, keepdims=True)
    violations = int(
        (~mask[np.arange(probs.shape[0])[:, None], np.arange(probs.shape[1]), raw_top]).sum()
    )
    chosen = masked.argmax(axis=2)
    best = masked.max(axis=2, keepdims=True)
    cost = -np.log(masked) + np.log(best)  # 0 for the top choice
    lines = ["".join(ALPHABET[k] for k in row) for row in chosen]
    locked: set[tuple[int, int]] = set()
    fixed = 0
    failed = []
    for group in layout.groups:
        if not group_ok(group, lines):
            found = _search(group, cost, chosen, locked)
            if found is not None and found[1] - found[0] >= MIN_FIX_MARGIN:
                for pos, k in found[2].items():
                    chosen[pos] = k
                    fixed += 1
                lines = ["".join(ALPHABET[k] for k in row) for row in chosen]
        if group_ok(group, lines):
            locked.update(group_positions(group))
            locked.add(group.check)
        else:
            failed.append(group.name)
    rows = np.arange(chosen.shape[0])[:, None]
    cols = np.arange(chosen.shape[1])[None, :]
    char_prob = masked[rows, cols, chosen]
    for span in layout.countries:
        _settle_country(span, masked, chosen, char_prob)
    lines = ["".join(ALPHABET[k] for k in row) for row in chosen]
    raw_lines = ["".join(ALPHABET[k] for k in row) for row in raw_top]
    return Decoded(
        lines,
        layout,
        char_prob,
        failed,
        fixed,
        violations,
        float(np.log(char_prob).sum()),
        raw_lines,
        float(probs.max(axis=2).min()),
        probs,
        cost,
        chosen,
    )


def _settle_country(
    span: Span,
    masked: NDArray[np.floating[Any]],
    chosen: NDArray[np.intp],
    char_prob: NDArray[np.floating[Any]],
) -> None:
    """Read a country field (issuer, nationality) as the most probable string given the
    classifier and the prior that it is a listed code (``admission.country_codes``): a
    doubtful ``PHT`` becomes ``PRT``, an unlisted code read crisply stays as printed (the
    Romanian ID specimen of the real set prints ``132`` as its nationality). Its three
    characters get the probability of the chosen string, not their own - the acceptance
    rules then judge the field as one. No check digit covers these fields. An unlisted
    string gets the prior of one string of letters and fillers among all the others."""
    line, start, end = span
    width = end - start
    logs = np.log(masked[line, start:end])  # (3, 37), each row sums to 1 over the mask
    listed = logs[np.arange(width)[:, None], _CODE_INDEX.T].sum(axis=0)  # (codes,)
    top = chosen[line, start:end].copy()
    top_log = float(logs[np.arange(width), top].sum())
    log_listed = math.log((1 - UNLISTED_COUNTRY_PRIOR) / len(_CODES))
    log_unlisted = math.log(UNLISTED_COUNTRY_PRIOR / (len(LETTERS) ** width - len(_CODES)))
    listed_mass = float(np.exp(listed).sum())
    evidence = math.exp(log_listed) * listed_mass + math.exp(log_unlisted) * max(
        1.0 - listed_mass, 0.0
    )
    best = int(np.argmax(listed))
    top_code = "".join(ALPHABET[k] for k in top)
    if top_code in MRZ_COUNTRY_CODES or log_listed + listed[best] >= log_unlisted + top_log:
        chosen[line, start:end] = _CODE_INDEX[best]
        joint = log_listed + float(listed[best])
    else:
        joint = log_unlisted + top_log
    char_prob[line, start:end] = min(math.exp(joint) / max(evidence, 1e-300), 1.0)


def _others(group: CheckGroup, passing: list[CheckGroup]) -> set[tuple[int, int]]:
    """The positions an alternative to ``group``'s reading may not change: those of the
    other passing groups, except a group that contains this one (the composite contains
    the document number: an alias there is the document number's to find)."""
    mine = {*group_positions(group), group.check}
    locked: set[tuple[int, int]] = set()
    for other in passing:
        theirs = {*group_positions(other), other.check}
        if other is not group and not mine <= theirs:
            locked |= theirs
    return locked


def _alias_margin(
    group: CheckGroup,
    cost: NDArray[np.float32],
    chosen: NDArray[np.intp],
    locked: set[tuple[int, int]],
) -> float:
    """Nats between the chosen reading of a passing group and the most likely *other*
    reading that passes its check digit too (leaving ``locked`` as they are). A check
    digit is a sum modulo 10: some changes leave it as it is (0 for O in two places
    weighted 7 and 3; G for 6), and then it cannot tell the two readings apart - only the
    classifier can, by this margin."""
    positions = [p for p in [*group_positions(group), group.check] if p not in locked]
    if not positions:
        return ALIAS_CAP
    own = np.array([cost[p][chosen[p]] for p in positions])
    alt = np.array([np.partition(cost[p], 1)[:2] for p in positions])  # two cheapest
    change = np.where(alt[:, 0] == own, alt[:, 1], alt[:, 0]) - own
    if float(change.min()) >= ALIAS_CAP:  # any other reading changes one of these at least
        return ALIAS_CAP
    found = _search(group, cost, chosen, locked)
    if found is None:
        return ALIAS_CAP
    best, runner, changes = found
    if changes:  # the chosen reading is not the likeliest that passes (a locked neighbour)
        return 0.0
    return min(runner - best, ALIAS_CAP)
