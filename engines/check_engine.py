#!/usr/bin/env python3
"""Checks an engine that speaks bgkit engine protocol 1, and times it.

    engines/check_engine.py [options] -- COMMAND [ARG...]

Starts COMMAND, handshakes, then plays random games from the starting
position: each turn rolls the dice and, when the roll has at least two
distinct legal results, asks the engine (`move <PositionID> <d1> <d2>`) and
checks that the reply is `move <PositionID>` of one of them (legal moves
from this folder's own generator, bgkit_engine.legal_results). The game
goes on with the engine's play or, half of the time, a random legal one,
so positions are both realistic and varied. Then it sends `quit` and checks
the engine exits with status 0 and printed nothing more.

Unless --no-protocol-tests: also sends malformed requests (each must get one
`error ...` line, and the engine must go on), and starts the engine once
more to check it exits with status 0 at end of input.

Prints the engine's ready line, its start-up time and moves per second
(requests answered / time waiting for answers). --jobs J runs J engines at
once, each with its own games, and prints their total rate too.

--selftest checks this folder's Position ID codec and move generator
instead: round trips, and against gnubg's Python (positionid,
positionfromid; needs /usr/games/gnubg) and bgsage's possible_moves (when
bgsage can be imported) on positions from random games.

Exit status: 0 all checks passed, 1 a check failed, 2 bad arguments.
"""

import argparse
import os
import queue
import random
import subprocess
import sys
import tempfile
import threading
import time
from importlib.metadata import PackageNotFoundError, version


def _version(name):
    try:
        return version(name)
    except PackageNotFoundError:
        return "?"


HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, HERE)
import bgkit_engine as bg  # noqa: E402


