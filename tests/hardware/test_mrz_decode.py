"""Check-digit-constrained decoding: settle what the check digits can settle, nothing else."""

from __future__ import annotations

import numpy as np

from hardware.mrz.decode import decode
from hardware.mrz.layout import ALPHABET, TD3, check_digit, checks_pass

TD3_LINES = [
    "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
    "L898902C36UTO7408122F1204159ZE184226B<<<<<10",
]


def _probs(lines: list[str], confident: float = 0.97) -> np.ndarray:
    p = np.full((len(lines), len(lines[0]), len(ALPHABET)), (1 - confident) / 36, np.float64)
    for r, line in enumerate(lines):
        for c, ch in enumerate(line):
            p[r, c, ALPHABET.index(ch)] = confident
    return p


def _confuse(
    p: np.ndarray, pos: tuple[int, int], wrong: str, right: str, p_wrong: float, p_right: float
) -> None:
    p[pos][:] = 1e-4
    p[pos][ALPHABET.index(wrong)] = p_wrong
    p[pos][ALPHABET.index(right)] = p_right


def test_check_digit_known_values() -> None:
    assert check_digit("L898902C3") == "6"
    assert check_digit("740812") == "2"
    assert check_digit("120415") == "9"
    assert checks_pass(TD3_LINES, TD3) == []


def test_clean_reading_passes_through() -> None:
    dec = decode(_probs(TD3_LINES))
    assert dec is not None and dec.lines == TD3_LINES and not dec.failed and dec.fixed == 0


def test_ambiguous_digit_is_settled_by_its_check_digit() -> None:
    p = _probs(TD3_LINES)
    _confuse(p, (1, 16), wrong="3", right="8", p_wrong=0.55, p_right=0.40)  # birth 740812
    dec = decode(p)
    assert dec is not None
    assert dec.lines == TD3_LINES and dec.fixed == 1 and not dec.failed


def test_digit_class_mask_turns_letter_o_into_zero() -> None:
    p = _probs(TD3_LINES)
    _confuse(p, (1, 15), wrong="O", right="0", p_wrong=0.8, p_right=0.15)
    dec = decode(p)
    assert dec is not None and dec.lines[1][15] == "0" and not dec.failed


def test_the_document_code_starts_as_icao_allows() -> None:
    # ICAO 9303: a passport's code starts with P, a card's (TD1) with A, C or I - a Z or a
    # 1 there is a misread, and the mask settles it however doubtful the glyph was
    td1 = [
        "I<UTOD231458907<<<<<<<<<<<<<<<",
        "7408122F1204159UTO<<<<<<<<<<<6",
        "ERIKSSON<<ANNA<MARIA<<<<<<<<<<",
    ]
    p = _probs(td1)
    _confuse(p, (0, 0), wrong="Z", right="I", p_wrong=0.7, p_right=0.25)
    dec = decode(p)
    assert dec is not None and dec.lines[0][0] == "I" and dec.layout.name == "TD1"
    assert dec.char_prob[0, 0] > 0.95
    p = _probs(TD3_LINES)
    _confuse(p, (0, 0), wrong="R", right="P", p_wrong=0.6, p_right=0.3)
    dec = decode(p)
    assert dec is not None and dec.lines[0][0] == "P" and dec.layout.name == "TD3"
    visa = _probs(["V" + TD3_LINES[0][1:], TD3_LINES[1]])
    dec = decode(visa)
    assert dec is not None and dec.lines[0][0] == "V" and dec.layout.name == "MRVA"


def test_wrong_check_digit_as_printed_is_kept_and_flagged() -> None:
    printed = [TD3_LINES[0], TD3_LINES[1][:19] + "7" + TD3_LINES[1][20:]]  # birth check 2 -> 7
    dec = decode(_probs(printed, confident=0.999))
    assert dec is not None
    assert dec.lines == printed  # no confident alternative: never "repaired" by guessing
    assert "birth_date" in dec.failed


def test_two_equally_good_fixes_are_not_guessed() -> None:
    p = _probs(TD3_LINES)
    # two positions both in doubt: several repairs satisfy the check digit equally well
    _confuse(p, (1, 13), wrong="1", right="7", p_wrong=0.5, p_right=0.5)
    _confuse(p, (1, 14), wrong="4", right="9", p_wrong=0.5, p_right=0.5)
    dec = decode(p)
    assert dec is not None
    assert dec.lines[1][13:15] != "19" or "birth_date" in dec.failed or dec.fixed == 0


