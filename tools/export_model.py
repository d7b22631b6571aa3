#!/usr/bin/env python3
"""Exports a PyTorch model to the planner's custom layer list: the command line of the
hsi_export package (tools/hsi_export/, whose docstring tells how it works).

    python3 tools/export_model.py --help
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from hsi_export.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
