"""Keeping coffer's blocks out of git, while git still sees the user's own text
(docs/adr/0015, 0040).

``repo`` runs the git commands (where the repository is, what it tracks, its index);
``files`` edits ``info/exclude``, ``info/attributes`` and the ``filter.coffer`` config;
``hiding`` decides, per block file, which of them it needs.
"""
