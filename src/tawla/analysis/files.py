"""Record files: finding them, reading them (from disk or from their contents), and analysing
them one after the other."""

from __future__ import annotations

import glob
import os
from pathlib import Path
from typing import Callable, Iterable

from ..errors import ConfigError, FormatError, quote
from ..formats import matfile
from ..formats.sgf import parse_sgf, read_sgf
from .evaluators import EquityEvaluator
from .replay import analyze_games, analyze_record
from .report_data import MatchReport

__all__ = ["MAX_RECORD_BYTES", "read_record", "open_record", "open_contents", "analyze_file", "collect_files",
           "analyze_paths", "analyze_contents"]

MAX_RECORD_BYTES = 64 * 2**20
"""Files larger than this are refused as match records (bytes)."""


def _checked(path) -> Path:
    if not isinstance(path, (str, os.PathLike)) or "\0" in str(path):
        raise FormatError(f"not a path: {quote(path)}")
    p = Path(path)
    try:
        size = p.stat().st_size if p.is_file() else None
    except OSError as e:  # a name too long, a symlink loop
        raise FormatError(f"cannot read: {e.strerror}", file=quote(str(p))) from None
    if size is None:
        raise FormatError("not a regular file", file=str(p))
    if size > MAX_RECORD_BYTES:
        raise FormatError(f"larger than {MAX_RECORD_BYTES // 2**20} MiB: not a match record", file=str(p))
    return p


def read_record(path):
    """Read a .mat/.txt (Jellyfish) or .sgf (gnubg) file whole.

    Returns
    -------
    tawla.formats.record.MatchRecord

    Raises
    ------
    tawla.errors.FormatError
        Not a regular file, larger than :data:`MAX_RECORD_BYTES`, or not a match record.
    """
    p = _checked(path)
    if p.suffix.lower() == ".sgf":
        return read_sgf(p)
    return matfile.read_match(p)


def open_record(path):
    """Open a record to be analysed: a .mat/.txt file game by game, an .sgf file whole.

    Returns
    -------
    tawla.formats.matfile.MatchStream or tawla.formats.record.MatchRecord

    Raises
    ------
    tawla.errors.FormatError
        As :func:`read_record`.
    """
    p = _checked(path)
    if p.suffix.lower() == ".sgf":
        return read_sgf(p)
    return matfile.stream_match(p)


def analyze_file(path, *, evaluator: EquityEvaluator | None = None, ruleset=None) -> MatchReport:
    """Replay and analyse one record file; a .mat/.txt file is read one game at a time.

    Memory grows with the number of plays (a few dozen bytes each, see
    :class:`~tawla.analysis.report_data.Plays`), never with the length of one game's text.

    Raises
    ------
    tawla.errors.FormatError
        As :func:`read_record`.
    """
    return _analyze(open_record(path), path, evaluator, ruleset)


def _analyze(source, path, evaluator, ruleset) -> MatchReport:
    if not isinstance(source, matfile.MatchStream):
        rep = analyze_record(source, evaluator=evaluator, ruleset=ruleset)
    else:
        rep = MatchReport(path=str(path), match_length=source.match_length, players=tuple(source.players),
                          headers=dict(source.headers), defects=list(source.defects))
        analyze_games(rep, source.games(), source.variation, evaluator=evaluator, ruleset=ruleset)
    rep.path = str(path)
    return rep


