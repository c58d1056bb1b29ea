"""A policy module whose import never ends (issue 27: a build has a time limit too)."""

from __future__ import annotations

import time

time.sleep(3600)
