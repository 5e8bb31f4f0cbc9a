"""bgkit engine protocol 1 on GNU Backgammon 1.07, run inside gnubg.

Started by ``engines/gnubg-engine`` (read that file and README.md), which
runs ``gnubg -t -q -r [-P DIR] -p engines/gnubg_engine.py`` with gnubg's own
standard output sent to standard error and the protocol's output on file
descriptor 3. Its options arrive in BGKIT_GNUBG_ENGINE_ARGS (one per line)
because gnubg takes no script arguments.

Each move is gnubg's ``findbestmove`` for the board and roll with:
cube 1, centred, money (match length 0), Jacoby rule off (gammons and
backgammons count), a cubeless deterministic evaluation context without
noise at the requested plies, pruning as requested, gnubg's default
("normal") move filters.
"""

import argparse
import hashlib
import os
import shutil
import sys

import gnubg  # only inside gnubg

_dir = os.environ.get("BGKIT_GNUBG_ENGINE_DIR")
if _dir:
    sys.path.insert(0, _dir)
import bgkit_engine  # noqa: E402

NAME = "gnubg-engine"
DEFAULT_WEIGHTS = "/usr/share/gnubg/gnubg.wd"

# gnubg 1.07's default chequer-play move filters ("normal"; `show
# evaluation`): at the first level of an n-ply evaluation keep the best move
# and up to 8 more within 0.16 of it; at 3-ply (and 4-ply) also keep the
# best and up to 2 more within 0.04 at the third level; accept -1 = that
# level does no filtering. Keys as gnubg.getevalhintfilter() returns them;
# `ply` is 1-based (the filter used by a 1-ply evaluation is ply 1).
NORMAL_FILTERS = [
    {"ply": 1, "level": 0, "acceptmoves": 0, "extramoves": 8, "threshold": 0.16},
    {"ply": 2, "level": 0, "acceptmoves": 0, "extramoves": 8, "threshold": 0.16},
    {"ply": 2, "level": 1, "acceptmoves": -1, "extramoves": 0, "threshold": 0.0},
    {"ply": 3, "level": 0, "acceptmoves": 0, "extramoves": 8, "threshold": 0.16},
    {"ply": 3, "level": 1, "acceptmoves": -1, "extramoves": 0, "threshold": 0.0},
    {"ply": 3, "level": 2, "acceptmoves": 0, "extramoves": 2, "threshold": 0.04},
    {"ply": 4, "level": 0, "acceptmoves": 0, "extramoves": 8, "threshold": 0.16},
    {"ply": 4, "level": 1, "acceptmoves": -1, "extramoves": 0, "threshold": 0.0},
    {"ply": 4, "level": 2, "acceptmoves": 0, "extramoves": 2, "threshold": 0.04},
    {"ply": 4, "level": 3, "acceptmoves": -1, "extramoves": 0, "threshold": 0.0},
]


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        fail(message)


def fail(message):
    sys.stderr.write("%s: error: %s\n" % (NAME, message))
    sys.stderr.flush()
    sys.exit(2)


def parse_args():
    raw = os.environ.get("BGKIT_GNUBG_ENGINE_ARGS", "")
    argv = raw.split("\n") if raw else []
    p = _Parser(prog=NAME, description="bgkit engine protocol 1 on gnubg 1.07")
    p.add_argument("--plies", type=int, default=0, help="gnubg plies, 0 (raw net) to 4; default 0")
    p.add_argument("--prune", dest="prune", action="store_true", default=True,
                   help="use gnubg's pruning nets at 1 ply and deeper (default, as gnubg)")
    p.add_argument("--no-prune", dest="prune", action="store_false", help="do not use the pruning nets")
    p.add_argument("--weights", help="another gnubg.wd (or text gnubg.weights); set up by the wrapper")
    p.add_argument("--threads", type=int, default=1, help="gnubg calculation threads; default 1")
    a = p.parse_args(argv)
    if not 0 <= a.plies <= 4:
        fail("--plies must be 0..4, not %d" % a.plies)
    if not 1 <= a.threads <= 48:
        fail("--threads must be 1..48, not %d" % a.threads)
    return a


def md5_of(path):
    h = hashlib.md5()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def apply_gnubg_move(board, move):
    """Board after gnubg's findbestmove answer ``move``: (from, to, ...)
    1-based, from 25 = bar, to 0 = off, applied in order."""
    for k in range(0, len(move), 2):
        src, dst = move[k] - 1, move[k + 1] - 1
        die = src - dst if dst >= 0 else None
        if die is None:
            # Borne off: one step "past" index 0; any die that bears off.
            die = src + 1
        after = bgkit_engine.apply_step(board, src, die)
        if after is None:
            raise RuntimeError("gnubg's move %r is not playable on %s" % (move, bgkit_engine.encode_position_id(board)))
        board = after
    return board


def main():
    args = parse_args()
    out_fd = int(os.environ.get("BGKIT_GNUBG_ENGINE_FD", "3"))
    try:
        out = os.fdopen(out_fd, "w", encoding="utf-8")
    except OSError:
        fail("file descriptor %d (the protocol's output) is not open: start gnubg-engine, not this file" % out_fd)

    # gnubg has loaded its weights and mapped its bearoff databases by now:
    # the wrapper's temporary data directory is no longer needed.
    tmp = os.environ.get("BGKIT_GNUBG_ENGINE_TMPDIR")
    if tmp:
        shutil.rmtree(tmp, ignore_errors=True)

    gnubg.command("set threads %d" % args.threads)
    gnubg.command("set jacoby off")
    ci = gnubg.cubeinfo(1, -1, 0, 0, (0, 0), 0, 0)
    if ci.get("jacoby") != 0 or ci.get("gammonprice") != ((1.0, 1.0), (1.0, 1.0)):
        fail("gnubg's cubeinfo is not cubeless money without Jacoby: %r" % (ci,))
    ec = {"cubeful": 0, "plies": args.plies, "deterministic": 1, "prune": 1 if args.prune else 0, "noise": 0.0}

    weights = args.weights or DEFAULT_WEIGHTS
    try:
        wsum = md5_of(weights)
    except OSError as e:
        wsum = "unreadable (%s)" % e.strerror
    ready = "gnubg 1.07 %d-ply cubeless money (no Jacoby) prune=%s filters=normal threads=%d weights=%s md5=%s" % (
        args.plies, "on" if args.prune else "off", args.threads, os.path.abspath(weights), wsum)

    def choose(board, d1, d2):
        move = gnubg.findbestmove(board, ci, ec, (d1, d2), NORMAL_FILTERS)
        if not move:
            return board
        return apply_gnubg_move(board, move)

    return bgkit_engine.serve(ready, choose, out=out)


sys.exit(main())
