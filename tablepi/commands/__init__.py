"""Subcommands of ``tablepi``; see :mod:`tablepi.cli` for the contract each module follows."""
