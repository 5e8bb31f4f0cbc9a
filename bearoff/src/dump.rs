//! `bearoff dump`: one record, laid out as gnubg's bearoffdump shows it.

use crate::json::{self, num, nums};
use crate::open::open;
use anyhow::{anyhow, bail, Context, Result};
use board::{Board, SideArray, POINTS};
use databases::decode::Scale;
use databases::record::{race, HyperValues, OneSidedValues, TwoSidedValues};
use databases::{Database, Kind, Pair, Record, Values};
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::path::Path;
use support::cli::Outcome;
use support::stdio::shorten;

/// Which record to dump.
pub enum Target {
    /// A record number.
    Index(u64),
    /// A gnubg Position ID.
    PositionId(String),
    /// A layout text (see the `--board` help).
    Board(String),
}

/// bearoffdump's effective-pip-count factor: the average pips of a roll
/// (294 / 36, in f32).
const EPC_FACTOR: f32 = 294.0 / 36.0;

/// Every value is decoded as Debian's gnubg 1.07 decodes it.
const SCALE: Scale = Scale::Reciprocal;

/// Parses one side's layout: chequer counts from the ace point up.
fn parse_side(text: &str) -> Result<SideArray> {
    let mut side = [0u8; POINTS];
    let tokens: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
        .collect();
    if tokens.len() > POINTS {
        bail!(
            "a layout has at most {POINTS} entries (24 points and the bar), got {}",
            tokens.len()
        );
    }
    for (slot, t) in side.iter_mut().zip(&tokens) {
        *slot = t
            .parse()
            .ok()
            .filter(|&v: &u8| v <= 15)
            .ok_or_else(|| anyhow!("invalid chequer count {:?} in layout", shorten(t, 20)))?;
    }
    let total: u32 = side.iter().map(|&c| u32::from(c)).sum();
    if total > 15 {
        bail!("a layout has at most 15 chequers, got {total}");
    }
    Ok(side)
}

/// Parses `--board`: "ON_ROLL / OPPONENT", or a single layout for one-sided
/// files (shown as the opponent).
fn parse_board(text: &str, kind: Kind) -> Result<Board> {
    let parts: Vec<&str> = text.split('/').collect();
    match parts.as_slice() {
        [one] if !databases::reader::is_two_sided(kind) => {
            Ok(Board::new(parse_side(one)?, [0; POINTS]))
        }
        [_] => bail!("a {kind} position needs both sides: \"ON_ROLL / OPPONENT\""),
        [us, them] => Ok(Board::new(parse_side(them)?, parse_side(us)?)),
        _ => bail!("--board takes at most two layouts separated by '/'"),
    }
}

/// Runs `bearoff dump`.
pub fn run(path: &Path, target: Target, as_json: bool, kind: Option<Kind>) -> Result<Outcome> {
    let db = open(path, kind)?;
    let (pair, how) = match &target {
        Target::Index(i) => (db.pair_at(*i)?, format!("Dump of position#: {i}")),
        Target::PositionId(id) => {
            let board = Board::from_position_id(id)
                .map_err(|e| anyhow!("invalid Position ID {:?}: {e}", shorten(id, 40)))?;
            (db.pair_of(&board)?, format!("Dump of position ID: {id}"))
        }
        Target::Board(text) => {
            let board = parse_board(text, db.kind()).context("invalid --board")?;
            (db.pair_of(&board)?, format!("Dump of board: {text}"))
        }
    };
    let mut v = json!({
        "file": db.path().display().to_string(),
        "kind": db.kind().to_string(),
        "position_id": pair.board.position_id(),
    });
    let mut text = format!(
        "Bearoff database: {}\nKind            : {}\nPosition ID     : {}\n{how}\n\n",
        db.path().display(),
        db.kind(),
        pair.board.position_id()
    );
    let _ = write!(
        text,
        "{:>19} {:>14}\nPosition {:>12}  {:>12}\n\n",
        "Player", "Opponent", pair.player, pair.opponent
    );
    match db.pair_record(&pair) {
        None => one_sided(&db, &pair, &mut text, &mut v)?,
        Some(record) => {
            v["record"] = record.into();
            v["player"] = side_json(&db, &pair, 1);
            v["opponent"] = side_json(&db, &pair, 0);
            match db.record(record)? {
                r @ Record::TwoSided { values, cubeful } => {
                    let Values::TwoSided(t) = r.values(SCALE) else {
                        unreachable!()
                    };
                    v["stored"] = json!(&values[..if cubeful { 4 } else { 1 }]);
                    two_sided(&t, &mut text, &mut v);
                }
                r @ Record::Hyper {
                    probabilities,
                    equities,
                    ..
                } => {
                    let Values::Hyper(h) = r.values(SCALE) else {
                        unreachable!()
                    };
                    v["stored_probabilities"] = json!(probabilities);
                    v["stored_equities"] = json!(equities);
                    hyper(&h, &mut text, &mut v);
                }
                _ => unreachable!("pair records are two-sided or Hypergammon"),
            }
        }
    }
    if as_json {
        json::print(&v)?;
    } else {
        support::stdio::stdout_text(&text)?;
    }
    Ok(Outcome::Done)
}

