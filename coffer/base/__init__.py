"""What every layer stands on: errors, atomic file changes and their kill points, where the
store lives, and the report a command prints. Standard library only; nothing here knows a
store, an adapter or a front end."""
