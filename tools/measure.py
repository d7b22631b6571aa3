#!/usr/bin/env python3
"""Measures real training steps of a Scenario on a CUDA card: `hsi-gpu-measure` run from
this checkout (the code is tools/hsi_export/measure.py; its command line,
measure_cli.py, says what is measured and how).

    python3 tools/measure.py --help
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from hsi_export.measure import *  # noqa: E402,F401,F403  (import measure: measure(), Trainer, ...)
from hsi_export.measure_cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
