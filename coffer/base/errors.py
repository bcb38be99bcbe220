"""The one root for every error a user is meant to read (mapped to exit 1 by the CLI)."""

from __future__ import annotations


class CofferError(Exception):
    """Something coffer cannot do as asked; the message is shown to the user as is."""


class StoreError(CofferError):
    """The canonical store cannot be read or written as asked."""


class EntryNotFoundError(StoreError):
    """No entry with that name in the tiers searched."""


class EntryExistsError(StoreError):
    """An entry with that name already exists and replacing it was not asked for."""


class InvalidInputError(CofferError):
    """User input (a name, a type, a scope, text) is not acceptable."""


class UnknownNameError(InvalidInputError):
    """A value names nothing coffer knows (an unknown agent): a usage error, exit 2."""


class SecretRefusedError(InvalidInputError):
    """Text looks like it carries a credential; it is refused, never stored."""


class ProjectError(CofferError):
    """The project cannot be resolved (not a directory, the home directory, ...)."""


class NotAProjectError(ProjectError):
    """The filesystem root or the home directory: they hold projects, they are not one.

    The message names no option: the front end adds the ones the command at hand has.
    """


class LockTimeoutError(StoreError):
    """Another coffer process held the store lock for too long."""


class AdapterError(CofferError):
    """An adapter cannot establish, check or undo its projection."""


class ForeignFileError(AdapterError):
    """A target path holds something coffer does not own; it is left alone."""


class BlockError(AdapterError):
    """A file's managed-block markers are malformed; the file is left untouched."""


class JournalError(CofferError):
    """An undo cannot be carried out exactly; its journal record is kept."""


def describe_os_error(exc: OSError) -> str:
    """What an ``OSError`` from the machine (a full disk, a directory coffer may not write)
    means for the user, in one line naming the path."""
    import errno

    where = f": {exc.filename}" if exc.filename else ""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        # Every file coffer writes is replaced whole (coffer.base.fsutil): none is torn.
        return (
            f"no space left on the device{where} (no file was left half written; free some "
            "space and run the command again)"
        )
    if exc.errno in (errno.EACCES, errno.EPERM):
        return (
            f"permission denied{where} (coffer must be able to read and write it: check its "
            "owner and mode)"
        )
    if exc.errno == errno.EROFS:
        return f"read-only file system{where}"
    return f"{exc.strerror or exc}{where}"
