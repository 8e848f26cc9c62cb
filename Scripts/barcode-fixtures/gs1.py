"""GS1 rules shared by the barcode fixture scripts (issue 42): check digits, UPC-E expansion, the
format names of expected.json, and the GTIN a decoded barcode carries.

A GTIN is reported only when its mod-10 check digit is right; it is written as GTIN-14 (GTIN-8,
-12 and -13 padded with zeros), so EAN and UPC results compare as one number.
"""

import re
from urllib.parse import urlsplit

# expected.json's format names are EAN-13, EAN-8, UPC-A, UPC-E, Code128, ITF, DataBar,
# DataBarExpanded, QRCode and DataMatrix. Families count as the same symbology when comparing (a
# UPC-A is an EAN-13 with a leading 0, and readers report it either way).
FAMILIES = {"EAN-13": "EAN/UPC", "EAN-8": "EAN/UPC", "UPC-A": "EAN/UPC", "UPC-E": "EAN/UPC",
            "DataBarExpanded": "DataBar"}

# zxing-cpp's names (str(BarcodeFormat)) -> expected.json's.
BINDING_NAMES = {
    "EAN-13": "EAN-13", "EAN-8": "EAN-8", "UPC-A": "UPC-A", "UPC-E": "UPC-E",
    "Code 128": "Code128", "ITF": "ITF", "ITF-14": "ITF",
    "DataBar": "DataBar", "DataBar Omni": "DataBar", "DataBar Stacked": "DataBar",
    "DataBar Stacked Omni": "DataBar", "DataBar Limited": "DataBar",
    "DataBar Expanded": "DataBarExpanded", "DataBar Expanded Stacked": "DataBarExpanded",
    "QR Code": "QRCode", "Data Matrix": "DataMatrix",
}

# AIM symbology identifiers of GS1 content: Code 128 with FNC1 first, DataBar, GS1 Data Matrix
# (]d8 is zxing-cpp's for a GS1 DMRE, a rectangular extension), GS1 QR Code.
GS1_IDENTIFIERS = ("]C1", "]e0", "]d2", "]d8", "]Q3")


def family(format_name):
    return FAMILIES.get(format_name, format_name)


def check_digit(body):
    """The GS1 mod-10 check digit for the digits `body` (weights 3, 1, 3, ... from the right)."""
    total = sum(int(digit) * (3 if index % 2 == 0 else 1)
                for index, digit in enumerate(reversed(body)))
    return str((10 - total % 10) % 10)


def gtin14(digits):
    """`digits` as a GTIN-14 when it is a GTIN-8, -12, -13 or -14 with a right check digit."""
    if not (digits.isascii() and digits.isdigit() and len(digits) in (8, 12, 13, 14)):
        return None
    return digits.zfill(14) if check_digit(digits[:-1]) == digits[-1] else None


def upce_to_upca(upce):
    """Expands an 8-digit UPC-E (number system, 6 digits, check) to its 12-digit UPC-A."""
    system, d, check = upce[0], upce[1:7], upce[7]
    if d[5] in "012":
        body = d[0:2] + d[5] + "0000" + d[2:5]
    elif d[5] == "3":
        body = d[0:3] + "00000" + d[3:5]
    elif d[5] == "4":
        body = d[0:4] + "00000" + d[4]
    else:
        body = d[0:5] + "0000" + d[5]
    return system + body + check


def element_strings(hri):
    """[(AI, value)] of a GS1 element string in human-readable form `(01)...(17)...`, or None."""
    parts = re.split(r"\((\d{2,4})\)", hri)
    if len(parts) < 3 or parts[0] != "":
        return None
    return list(zip(parts[1::2], parts[2::2]))


def gtin_from_element_strings(hri):
    for ai, value in element_strings(hri) or []:
        if ai == "01":
            return gtin14(value) if len(value) == 14 else None
    return None


def gtin_from_digital_link(url):
    """The GTIN of a GS1 Digital Link URI (`https://host[/prefix]/01/<gtin>[/...]`), else None."""
    if not re.match(r"^https?://", url, re.IGNORECASE):
        return None
    match = re.search(r"(?:^|/)01/(\d+)(?=/|$)", urlsplit(url).path)
    return gtin14(match.group(1)) if match else None


def result_gtin(format_name, text, symbology_identifier, is_gs1=False):
    """The GTIN-14 a decoded barcode carries, check digit validated, else None.

    `format_name` is one of expected.json's names; `text` is the decoder's text in human-readable form (GS1
    element strings as `(01)...`); the AIM identifier, or `is_gs1` (the decoder's content type),
    says whether the content is GS1.
    """
    if format_name in ("EAN-13", "EAN-8", "UPC-A"):
        return gtin14(text)
    if format_name == "UPC-E":
        # Older decoders give the 8 printed digits; zxing-cpp 3 gives the expanded 13.
        if len(text) == 8 and text.isdigit():
            return gtin14(upce_to_upca(text))
        return gtin14(text)
    if format_name == "ITF":
        return gtin14(text) if len(text) == 14 else None
    if (is_gs1 or symbology_identifier in GS1_IDENTIFIERS
            or format_name in ("DataBar", "DataBarExpanded")):
        return gtin_from_element_strings(text)
    if format_name in ("QRCode", "DataMatrix"):
        return gtin_from_digital_link(text)
    return None