/// Index and layout of side `side` of a pair.
fn side_json(db: &Database, pair: &Pair, side: usize) -> Value {
    let p = db.kind().points();
    json!({
        "index": if side == 1 { pair.player } else { pair.opponent },
        "layout": &pair.board.sides[side][..p],
        "chequers": pair.board.chequers(side),
        "pips": pair.board.pips(side),
    })
}

/// The distributions' JSON.
fn distribution_json(d: &databases::decode::RollDistribution) -> Value {
    json!({"probabilities": nums(&d.p), "mean": num(d.mean), "sd": num(d.sd)})
}

fn one_sided(db: &Database, pair: &Pair, text: &mut String, v: &mut Value) -> Result<()> {
    let gammons = match db.kind() {
        Kind::OneSided { gammons, .. } => gammons,
        _ => true,
    };
    let mut values = [None, None];
    for (slot, (side, id)) in values
        .iter_mut()
        .zip([(1usize, pair.player), (0, pair.opponent)])
    {
        let record = db.record(id as u64)?;
        let decoded = record.values(SCALE);
        let Some(os) = decoded.one_sided() else {
            unreachable!("one-sided files hold one-sided records")
        };
        let pips = pair.board.pips(side);
        let epc = os.bearoff.mean * EPC_FACTOR;
        let mut s = side_json(db, pair, side);
        s["bearoff"] = distribution_json(&os.bearoff);
        s["gammon"] = os.gammon.as_ref().map_or(Value::Null, distribution_json);
        s["epc"] = num(epc);
        s["wastage"] = num(epc - pips as f32);
        s["stored"] = match record {
            Record::OneSided { bearoff, gammon } => {
                json!({"bearoff": bearoff, "gammon": gammon})
            }
            Record::Normal(r) => nums(&r),
            _ => Value::Null,
        };
        v[if side == 1 { "player" } else { "opponent" }] = s;
        *slot = Some(*os);
    }
    let [Some(player), Some(opponent)] = values else {
        unreachable!()
    };
    rolls_table(&player, &opponent, gammons, pair, text);
    let both_on = pair.board.chequers(0) > 0 && pair.board.chequers(1) > 0;
    v["race"] = Value::Null;
    if both_on {
        let possible = pair.board.chequers(0) == 15 || pair.board.chequers(1) == 15;
        let r = race(&player, &opponent, gammons && possible);
        v["race"] = json!({"win": num(r[0]), "win_gammon": num(r[1]), "lose_gammon": num(r[3])});
        let _ = write!(
            text,
            "Race with Player on roll:\n{:<30}: {:.6}\n{:<30}: {:.6}\n{:<30}: {:.6}\n\n",
            "Win", r[0], "Win gammon", r[1], "Lose gammon", r[3]
        );
    }
    Ok(())
}

