#!/usr/bin/env python3
"""Label sources ("teachers") against variance-reduced rollouts: how close
each evaluation comes to the rollout's cubeless equity, per class, and
what it costs a position.

A random sample of a labelled database's positions (`--per-class`
contact, crashed and race counts, `--seed`) is rolled out by
`trainer db rollout --variance-reduction` (gnubg.wd's 0-ply play) and
evaluated by:
  * bgkit's evaluator with each weights file at 0..3 plies (with pruning);
  * Open Sage (`bgsage`), if it imports, at its 1ply..4ply (gnubg's 0..3).
The table gives each teacher's equity RMS against the rollouts and, in
brackets, with the rollouts' own variance taken out (sqrt(RMS^2 - mean
SE^2)). Timing: CPU time of one thread per position on the contact sample.

Usage (run with a Python that can import bgsage, e.g. target/engines-venv):
  benches/compare-teachers.py DB WORKDIR [--per-class 400,200,100]
      [--trials 144] [--seed 7] [--weights W ...] [--sage-levels 1ply,2ply,3ply]
Every step's output is kept in WORKDIR and reused when the script is run
again (the rollout resumes from its journal).
"""

import argparse
import base64
import math
import os
import random
import resource
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "engines"))
import bgkit_engine  # noqa: E402

CLASSES = ["CONTACT", "CRASHED", "RACE"]


def trainer():
    return os.environ.get("TRAINER", "trainer")


def run(args, **kw):
    return subprocess.run([trainer()] + args, check=True, text=True, **kw)


def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def equity(p):
    return 2 * p[0] - 1 + p[1] - p[3] + p[2] - p[4]


def dat_key(pid):
    raw = base64.b64decode(pid + "==")
    return "".join(chr(65 + (b >> 4)) + chr(65 + (b & 15)) for b in raw)


def sample(db, work, per_class, seed):
    ids = os.path.join(work, "sample.ids")
    if os.path.exists(ids):
        return [tuple(l.split()) for l in open(ids)]
    rows = [l.split("\t") for l in run(["db", "dump", db], capture_output=True).stdout.splitlines()]
    rng = random.Random(seed)
    chosen = []
    for c, n in zip(CLASSES, per_class):
        pool = [r for r in rows if r[1] == c]
        chosen += [(r[0], c, r[3:8]) for r in rng.sample(pool, min(n, len(pool)))]
    dat = os.path.join(work, "sample.dat")
    with open(dat, "w") as f:
        for pid, _, targets in chosen:
            f.write("%s %s\n" % (dat_key(pid), " ".join(targets)))
    run(["db", "import", dat, "-o", os.path.join(work, "rollout.db")], capture_output=True)
    with open(ids + ".tmp", "w") as f:
        for pid, c, _ in chosen:
            f.write("%s %s\n" % (pid, c))
    os.replace(ids + ".tmp", ids)
    return [(pid, c) for pid, c, _ in chosen]


def rollout(work, trials, seed):
    db = os.path.join(work, "rollout.db")
    done = os.path.join(work, "rollout.done")
    if not os.path.exists(done):
        journal = os.path.exists(db + ".journal")
        run(["db", "rollout", db, "--trials", str(trials), "--variance-reduction",
             "--seed", str(seed)] + (["--resume"] if journal else []))
        open(done, "w").close()
    out = {}
    for l in run(["db", "dump", db], capture_output=True).stdout.splitlines():
        f = l.split("\t")
        out[f[0]] = (float(f[8]), float(f[9]))
    return out


def bgkit_teacher(work, ids, contact, weights, plies):
    name = "%s %d-ply" % (os.path.basename(weights), plies)
    path = os.path.join(work, "bgkit-%s-%d.txt" % (os.path.basename(weights), plies))
    if not os.path.exists(path):
        args = ["eval", "--weights", weights, "--plies", str(plies), "--prune"]
        before = child_cpu()
        run(args + ["--threads", "1"], input="\n".join(contact) + "\n", capture_output=True)
        ms = 1000 * (child_cpu() - before) / len(contact)
        res = run(args, input="\n".join(ids) + "\n", capture_output=True).stdout
        # `trainer eval` prints ID, class, the five outputs and the equity.
        rows = [(f[0], [float(x) for x in f[2:7]])
                for f in (l.split("\t") for l in res.splitlines())]
        write_teacher(path, ms, rows)
    return read_teacher(path, name)


