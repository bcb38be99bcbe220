"""The example third-party adapter in examples/ passes its own tests here too (the
conformance kit and its memory switch), so a change to coffer that breaks a plugin written
from the example fails coffer's suite."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "coffer-adapter-example"
sys.path.insert(0, str(EXAMPLE))

_spec = importlib.util.spec_from_file_location(
    "example_adapter_tests", EXAMPLE / "tests" / "test_example_adapter.py"
)
assert _spec is not None and _spec.loader is not None
_tests = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_tests)
# Every test of the example's file, collected under this module.
globals().update({k: v for k, v in vars(_tests).items() if k.startswith(("test_", "Test"))})