/// gnubg's "Rolls" table, "Average rolls" and "Effective pip count"
/// blocks. Unlike bearoffdump, the last row keeps its gammon columns
/// (bearoffdump overwrites them with the next heading).
fn rolls_table(
    player: &OneSidedValues,
    opponent: &OneSidedValues,
    gammons: bool,
    pair: &Pair,
    text: &mut String,
) {
    let zero = [0f32; 32];
    let (p0, p1) = (&player.bearoff.p, &opponent.bearoff.p);
    let g0 = player.gammon.as_ref().map_or(&zero, |g| &g.p);
    let g1 = opponent.gammon.as_ref().map_or(&zero, |g| &g.p);
    text.push_str("Bearing off \t\t\t\tBearing at least one chequer off\n");
    text.push_str("Rolls\tPlayer\tOpponent\tPlayer\tOpponent\n");
    let mut seen = [false; 4];
    for i in 0..32 {
        for (s, x) in seen.iter_mut().zip([p0[i], p1[i], g0[i], g1[i]]) {
            *s |= x > 0.0;
        }
        if !seen.iter().any(|&s| s) {
            continue;
        }
        let all_seen = seen[0] && seen[1] && ((seen[2] && seen[3]) || !gammons);
        let row_zero = p0[i] == 0.0 && p1[i] == 0.0 && ((g0[i] == 0.0 && g1[i] == 0.0) || !gammons);
        if all_seen && row_zero {
            break;
        }
        let _ = write!(
            text,
            "{i:5}\t{:7.3}\t{:7.3}\t\t",
            p0[i] * 100.0,
            p1[i] * 100.0
        );
        if gammons {
            let _ = writeln!(text, "{:7.3}\t{:7.3}", g0[i] * 100.0, g1[i] * 100.0);
        } else {
            text.push_str("n/a    \tn/a    \n");
        }
    }
    text.push_str(
        "\nAverage rolls\nBearing off\t\t\t\tSaving gammon\n\tPlayer\tOpponent\tPlayer\tOpponent\n",
    );
    let g_or_na = |f: fn(&databases::decode::RollDistribution) -> f32| match (
        &player.gammon,
        &opponent.gammon,
    ) {
        (Some(a), Some(b)) if gammons => format!("{:7.3}\t{:7.3}", f(a), f(b)),
        _ => "n/a    \tn/a    ".to_string(),
    };
    let _ = writeln!(
        text,
        "Mean\t{:7.3}\t{:7.3}\t\t{}",
        player.bearoff.mean,
        opponent.bearoff.mean,
        g_or_na(|d| d.mean)
    );
    let _ = writeln!(
        text,
        "Std dev\t{:7.3}\t{:7.3}\t\t{}",
        player.bearoff.sd,
        opponent.bearoff.sd,
        g_or_na(|d| d.sd)
    );
    let epc = [
        player.bearoff.mean * EPC_FACTOR,
        opponent.bearoff.mean * EPC_FACTOR,
    ];
    let pips = [pair.board.pips(1) as f32, pair.board.pips(0) as f32];
    let _ = write!(
        text,
        "\nEffective pip count:\n\tPlayer\tOpponent\nEPC\t{:7.3}\t{:7.3}\nWastage\t{:7.3}\t{:7.3}\n\n",
        epc[0],
        epc[1],
        epc[0] - pips[0],
        epc[1] - pips[1]
    );
    let _ = write!(
        text,
        "EPC = {EPC_FACTOR:5.3} * Average rolls\nWastage = EPC - pips\n\n"
    );
}

fn two_sided(t: &TwoSidedValues, text: &mut String, v: &mut Value) {
    let keys = [
        "cubeless",
        "owned_cube",
        "centered_cube",
        "opponent_owns_cube",
    ];
    let mut eq = json!({});
    for (k, (&e, name)) in t.stored().iter().zip(TwoSidedValues::NAMES).enumerate() {
        let _ = writeln!(text, "{name:<30}: {e:+7.4}");
        eq[keys[k]] = num(e);
    }
    text.push('\n');
    v["equities"] = eq;
}

fn hyper(h: &HyperValues, text: &mut String, v: &mut Value) {
    let mut eq = json!({});
    let keys = [
        "owned_cube",
        "centered_cube",
        "centered_cube_jacoby",
        "opponent_owns_cube",
    ];
    for ((&e, name), key) in h.equities.iter().zip(HyperValues::EQUITY_NAMES).zip(keys) {
        let _ = writeln!(text, "{name:<30}: {e:+7.4}");
        eq[key] = num(e);
    }
    text.push('\n');
    let mut pr = json!({});
    let keys = [
        "win",
        "win_gammon",
        "win_backgammon",
        "lose_gammon",
        "lose_backgammon",
    ];
    for ((&p, name), key) in h
        .probabilities
        .iter()
        .zip(HyperValues::PROBABILITY_NAMES)
        .zip(keys)
    {
        let _ = writeln!(text, "{name:<30}: {p:7.4}");
        pr[key] = num(p);
    }
    let _ = writeln!(text, "{:<30}: {:+7.4}\n", "Cubeless equity", h.cubeless());
    v["equities"] = eq;
    v["probabilities"] = pr;
    v["cubeless_equity"] = num(h.cubeless());
}
