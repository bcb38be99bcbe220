from __future__ import annotations

import coffer_adapter_example

from coffer.testing import AdapterContract


class TestExample(AdapterContract):
    adapter = coffer_adapter_example
