"""The example third-party adapter in examples/ passes the same conformance suite."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples" / "coffer-adapter-example"))

import coffer_adapter_example

from coffer.testing import AdapterContract


class TestExamplePlugin(AdapterContract):
    adapter = coffer_adapter_example