def write_teacher(path, ms, rows):
    """A teacher's file: its CPU time a contact position, then a line per
    position (ID and the five outputs)."""
    with open(path + ".tmp", "w") as f:
        f.write("# cpu ms %.4f\n" % ms)
        for pid, probs in rows:
            f.write("%s\t%s\n" % (pid, "\t".join(repr(p) for p in probs)))
    os.replace(path + ".tmp", path)


def read_teacher(path, name):
    """(name, CPU ms a contact position, equity by position ID)."""
    lines = open(path).read().splitlines()
    values = {}
    for l in lines[1:]:
        f = l.split("\t")
        values[f[0]] = equity([float(x) for x in f[1:6]])
    return name, float(lines[0].split()[-1]), values


def sage_teacher(work, ids, contact, level):
    import bgsage
    gnubg_plies = int(level[0]) - 1
    name = "Open Sage %s (gnubg %d-ply)" % (level, gnubg_plies)
    path = os.path.join(work, "sage-%s.txt" % level)

    def positions(pids):
        return [{"board": bgkit_engine.to_sage(bgkit_engine.decode_position_id(p)),
                 "cube_value": 1, "cube_owner": "centered"} for p in pids]

    if not os.path.exists(path):
        timed = contact[: max(20, len(contact) // (1 if gnubg_plies < 3 else 10))]
        start = time.process_time()
        bgsage.batch_evaluate(positions(timed), eval_level=level, n_threads=1, jacoby=False)
        ms = 1000 * (time.process_time() - start) / len(timed)
        res = bgsage.batch_evaluate(positions(ids), eval_level=level, n_threads=1, jacoby=False)
        write_teacher(path, ms, [
            (pid, [r.probs.win, r.probs.gammon_win, r.probs.backgammon_win,
                   r.probs.gammon_loss, r.probs.backgammon_loss])
            for pid, r in zip(ids, res)])
    return read_teacher(path, name)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("db")
    p.add_argument("work")
    p.add_argument("--per-class", default="400,200,100")
    p.add_argument("--trials", type=int, default=144)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--weights", action="append")
    p.add_argument("--plies", default="0,1,2,3")
    p.add_argument("--sage-levels", default="1ply,2ply,3ply")
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    per_class = [int(x) for x in a.per_class.split(",")]
    chosen = sample(a.db, a.work, per_class, a.seed)
    ids = [pid for pid, _ in chosen]
    cls = dict(chosen)
    contact = [pid for pid, c in chosen if c == "CONTACT"]
    truth = rollout(a.work, a.trials, a.seed + 4)
    teachers = []
    for w in a.weights or ["/usr/lib/gnubg/gnubg.wd"]:
        for plies in [int(x) for x in a.plies.split(",")]:
            teachers.append(bgkit_teacher(a.work, ids, contact, w, plies))
    levels = [x for x in a.sage_levels.split(",") if x]
    if levels:
        try:
            import bgsage  # noqa: F401
            teachers += [sage_teacher(a.work, ids, contact, lv) for lv in levels]
        except ImportError:
            sys.stderr.write("bgsage does not import: Open Sage left out\n")
    present = [c for c in CLASSES if any(cls[i] == c for i in ids)]
    se2 = {c: [truth[i][1] ** 2 for i in ids if cls[i] == c] for c in present}
    print("%d positions (%s), %d-trial variance-reduced rollouts; equity RMS against them "
          "(without the rollouts' variance)" % (len(ids), ", ".join(
              "%d %s" % (len(se2[c]), c.lower()) for c in present), a.trials))
    print()
    print("| teacher | CPU ms a contact position | " + " | ".join(c.lower() for c in present) + " |")
    print("|---|---|" + "---|" * len(present))
    for name, ms, values in teachers:
        cells = []
        for c in present:
            errs = [values[i] - truth[i][0] for i in ids if cls[i] == c]
            ms2 = sum(e * e for e in errs) / len(errs)
            true_ms = ms2 - sum(se2[c]) / len(se2[c])
            cells.append("%.4f (%.4f)" % (math.sqrt(ms2), math.sqrt(max(true_ms, 0.0))))
        print("| %s | %.3g | %s |" % (name, ms, " | ".join(cells)))
    print()
    print("rollout standard error, RMS: " + ", ".join(
        "%s %.4f" % (c.lower(), math.sqrt(sum(se2[c]) / len(se2[c]))) for c in present))


if __name__ == "__main__":
    main()