def test_idfra_zone_that_only_checks_out_as_td2_is_read_as_td2() -> None:
    # an ICAO TD2 issued by FRA starts "IDFRA" like the old French ID card: the
    # French layout fails its checks, the TD2 layout passes them (as in admission.mrz.parse)
    lines = ["IDFRAMARTIN<<ELENA<<<<<<<<<<<<<<<<<<", "X4RTBPFW46FRA8502016F3103049<<<<<<<2"]
    dec = decode(_probs(lines))
    assert dec is not None and dec.layout.name == "TD2"
    assert dec.lines == lines and not dec.failed


def _accepted(p: np.ndarray) -> bool:
    from hardware.mrz.reader import _acceptable

    dec = decode(p)
    assert dec is not None and not dec.failed
    return _acceptable(dec)


def _doubt(p: np.ndarray, pos: tuple[int, int], right: str, others: str, p_right: float) -> None:
    """``right`` on top at ``p_right``, the rest of the mass shared by ``others``."""
    p[pos][:] = 1e-5
    p[pos][ALPHABET.index(right)] = p_right
    for ch in others:
        p[pos][ALPHABET.index(ch)] = (1 - p_right) / len(others)


def test_a_check_digit_vouches_for_one_doubtful_character_not_two() -> None:
    one = _probs(TD3_LINES)
    _doubt(one, (1, 1), right="8", others="36", p_right=0.40)  # document number L898902C3
    assert _accepted(one)
    two = one.copy()
    _doubt(two, (1, 4), right="9", others="57", p_right=0.40)
    assert not _accepted(two)  # the digit passes one time in ten: it cannot vouch for both


def test_unchecked_identity_characters_must_be_confident() -> None:
    """Sex and names carry no check digit of their own."""
    assert _accepted(_probs(TD3_LINES))
    for pos, wrong, right in (((1, 20), "M", "F"), ((0, 6), "F", "R")):
        p = _probs(TD3_LINES)
        _confuse(p, pos, wrong=wrong, right=right, p_wrong=0.35, p_right=0.60)
        assert not _accepted(p), pos
    optional = _probs(TD3_LINES)  # personal number: its own check digit settles it
    _confuse(optional, (1, 30), wrong="7", right="1", p_wrong=0.35, p_right=0.60)
    assert _accepted(optional)


def test_fillers_after_the_names_end_are_settled_by_the_structure() -> None:
    """ANNA<MARIA<< ends the names at column 25: every cell after it must be a filler, so
    a finger over the line's end (the last filler in doubt) does not refuse the read."""
    covered = _probs(TD3_LINES)
    _doubt(covered, (0, 43), right="<", others="KXAE", p_right=0.3)
    _doubt(covered, (0, 42), right="<", others="K", p_right=0.8)
    assert _accepted(covered)
    # not when the end of the names is itself in doubt: MARIA<P (an initial) read as <<
    initial = _probs(TD3_LINES)
    _doubt(initial, (0, 26), right="<", others="P", p_right=0.6)
    _doubt(initial, (0, 43), right="<", others="KXAE", p_right=0.3)
    assert not _accepted(initial)
    # nor a letter among the fillers, however it is read
    letter = ["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<K", TD3_LINES[1]]
    assert not _accepted(_probs(letter))
    # nor a doubtful letter of the names themselves
    name = _probs(TD3_LINES)
    _doubt(name, (0, 20), right="M", others="N", p_right=0.6)
    assert not _accepted(name)


def _with_country(lines: list[str], code: str) -> list[str]:
    """``lines`` issued by and of nationality ``code`` (no check digit covers either)."""
    return [lines[0][:2] + code + lines[0][5:], lines[1][:10] + code + lines[1][13:]]


