"""Where damas keeps its files when no flag says otherwise: the platform's folders
(platformdirs), never the working directory.

- data: journals, live PDNs, the kiosk archive (Linux: ~/.local/share/damas, or
  $XDG_DATA_HOME/damas);
- config: the default `damas.toml` (Linux: ~/.config/damas, or $XDG_CONFIG_HOME/damas).

`--data-dir DIR` (or `data_dir` in the TOML) puts a session's files in DIR instead; a
flag naming one file (`--journal`, `--pdn`, `--archive`) wins over both.
"""

from __future__ import annotations

from pathlib import Path

import platformdirs

APP = "damas"


def data_dir() -> Path:
    return Path(platformdirs.user_data_dir(APP, appauthor=False))


def config_dir() -> Path:
    return Path(platformdirs.user_config_dir(APP, appauthor=False))


def default_config() -> Path:
    """The config file read when no `--config` is given (if it exists)."""
    return config_dir() / "damas.toml"


def session_file(given: str | None, folder: str | None, name: str) -> Path:
    """A session's file: the one a flag named, else `name` in the data folder chosen (or
    the platform's)."""
    if given:
        return Path(given).expanduser()
    return (Path(folder).expanduser() if folder else data_dir()) / name
