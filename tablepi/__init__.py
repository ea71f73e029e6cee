"""tablepi: a bar table that referees and scores Konter a Matt with RFID-tagged cards."""

__version__ = "0.1.0"
