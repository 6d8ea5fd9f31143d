"""The three-letter codes an MRZ may carry as issuing state or nationality (ICAO Doc
9303 part 3, section 5): the ISO 3166-1 alpha-3 codes, Germany's ``D``, and the codes
ICAO reserves for British nationals, organisations and persons without a nationality.

The camera reader uses the list as a prior: a country field read as ``PHT`` or ``NLO``
is almost surely ``PRT`` or ``NLD``, since nearly every document carries a listed code.
Codes are padded with ``<`` to three characters, as printed (``D<<``).

The parser refuses any other code (``MrzError.UNKNOWN_ISSUER`` / ``UNKNOWN_NATIONALITY``),
and so does manual entry. ``UTO`` (Utopia) is listed because Doc 9303's examples use it, so
they parse; every ``UTO`` document is a specimen (:mod:`admission.specimens`) and refused.
"""

from __future__ import annotations

_ISO_3166_ALPHA3 = """
ABW AFG AGO AIA ALA ALB AND ARE ARG ARM ASM ATA ATF ATG AUS AUT AZE BDI BEL BEN BES BFA
BGD BGR BHR BHS BIH BLM BLR BLZ BMU BOL BRA BRB BRN BTN BVT BWA CAF CAN CCK CHE CHL CHN
CIV CMR COD COG COK COL COM CPV CRI CUB CUW CXR CYM CYP CZE DEU DJI DMA DNK DOM DZA ECU
EGY ERI ESH ESP EST ETH FIN FJI FLK FRA FRO FSM GAB GBR GEO GGY GHA GIB GIN GLP GMB GNB
GNQ GRC GRD GRL GTM GUF GUM GUY HKG HMD HND HRV HTI HUN IDN IMN IND IOT IRL IRN IRQ ISL
ISR ITA JAM JEY JOR JPN KAZ KEN KGZ KHM KIR KNA KOR KWT LAO LBN LBR LBY LCA LIE LKA LSO
LTU LUX LVA MAC MAF MAR MCO MDA MDG MDV MEX MHL MKD MLI MLT MMR MNE MNG MNP MOZ MRT MSR
MTQ MUS MWI MYS MYT NAM NCL NER NFK NGA NIC NIU NLD NOR NPL NRU NZL OMN PAK PAN PCN PER
PHL PLW PNG POL PRI PRK PRT PRY PSE PYF QAT REU ROU RUS RWA SAU SDN SEN SGP SGS SHN SJM
SLB SLE SLV SMR SOM SPM SRB SSD STP SUR SVK SVN SWE SWZ SXM SYC SYR TCA TCD TGO THA TJK
TKL TKM TLS TON TTO TUN TUR TUV TWN TZA UGA UKR UMI URY USA UZB VAT VCT VEN VGB VIR VNM
VUT WLF WSM YEM ZAF ZMB ZWE
"""

# Doc 9303 part 3: Germany; British nationals of other categories; the United Nations and
# its agencies; other organisations; stateless persons and refugees; the European Union;
# Kosovo (RKS, and UNK for UNMIK documents); Utopia, the specimen state of Doc 9303
_ICAO_SPECIAL = """
D<< GBD GBN GBO GBP GBS UNO UNA UNK XBA XIM XCC XCE XCO XEC XES XMP XOM XPO XDC XXA XXB
XXC XXX EUE RKS UTO
"""

MRZ_COUNTRY_CODES: frozenset[str] = frozenset((_ISO_3166_ALPHA3 + _ICAO_SPECIAL).split())
