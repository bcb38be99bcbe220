"""`coffer watch`: the daemon keeping projections current (the only package importing watchdog)."""
