//! `bearoff dump` shows the values gnubg 1.07's bearoffdump printed for the
//! positions in shared/reference (copied to tests/fixtures).

mod common;

use common::*;
use std::collections::HashMap;

/// Rows of a reference TSV as column name → value maps.
fn read_tsv(text: &str) -> Vec<HashMap<String, String>> {
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("header line").split('\t').collect();
    lines
        .filter(|l| !l.is_empty())
        .map(|l| {
            header
                .iter()
                .zip(l.split('\t'))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

/// What a one-sided text dump shows, as printed strings.
#[derive(Debug, Default)]
struct OneSidedDump {
    position_id: String,
    indices: Vec<String>,
    /// Per row: roll, player, opponent, player gammon, opponent gammon.
    rows: Vec<Vec<String>>,
    mean: Vec<String>,
    sd: Vec<String>,
    epc: Vec<String>,
    wastage: Vec<String>,
}

fn cells(line: &str) -> Vec<String> {
    line.split('\t')
        .map(|c| c.trim().to_string())
        .filter(|c| !c.is_empty())
        .collect()
}

fn position_id(text: &str) -> String {
    text.lines()
        .find_map(|l| l.strip_prefix("Position ID     : "))
        .expect("a Position ID line")
        .to_string()
}

fn indices(text: &str) -> Vec<String> {
    let line = text
        .lines()
        .find(|l| l.starts_with("Position ") && !l.starts_with("Position ID"))
        .expect("a Position line");
    line.split_whitespace().skip(1).map(String::from).collect()
}

fn parse_one_sided(text: &str) -> OneSidedDump {
    let mut d = OneSidedDump {
        position_id: position_id(text),
        indices: indices(text),
        ..Default::default()
    };
    let mut in_table = false;
    for line in text.lines() {
        if line.starts_with("Rolls\t") {
            in_table = true;
            continue;
        }
        if in_table && line.is_empty() {
            in_table = false;
        }
        if in_table {
            d.rows.push(cells(line));
        }
        let c = cells(line);
        match c.first().map(String::as_str) {
            Some("Mean") => d.mean = c[1..].to_vec(),
            Some("Std dev") => d.sd = c[1..].to_vec(),
            Some("EPC") => d.epc = c[1..].to_vec(),
            Some("Wastage") => d.wastage = c[1..].to_vec(),
            _ => {}
        }
    }
    d
}

#[test]
fn one_sided_dumps_match_bearoffdump_reference() {
    let db = gnubg_file(GNUBG_OS0);
    let rows = read_tsv(include_str!("fixtures/bearoffdump_os6.tsv"));
    assert_eq!(rows.len(), 200);
    for row in &rows {
        let index = &row["index"];
        let text = bearoff_ok(&["dump", s(&db), "--index", index]);
        let d = parse_one_sided(&text);
        let ctx = format!("index {index}");
        assert_eq!(d.position_id, row["posid"], "{ctx}");
        assert_eq!(
            d.indices,
            [row["player_index"].as_str(), row["opponent_index"].as_str()],
            "{ctx}"
        );
        let max_rolls: usize = row["max_rolls"].parse().unwrap();
        assert_eq!(d.rows.len(), max_rolls + 1, "{ctx}: rows shown");
        for (r, cols) in d.rows.iter().enumerate() {
            assert_eq!(cols[0], r.to_string(), "{ctx}");
        }
        let off: Vec<&str> = d.rows.iter().map(|c| c[2].as_str()).collect();
        let want: Vec<&str> = row["p_off_pct"].split(',').collect();
        assert_eq!(off, want, "{ctx}: bearing off, opponent");
        // bearoffdump drops the last row's gammon columns; we show them.
        let gammon: Vec<&str> = d.rows.iter().map(|c| c[4].as_str()).collect();
        let want: Vec<&str> = row["p_first_off_pct"].split(',').collect();
        assert_eq!(
            gammon[..gammon.len() - 1],
            want[..],
            "{ctx}: first chequer off, opponent"
        );
        assert_eq!(d.mean[1], row["mean_rolls_off"], "{ctx}");
        assert_eq!(d.sd[1], row["sd_rolls_off"], "{ctx}");
        assert_eq!(d.mean[3], row["mean_rolls_save_gammon"], "{ctx}");
        assert_eq!(d.sd[3], row["sd_rolls_save_gammon"], "{ctx}");
        assert_eq!(d.epc[1], row["epc"], "{ctx}");
        assert_eq!(d.wastage[1], row["wastage"], "{ctx}");
    }
}

/// The equity lines of a two-sided text dump, by name.
fn equities(text: &str) -> HashMap<String, String> {
    text.lines()
        .filter_map(|l| l.split_once(": "))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect()
}

#[test]
fn two_sided_dumps_match_bearoffdump_reference() {
    let db = gnubg_file(GNUBG_TS0);
    let rows = read_tsv(include_str!("fixtures/bearoffdump_ts6.tsv"));
    assert_eq!(rows.len(), 200);
    for row in &rows {
        let index = &row["index"];
        let text = bearoff_ok(&["dump", s(&db), "--index", index]);
        let ctx = format!("index {index}");
        assert_eq!(position_id(&text), row["posid"], "{ctx}");
        assert_eq!(
            indices(&text),
            [row["player_index"].as_str(), row["opponent_index"].as_str()],
            "{ctx}"
        );
        let eq = equities(&text);
        for (name, column) in [
            ("Cubeless equity", "cubeless"),
            ("Owned cube", "owned_cube"),
            ("Centered cube", "centered_cube"),
            ("Opponent owns cube", "opponent_owns_cube"),
        ] {
            assert_eq!(eq[name], row[column], "{ctx}: {name}");
        }
    }
}

/// The part of a text dump from the "Player / Opponent" heading on.
fn from_heading(text: &str) -> &str {
    let at = text.find("             Player").expect("heading");
    &text[at..]
}

#[test]
fn position_ids_and_boards_find_the_same_records() {
    let os = gnubg_file(GNUBG_OS0);
    let ts = gnubg_file(GNUBG_TS0);
    let os_rows = read_tsv(include_str!("fixtures/bearoffdump_os6.tsv"));
    let ts_rows = read_tsv(include_str!("fixtures/bearoffdump_ts6.tsv"));
    for (db, rows) in [(&os, &os_rows), (&ts, &ts_rows)] {
        for row in rows.iter().step_by(10) {
            let by_index = bearoff_ok(&["dump", s(db), "--index", &row["index"]]);
            let by_id = bearoff_ok(&["dump", s(db), "--id", &row["posid"]]);
            assert_eq!(
                from_heading(&by_id),
                from_heading(&by_index),
                "{}",
                row["posid"]
            );
            let json = bearoff_ok(&["dump", s(db), "--index", &row["index"], "--json"]);
            let v: serde_json::Value = serde_json::from_str(&json).unwrap();
            let layout = |side: &str| {
                v[side]["layout"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            let board = if db == &ts {
                format!("{} / {}", layout("player"), layout("opponent"))
            } else {
                layout("opponent")
            };
            let by_board = bearoff_ok(&["dump", s(db), "--board", &board]);
            assert_eq!(from_heading(&by_board), from_heading(&by_index), "{board}");
            assert_eq!(v["position_id"], row["posid"].as_str());
        }
    }
}

#[test]
fn json_dumps_hold_the_printed_values() {
    let os = gnubg_file(GNUBG_OS0);
    let rows = read_tsv(include_str!("fixtures/bearoffdump_os6.tsv"));
    for row in rows.iter().step_by(25) {
        let json = bearoff_ok(&["dump", s(&os), "--index", &row["index"], "--json"]);
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let opp = &v["opponent"];
        assert_eq!(opp["index"].to_string(), row["index"]);
        let f = |x: &serde_json::Value| x.as_f64().unwrap() as f32;
        let printed = |x: f32| format!("{x:.3}");
        let p: Vec<String> = opp["bearoff"]["probabilities"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| printed(f(x) * 100.0))
            .collect();
        let want: Vec<&str> = row["p_off_pct"].split(',').collect();
        assert_eq!(p[..want.len()], want[..]);
        assert_eq!(printed(f(&opp["bearoff"]["mean"])), row["mean_rolls_off"]);
        assert_eq!(printed(f(&opp["bearoff"]["sd"])), row["sd_rolls_off"]);
        assert_eq!(printed(f(&opp["epc"])), row["epc"]);
    }
    let ts = gnubg_file(GNUBG_TS0);
    let rows = read_tsv(include_str!("fixtures/bearoffdump_ts6.tsv"));
    for row in rows.iter().step_by(25) {
        let json = bearoff_ok(&["dump", s(&ts), "--index", &row["index"], "--json"]);
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["record"].to_string(), row["index"]);
        for key in [
            "cubeless",
            "owned_cube",
            "centered_cube",
            "opponent_owns_cube",
        ] {
            let e = v["equities"][key].as_f64().unwrap() as f32;
            assert_eq!(format!("{e:+.4}"), row[key], "{key}");
        }
    }
}
