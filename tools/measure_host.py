"""Host-side figures of measure.py (the host's time per step, the DataLoader's wait):
tools/hsi_export/measure_host.py, importable from tools/ as before."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from hsi_export.measure_host import *  # noqa: E402,F401,F403
