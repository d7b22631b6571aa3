"""The exporter's error (torch-free, so the package imports without torch)."""


class ExportError(Exception):
    """The model cannot be written as a layer list; the message says which layer and why."""