def test_a_country_field_is_read_as_a_listed_code() -> None:
    # the issuer's T doubted against V: UVO is no country, UTO (the specimen state) is
    p = _probs(TD3_LINES)
    _confuse(p, (0, 3), wrong="V", right="T", p_wrong=0.6, p_right=0.35)
    dec = decode(p)
    assert dec is not None and dec.lines == TD3_LINES
    assert dec.char_prob[0, 2:5].min() > 0.99  # the code's probability among the codes
    assert _accepted(p)
    # the nationality's D read as O: NLO is no country, NLD is
    dutch = _with_country(TD3_LINES, "NLD")
    p = _probs(dutch)
    _confuse(p, (1, 12), wrong="O", right="D", p_wrong=0.7, p_right=0.25)
    dec = decode(p)
    assert dec is not None and dec.lines == dutch and _accepted(p)


def test_a_country_doubted_between_two_listed_codes_is_refused() -> None:
    austrian = _with_country(TD3_LINES, "AUT")
    p = _probs(austrian)
    _confuse(p, (1, 12), wrong="S", right="T", p_wrong=0.35, p_right=0.60)  # AUS, Australia
    dec = decode(p)
    assert dec is not None and dec.lines == austrian
    assert 0.5 < dec.char_prob[1, 12] < 0.75
    assert not _accepted(p)


def test_a_crisp_unlisted_country_code_stays_as_printed() -> None:
    # the German passport specimen of the real set is issued by "BDR", which no list holds
    german = _with_country(TD3_LINES, "BDR")
    p = _probs(german, confident=0.999)
    dec = decode(p)
    assert dec is not None and dec.lines == german
    assert dec.char_prob[0, 2:5].min() > 0.9 and _accepted(p)


def test_two_doubtful_name_letters_are_one_too_many() -> None:
    # a name letter no check digit covers may be doubted (p=0.8) once in a zone; a second
    # doubt is a guess, and so is a single letter at p=0.72
    one = _probs(TD3_LINES)
    _doubt(one, (0, 6), right="R", others="BP", p_right=0.8)  # ERIKSSON
    assert _accepted(one)
    two = one.copy()
    _doubt(two, (0, 18), right="A", others="R", p_right=0.8)  # ANNA
    assert not _accepted(two)
    low = _probs(TD3_LINES)
    _doubt(low, (0, 6), right="R", others="BP", p_right=0.72)
    assert not _accepted(low)


def test_a_reading_the_check_digit_cannot_tell_from_another_is_refused() -> None:
    from hardware.mrz.reader import ALIAS_MIN_MARGIN, MRZ_UNREADABLE, judged

    # C (12) and 2 weigh the same modulo 10: the document number's check digit passes
    # with either, so it vouches for neither - only the classifier's margin can
    p = _probs(TD3_LINES)
    _confuse(p, (1, 7), wrong="2", right="C", p_wrong=0.35, p_right=0.6)
    dec = decode(p)
    assert dec is not None and dec.lines == TD3_LINES and not dec.failed
    assert dec.alias_margin < ALIAS_MIN_MARGIN
    refused = judged(dec)
    assert refused.lines == () and refused.reason == MRZ_UNREADABLE
    # the same doubt, but the classifier clearly prefers C: read
    _confuse(p, (1, 7), wrong="2", right="C", p_wrong=0.08, p_right=0.9)
    dec = decode(p)
    assert dec is not None and dec.alias_margin >= ALIAS_MIN_MARGIN
    assert list(judged(dec).lines) == TD3_LINES


def test_two_swaps_that_cancel_in_the_check_sum_are_seen() -> None:
    # 0 -> O at two places weighted 7 and 3 adds 24 * 10 = 240: the sum modulo 10 stays
    lines = [
        "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
        "00T1669<<3UTO7408122F1204159ZE184226B<<<<<16",
    ]
    assert checks_pass(lines, TD3) == []
    p = _probs(lines)
    for col in (0, 1):
        _confuse(p, (1, col), wrong="O", right="0", p_wrong=0.55, p_right=0.4)
    dec = decode(p)
    assert dec is not None and dec.lines[1].startswith("OOT1669") and not dec.failed
    assert dec.alias_margin < 1.0  # 00T1669 passes too, and is nearly as likely


def test_digits_printed_as_a_nationality_stay_as_printed() -> None:
    # the Romanian ID specimen of the real set prints 132 where its nationality is: the
    # listed codes are a prior, not a mask - mrz_lines are the characters as printed
    lines = [TD3_LINES[0], TD3_LINES[1][:10] + "132" + TD3_LINES[1][13:]]
    dec = decode(_probs(lines, confident=0.999))
    assert dec is not None and dec.lines == lines
