"""The package version, kept in one place (read by the build and by ``--version``)."""

__version__ = "0.1.0"
