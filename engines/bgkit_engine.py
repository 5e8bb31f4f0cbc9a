"""Shared code of bgkit's engine adapters (bgkit engine protocol 1).

Plain Python 3 (3.8 or later), no dependencies, so that it runs both in a
normal interpreter and inside gnubg's embedded Python.

Boards are gnubg's: a pair ``(opp, me)`` of 25-int tuples, each side in its
own numbering (index 0 its ace point, 23 its 24-point, 24 its bar). ``me``
(``board[1]``) is the side on roll. Our index ``p`` and the opponent's index
``23 - p`` are the same physical point.

Contents:
* ``decode_position_id`` / ``encode_position_id``: gnubg's 14-character
  Position ID (strict: see docs/formats.md of bgkit);
* ``legal_results``: every distinct board after a legal play of a roll
  (gnubg's rules: use as many dice as possible; when only one die of a
  non-double can be played, the larger if it can);
* ``apply_step``: one chequer moved by one die;
* ``serve``: the protocol loop both adapters use.
"""

import sys

PROTOCOL = "bgkit-engine 1"
_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_B64_INDEX = {c: i for i, c in enumerate(_B64)}

START = (
    (0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0),
    (0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0),
)


class BadRequest(Exception):
    """A request the engine answers with ``error <text>``."""


# --------------------------------------------------------------------------
# Position ID
# --------------------------------------------------------------------------


def decode_position_id(pid):
    """Board of a Position ID; raises BadRequest if it is not a valid one.

    Rejects: a length other than 14, characters outside the Base64
    alphabet, set bits after the 50th separator (including the unused low
    bits of the last character), more than 15 chequers on a side, both
    sides on one point.
    """
    if len(pid) != 14:
        raise BadRequest("Position ID %r is not 14 characters" % pid)
    try:
        vals = [_B64_INDEX[c] for c in pid]
    except KeyError:
        raise BadRequest("Position ID %r has a character outside Base64" % pid)
    if vals[13] & 0x0F:
        raise BadRequest("Position ID %r has set bits past its 80 bits" % pid)
    key = bytearray()
    for g in range(3):
        v = (vals[4 * g] << 18) | (vals[4 * g + 1] << 12) | (vals[4 * g + 2] << 6) | vals[4 * g + 3]
        key += bytes(((v >> 16) & 0xFF, (v >> 8) & 0xFF, v & 0xFF))
    key.append(((vals[12] << 2) | (vals[13] >> 4)) & 0xFF)
    sides = [[0] * 25, [0] * 25]
    side = 0
    idx = 0
    for k in range(80):
        bit = (key[k >> 3] >> (k & 7)) & 1
        if side == 2:
            if bit:
                raise BadRequest("Position ID %r has set bits after its last point" % pid)
            continue
        if bit:
            sides[side][idx] += 1
        else:
            idx += 1
            if idx == 25:
                side += 1
                idx = 0
    if side != 2:
        # Fewer than 50 separators within 80 bits means > 30 chequers.
        raise BadRequest("Position ID %r has too many chequers" % pid)
    board = (tuple(sides[0]), tuple(sides[1]))
    problem = board_problem(board)
    if problem:
        raise BadRequest("Position ID %r: %s" % (pid, problem))
    return board


def encode_position_id(board):
    """gnubg's Position ID of ``board`` (opponent's side first)."""
    bits = []
    for side in (board[0], board[1]):
        for n in side:
            bits.extend([1] * n)
            bits.append(0)
    bits.extend([0] * (80 - len(bits)))
    key = bytearray(10)
    for k, bit in enumerate(bits):
        if bit:
            key[k >> 3] |= 1 << (k & 7)
    out = []
    for g in range(3):
        v = (key[3 * g] << 16) | (key[3 * g + 1] << 8) | key[3 * g + 2]
        out.extend(_B64[(v >> s) & 63] for s in (18, 12, 6, 0))
    out.append(_B64[key[9] >> 2])
    out.append(_B64[(key[9] & 3) << 4])
    return "".join(out)


def board_problem(board):
    """Why ``board`` is not a position (None if it is one)."""
    for name, side in (("opponent", board[0]), ("side on roll", board[1])):
        if len(side) != 25 or any(n < 0 for n in side):
            return "malformed side"
        if sum(side) > 15:
            return "the %s has %d chequers (at most 15)" % (name, sum(side))
    for p in range(24):
        if board[1][p] and board[0][23 - p]:
            return "both sides have chequers on the side on roll's %d-point" % (p + 1)
    return None


# --------------------------------------------------------------------------
# Moves
# --------------------------------------------------------------------------


def apply_step(board, src, die):
    """Board after the side on roll moves one chequer from index ``src``
    (0..23, 24 = bar) by ``die``; None if that is not legal."""
    opp, me = board
    if me[src] == 0:
        return None
    if me[24] and src != 24:
        return None
    dst = src - die
    if dst < 0:
        # Bearing off: every chequer home, exact or from the highest point.
        if any(me[i] for i in range(6, 25)):
            return None
        if dst < -1 and any(me[i] for i in range(src + 1, 6)):
            return None
        me2 = list(me)
        me2[src] -= 1
        return (opp, tuple(me2))
    o = 23 - dst
    if opp[o] >= 2:
        return None
    me2 = list(me)
    me2[src] -= 1
    me2[dst] += 1
    if opp[o] == 1:
        opp2 = list(opp)
        opp2[o] = 0
        opp2[24] += 1
        return (tuple(opp2), tuple(me2))
    return (opp, tuple(me2))


