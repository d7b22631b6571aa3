"""The model measure.py trains (a zoo preset, or a layer list built into an nn.Module):
tools/hsi_export/measure_model.py, importable from tools/ as before."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from hsi_export.measure_model import *  # noqa: E402,F401,F403
