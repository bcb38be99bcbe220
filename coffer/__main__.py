from __future__ import annotations

from coffer.main import main

main()
