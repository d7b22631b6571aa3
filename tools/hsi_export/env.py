"""Where the package runs from and what it needs, without importing torch (so that
`hsi-gpu-export --help` and `hsi-gpu-measure --help` work where torch is missing)."""

import os
import sys

# tools/ in a checkout of the repository; site-packages where the package is installed.
TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(TOOLS)


def in_checkout():
    return os.path.isdir(os.path.join(REPO, "core", "tests", "fixtures"))


def repository_path(*parts):
    """A path in the repository checkout (fixtures, the validation scripts in tools/),
    which the self-tests and fixture writers read; they exit with a message where the
    package runs from an install."""
    if not in_checkout():
        sys.exit(f"{os.path.join(*parts)}: this command reads the repository's fixtures: run it from a checkout "
                 "(python3 tools/export_model.py or tools/measure.py)")
    if TOOLS not in sys.path:
        sys.path.insert(0, TOOLS)  # validate_zoo and the samples
    return os.path.join(REPO, *parts)


def require_torch(command):
    """Exits with how to install PyTorch where it is missing."""
    try:
        import torch  # noqa: F401
    except ImportError:
        sys.exit(f"{command}: needs PyTorch: pip install 'hsi-gpu-tools[torch]' (or torch itself, "
                 "https://pytorch.org/get-started/locally/)")
