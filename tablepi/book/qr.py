"""The QR code of the table's pages, for the screen: the address as a matrix of modules (segno)."""

from __future__ import annotations

from tablepi.display.view import PhoneCode


def phone_code(address: str) -> PhoneCode:
    """The code the screen draws (error correction M: a phone reads it off a glossy panel at an angle).

    >>> code = phone_code("http://192.168.1.20:8080/")
    >>> len(code.modules) == len(code.modules[0]) >= 21
    True
    """
    import segno

    matrix = segno.make(address, error="m", micro=False, boost_error=False).matrix
    return PhoneCode(address, tuple("".join("1" if cell else "0" for cell in row) for row in matrix))