def _plays(board, dice):
    """All boards after playing ``dice`` in that order, as far as legal:
    returns {n: set(boards)} for each count n of dice played."""
    out = {0: {board}}
    frontier = {board}
    for n, die in enumerate(dice, 1):
        nxt = set()
        for b in frontier:
            for src in range(25):
                b2 = apply_step(b, src, die)
                if b2 is not None:
                    nxt.add(b2)
        if not nxt:
            break
        out[n] = nxt
        frontier = nxt
    return out


def legal_results(board, d1, d2):
    """The set of distinct boards after a legal play of ``d1 d2`` (the side
    on roll still ``board[1]``). ``{board}`` itself when nothing can move."""
    if d1 == d2:
        plays = _plays(board, [d1] * 4)
        return plays[max(plays)]
    hi, lo = max(d1, d2), min(d1, d2)
    a = _plays(board, [hi, lo])
    b = _plays(board, [lo, hi])
    if 2 in a or 2 in b:
        return a.get(2, set()) | b.get(2, set())
    if 1 in a:
        return a[1]
    if 1 in b:
        return b[1]
    return {board}


def swap(board):
    """The same position with the roll handed to the other side."""
    return (board[1], board[0])


def game_over(board):
    """True when a side has borne off all 15 chequers."""
    return sum(board[0]) == 0 or sum(board[1]) == 0


# --------------------------------------------------------------------------
# Protocol
# --------------------------------------------------------------------------


def parse_move_request(words):
    """(board, d1, d2) of the words after ``move``; raises BadRequest."""
    if len(words) != 3:
        raise BadRequest("expected: move <PositionID> <d1> <d2>")
    board = decode_position_id(words[0])
    dice = []
    for w in words[1:]:
        if w not in ("1", "2", "3", "4", "5", "6"):
            raise BadRequest("die %r is not 1..6" % w)
        dice.append(int(w))
    if game_over(board):
        raise BadRequest("the game is over in %s" % words[0])
    return board, dice[0], dice[1]


def serve(ready_text, choose, inp=None, out=None, log=None):
    """Runs protocol 1 on ``inp``/``out`` until ``quit`` or end of input.

    ``choose(board, d1, d2)`` returns the board after the engine's play
    (side on roll still ``board[1]``); an exception it raises becomes an
    ``error`` reply. Returns 0.
    """
    inp = inp or sys.stdin
    out = out or sys.stdout
    log = log or sys.stderr
    shaken = False

    def reply(text):
        out.write(text + "\n")
        out.flush()

    while True:
        line = inp.readline()
        if not line:
            return 0
        line = line.rstrip("\r\n")
        words = line.split()
        if words == ["quit"]:
            return 0
        if not shaken:
            if line == PROTOCOL:
                shaken = True
                reply("ready " + ready_text)
            elif len(words) == 2 and words[0] == "bgkit-engine":
                reply("error unsupported protocol %r: this engine speaks %r" % (words[1], PROTOCOL))
            else:
                reply("error expected %r first" % PROTOCOL)
            continue
        if not words or words[0] != "move":
            reply("error unknown request %r" % line[:80])
            continue
        try:
            board, d1, d2 = parse_move_request(words[1:])
            after = choose(board, d1, d2)
            reply("move " + encode_position_id(after))
        except BadRequest as e:
            reply("error " + str(e))
        except Exception as e:  # engine failure: report, keep serving
            print("engine: %s on %r: %r" % (type(e).__name__, line, e), file=log)
            log.flush()
            reply("error engine failure: %s: %s" % (type(e).__name__, " ".join(str(e).split())))


# --------------------------------------------------------------------------
# Open Sage (bgsage) boards
# --------------------------------------------------------------------------


def to_sage(board):
    """bgsage's 26-int board of ``board``: the side on roll's view, [1..24]
    its points (positive: its chequers, negative: the opponent's), [25] its
    bar, [0] the opponent's bar."""
    opp, me = board
    s = [0] * 26
    s[0] = opp[24]
    s[25] = me[24]
    for p in range(1, 25):
        s[p] = me[p - 1] - opp[24 - p]
    return s


def from_sage(s):
    """Inverse of ``to_sage``."""
    if len(s) != 26 or s[0] < 0 or s[25] < 0:
        raise ValueError("not a bgsage board: %r" % (s,))
    opp = [0] * 25
    me = [0] * 25
    opp[24] = s[0]
    me[24] = s[25]
    for p in range(1, 25):
        if s[p] > 0:
            me[p - 1] = s[p]
        elif s[p] < 0:
            opp[24 - p] = -s[p]
    return (tuple(opp), tuple(me))