def collect_files(specs: Iterable[str]) -> list:
    """Expand files, directories (recursively: .mat, .txt, .sgf) and globs, sorted, unique.

    Raises
    ------
    tawla.errors.ConfigError
        A spec that matches nothing.
    """
    if isinstance(specs, (str, os.PathLike)):
        specs = [specs]
    if not isinstance(specs, (list, tuple)):
        raise ConfigError(f"files are given as a str, a path or a list of them, not {type(specs).__name__}")
    out = []
    for spec in specs:
        if not isinstance(spec, (str, os.PathLike)) or str(spec) == "":
            raise ConfigError(f"no file, directory or glob match for {quote(spec)}")
        p = Path(spec)
        try:
            kind = "dir" if p.is_dir() else "file" if p.is_file() else None
        except OSError:  # a name too long
            raise ConfigError(f"no file, directory or glob match for {quote(spec)}") from None
        if kind == "dir":
            out += sorted(q for q in p.rglob("*") if q.suffix.lower() in (".mat", ".txt", ".sgf") and q.is_file()
                          and q.name.upper() != "SOURCES.MD")
        elif kind == "file":
            out.append(p)
        else:
            hits = sorted(Path(h) for h in glob.glob(str(spec), recursive=True))
            if not hits:
                raise ConfigError(f"no file, directory or glob match for {quote(spec)}")
            out += hits
    seen, uniq = set(), []
    for p in out:
        key = _identity(p)
        if key not in seen:
            seen.add(key)
            uniq.append(p)
    return uniq


def _identity(p: Path) -> str:
    """The real path of ``p``, or its absolute path where it cannot be resolved (a symlink
    loop): the key under which :func:`collect_files` lists a file once."""
    try:
        return str(p.resolve())
    except (RuntimeError, OSError):
        return os.path.abspath(p)


def open_contents(name: str, data: bytes):
    """Open a record from the bytes of its file, as :func:`open_record` opens the file itself.

    The bytes are decoded as the file would be (:func:`tawla.formats.matfile.decode_text`); a
    name ending in ``.sgf`` (any case) is parsed by :func:`tawla.formats.sgf.parse_sgf`, any
    other by :func:`tawla.formats.matfile.stream_match` on the text. ``name`` stands for the
    path in the record and in error messages: the result, and any error, is what
    :func:`open_record` gives for a file of that path and contents.

    Returns
    -------
    tawla.formats.matfile.MatchStream or tawla.formats.record.MatchRecord

    Raises
    ------
    tawla.errors.FormatError
        ``data`` longer than :data:`MAX_RECORD_BYTES`, or not a match record.
    """
    if len(data) > MAX_RECORD_BYTES:
        raise FormatError(f"larger than {MAX_RECORD_BYTES // 2**20} MiB: not a match record", file=name)
    text = matfile.decode_text(data)
    if name.lower().endswith(".sgf"):
        return parse_sgf(text, path=name)
    if "\n" not in text and "\r" not in text:
        text += "\n"  # stream_match reads a str without a line break as a path; the lines stay the same
    return matfile.stream_match(text, path=name)


def _report(path, opener, evaluator, ruleset) -> MatchReport:
    """The report of one file; an unreadable one becomes a report with ``error`` set."""
    try:
        source = opener()
    except Exception as e:  # one unreadable file never stops the batch
        return MatchReport(path=str(path), error=f"{path}: {type(e).__name__}: {e}")
    try:
        return _analyze(source, path, evaluator, ruleset)
    except (FormatError, OSError) as e:  # the file went bad while it was read game by game
        return MatchReport(path=str(path), error=f"{path}: {type(e).__name__}: {e}")


def analyze_paths(paths, *, evaluator: EquityEvaluator | None = None, ruleset=None,
                  progress: Callable | None = None) -> list:
    """Analyse files; a file that cannot be read becomes a report with ``error`` set.

    ``progress(path, report)`` is called after each file.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    reports = []
    for path in paths:
        rep = _report(path, lambda: open_record(path), evaluator, ruleset)
        reports.append(rep)
        if progress is not None:
            progress(path, rep)
    return reports


def analyze_contents(files, *, evaluator: EquityEvaluator | None = None, ruleset=None) -> list:
    """Analyse records given by their contents: ``files`` is a list of ``(name, bytes)``.

    Each report is the one :func:`analyze_paths` gives for a file of that path and
    contents (:func:`open_contents`); a record that cannot be read becomes a report with
    ``error`` set.

    Returns
    -------
    list of MatchReport
        In the order of ``files``.
    """
    return [_report(name, lambda: open_contents(name, data), evaluator, ruleset) for name, data in files]