class Engine:
    """A child process speaking protocol 1, with a reader thread."""

    def __init__(self, cmd, timeout, stderr):
        self.timeout = timeout
        self.p = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
            text=True, encoding="utf-8", bufsize=1)
        self.lines = queue.Queue()
        self.t = threading.Thread(target=self._read, daemon=True)
        self.t.start()

    def _read(self):
        for line in self.p.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def recv(self, timeout=None):
        try:
            line = self.lines.get(timeout=timeout or self.timeout)
        except queue.Empty:
            raise RuntimeError("no reply within %g s" % (timeout or self.timeout))
        if line is None:
            raise RuntimeError("the engine closed its output (exit status %r)" % self.p.poll())
        if not line.endswith("\n"):
            raise RuntimeError("reply %r not terminated by a newline" % line)
        return line[:-1]

    def ask(self, line):
        self.send(line)
        return self.recv()

    def close_and_wait(self, send_quit=True):
        """Sends quit (or just closes stdin); returns (exit status, extra stdout lines)."""
        try:
            if send_quit:
                self.send("quit")
            self.p.stdin.close()
        except BrokenPipeError:
            pass
        try:
            rc = self.p.wait(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            return "killed after %g s" % self.timeout, []
        self.t.join(timeout=5)
        extra = []
        while True:
            try:
                line = self.lines.get_nowait()
            except queue.Empty:
                break
            if line is not None:
                extra.append(line.rstrip("\n"))
        return rc, extra

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()


def roll(rng):
    return rng.randint(1, 6), rng.randint(1, 6)


def random_positions(rng, count, min_results=2):
    """(board, d1, d2, results) of ``count`` turns with at least
    ``min_results`` legal results, from random games."""
    out = []
    board = bg.START
    while len(out) < count:
        if bg.game_over(board):
            board = bg.START
        d1, d2 = roll(rng)
        results = bg.legal_results(board, d1, d2)
        if len(results) >= min_results:
            out.append((board, d1, d2, results))
        board = bg.swap(rng.choice(sorted(results)))
    return out


class Report:
    def __init__(self):
        self.failures = []
        self.lock = threading.Lock()

    def fail(self, text):
        with self.lock:
            self.failures.append(text)
            if len(self.failures) <= 20:
                print("FAIL " + text, flush=True)


def handshake(eng, report, label):
    t0 = time.perf_counter()
    ready = eng.ask(bg.PROTOCOL)
    dt = time.perf_counter() - t0
    if not ready.startswith("ready"):
        report.fail("%s: handshake answered %r, not 'ready ...'" % (label, ready))
    return ready, dt


def play(cmd, args, seed, report, label, stats):
    """One engine: handshake, args.positions requests, quit."""
    rng = random.Random(seed)
    stderr = None if args.show_stderr else subprocess.DEVNULL
    t_start = time.perf_counter()
    eng = Engine(cmd, args.timeout, stderr)
    try:
        ready, startup = handshake(eng, report, label)
        asked = 0
        waited = 0.0
        board = bg.START
        t_first = time.perf_counter()
        while asked < args.positions:
            if bg.game_over(board):
                board = bg.START
            d1, d2 = roll(rng)
            results = bg.legal_results(board, d1, d2)
            if len(results) < 2:
                board = bg.swap(next(iter(results)))
                continue
            pid = bg.encode_position_id(board)
            request = "move %s %d %d" % (pid, d1, d2)
            t0 = time.perf_counter()
            reply = eng.ask(request)
            waited += time.perf_counter() - t0
            asked += 1
            chosen = None
            words = reply.split(" ")
            if len(words) == 2 and words[0] == "move":
                try:
                    chosen = bg.decode_position_id(words[1])
                except bg.BadRequest as e:
                    report.fail("%s: %s -> %r: %s" % (label, request, reply, e))
                else:
                    if chosen not in results:
                        report.fail("%s: %s -> %r: not a legal result (%d legal)" % (label, request, reply, len(results)))
                        chosen = None
            else:
                report.fail("%s: %s -> %r" % (label, request, reply))
            if chosen is not None and rng.random() < 0.5:
                board = bg.swap(chosen)
            else:
                board = bg.swap(rng.choice(sorted(results)))
        t_last = time.perf_counter()
        rc, extra = eng.close_and_wait(send_quit=True)
        if rc != 0:
            report.fail("%s: exit status %r after quit" % (label, rc))
        if extra:
            report.fail("%s: printed after quit: %r" % (label, extra[:3]))
        stats.append({"ready": ready, "startup": startup, "asked": asked, "waited": waited,
                      "span": t_last - t_first, "total": time.perf_counter() - t_start})
    except (RuntimeError, BrokenPipeError, OSError) as e:
        report.fail("%s: %s" % (label, e))
    finally:
        eng.kill()


def protocol_tests(cmd, args, report):
    stderr = None if args.show_stderr else subprocess.DEVNULL
    eng = Engine(cmd, args.timeout, stderr)
    try:
        handshake(eng, report, "protocol")
        bad = [
            "move 4HPwATDgc/ABM 3 1",       # 13 characters
            "move 4HPwATDgc/ABM! 3 1",      # not Base64
            "move 4HPwATDgc/ABMB 3 1",      # bits past the 80th
            "move ///////////// 3 1",       # too many chequers
            "move 4HPwATDgc/ABMA 7 1",      # bad die
            "move 4HPwATDgc/ABMA 3",        # missing die
            "move AAAAAAAAAAAAAA 3 1",      # no chequers: game over
            "hello",
            "",
        ]
        for line in bad:
            reply = eng.ask(line)
            if not reply.startswith("error "):
                report.fail("protocol: %r -> %r, expected 'error ...'" % (line, reply))
        # Still serving after the errors, in the mover's orientation.
        reply = eng.ask("move 4HPwATDgc/ABMA 6 5")
        legal = {bg.encode_position_id(b) for b in bg.legal_results(bg.START, 6, 5)}
        if reply.split(" ")[-1] not in legal or not reply.startswith("move "):
            report.fail("protocol: after errors, 'move 4HPwATDgc/ABMA 6 5' -> %r" % reply)
        rc, extra = eng.close_and_wait(send_quit=True)
        if rc != 0 or extra:
            report.fail("protocol: quit -> exit %r, extra output %r" % (rc, extra[:3]))
    except (RuntimeError, BrokenPipeError, OSError) as e:
        report.fail("protocol: %s" % e)
    finally:
        eng.kill()
    # End of input without quit.
    eng = Engine(cmd, args.timeout, stderr)
    try:
        handshake(eng, report, "eof")
        rc, extra = eng.close_and_wait(send_quit=False)
        if rc != 0 or extra:
            report.fail("eof: end of input -> exit %r, extra output %r" % (rc, extra[:3]))
    except (RuntimeError, BrokenPipeError, OSError) as e:
        report.fail("eof: %s" % e)
    finally:
        eng.kill()


# --------------------------------------------------------------------------
# --selftest
# --------------------------------------------------------------------------

GNUBG_CROSSCHECK = r"""
import gnubg, os, sys
sys.path.insert(0, os.environ['BGKIT_CHECK_DIR'])
import bgkit_engine as bg
bad = 0
n = 0
with open(os.environ['BGKIT_CHECK_IN']) as f:
    for line in f:
        pid = line.strip()
        n += 1
        b = bg.decode_position_id(pid)
        g = gnubg.positionfromid(pid)
        g = (tuple(g[0]), tuple(g[1]))
        if g != b:
            bad += 1; print('DECODE', pid, g, b, file=sys.stderr)
        e = gnubg.positionid(b)
        if e != pid:
            bad += 1; print('ENCODE', pid, e, file=sys.stderr)
with open(os.environ['BGKIT_CHECK_OUT'], 'w') as f:
    f.write('%d %d\n' % (n, bad))
"""


def selftest(args, report):
    rng = random.Random(args.seed)
    positions = random_positions(rng, args.positions, min_results=1)
    # Round trips, and every result is a position.
    ids = set()
    for board, d1, d2, results in positions:
        for b in [board] + sorted(results):
            pid = bg.encode_position_id(b)
            ids.add(pid)
            if bg.decode_position_id(pid) != b:
                report.fail("round trip of %s" % pid)
            if bg.from_sage(bg.to_sage(b)) != b:
                report.fail("bgsage board round trip of %s" % pid)
    if bg.encode_position_id(bg.START) != "4HPwATDgc/ABMA":
        report.fail("start position's ID")
    print("selftest: %d positions, %d distinct IDs: codec round trips done" % (len(positions), len(ids)))

    # gnubg's own codec.
    gnubg = os.environ.get("GNUBG", "/usr/games/gnubg")
    if os.path.exists(gnubg):
        with tempfile.TemporaryDirectory() as tmp:
            script = os.path.join(tmp, "x.py")
            with open(script, "w") as f:
                f.write(GNUBG_CROSSCHECK)
            with open(os.path.join(tmp, "ids"), "w") as f:
                f.write("\n".join(sorted(ids)) + "\n")
            env = dict(os.environ, BGKIT_CHECK_DIR=HERE, BGKIT_CHECK_IN=os.path.join(tmp, "ids"),
                       BGKIT_CHECK_OUT=os.path.join(tmp, "out"), HOME=tmp)
            subprocess.run([gnubg, "-t", "-q", "-r", "-p", script], env=env,
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=None if args.show_stderr else subprocess.DEVNULL)
            try:
                with open(os.path.join(tmp, "out")) as f:
                    n, bad = map(int, f.read().split())
            except (OSError, ValueError):
                report.fail("gnubg crosscheck did not run (try --show-stderr)")
            else:
                if bad or n != len(ids):
                    report.fail("gnubg crosscheck: %d of %d IDs differ" % (bad, n))
                print("selftest: gnubg's positionid/positionfromid agree on %d IDs" % n)
    else:
        print("selftest: %s not found: gnubg crosscheck skipped" % gnubg)

    # bgsage's move generator (and so the board conversion).
    try:
        import bgsage
    except ImportError:
        print("selftest: bgsage not importable with %s: bgsage crosscheck skipped" % sys.executable)
        return
    n = 0
    for board, d1, d2, results in positions:
        theirs = {bg.from_sage(s) for s in bgsage.possible_moves(bg.to_sage(board), d1, d2)}
        if not theirs:
            theirs = {board}
        if theirs != results:
            report.fail("bgsage's possible_moves differ on %s %d%d: %d vs our %d"
                        % (bg.encode_position_id(board), d1, d2, len(theirs), len(results)))
        n += 1
    print("selftest: bgsage %s's possible_moves agree with ours on %d (position, roll)s"
          % (_version("bgsage"), n))


def main():
    p = argparse.ArgumentParser(
        description="Check an engine speaking bgkit engine protocol 1 and time it.",
        usage="%(prog)s [options] -- COMMAND [ARG...]   or   %(prog)s --selftest")
    p.add_argument("--positions", type=int, default=500, help="move requests per engine (default 500)")
    p.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    p.add_argument("--jobs", type=int, default=1, help="engines run at once (default 1)")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for one reply (default 120)")
    p.add_argument("--no-protocol-tests", action="store_true", help="skip the malformed-request and end-of-input checks")
    p.add_argument("--show-stderr", action="store_true", help="let the engine's standard error through")
    p.add_argument("--selftest", action="store_true", help="check this folder's codec and move generator")
    p.add_argument("command", nargs=argparse.REMAINDER)
    args = p.parse_args()
    cmd = args.command[1:] if args.command[:1] == ["--"] else args.command
    report = Report()
    if args.selftest:
        selftest(args, report)
    else:
        if not cmd:
            p.error("no engine command (put it after --)")
        if args.positions < 1 or args.jobs < 1:
            p.error("--positions and --jobs must be at least 1")
        if not args.no_protocol_tests:
            protocol_tests(cmd, args, report)
        stats = []
        threads = [threading.Thread(target=play, args=(cmd, args, args.seed + j, report, "engine %d" % j, stats))
                   for j in range(args.jobs)]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - t0
        if stats:
            print("engine: " + stats[0]["ready"])
            for s in stats:
                print("  %d moves checked; start-up (to ready) %.3f s; %.1f moves/s (%.2f ms per move)"
                      % (s["asked"], s["startup"], s["asked"] / s["waited"], 1000 * s["waited"] / s["asked"]))
            if args.jobs > 1:
                total = sum(s["asked"] for s in stats)
                print("  %d engines at once: %d moves in %.2f s wall, %.1f moves/s in all"
                      % (len(stats), total, wall, total / wall))
    if report.failures:
        print("FAILED: %d check(s) failed" % len(report.failures))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
