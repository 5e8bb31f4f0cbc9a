//! Net inputs against gnubg's own vectors (reference movegen/inputs.tsv:
//! 50 positions per class, contact/crashed/race inputs and pruning inputs).

use board::Board;
use nets::inputs::{base_inputs, contact_inputs, crashed_inputs, race_inputs};
use nets::Arithmetic;

fn parse(list: &str) -> Vec<f32> {
    list.split(',').map(|v| v.parse().unwrap()).collect()
}

#[test]
fn inputs_match_gnubg_for_every_class() {
    let text = include_str!("fixtures/inputs.tsv");
    let mut checked = 0;
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let (id, class, net) = (f[0], f[1], f[2]);
        let board = Board::from_position_id(id).unwrap();
        let want = parse(f[4]);
        let mut got = vec![0f32; want.len()];
        match net {
            "contact" => contact_inputs(&board, &mut got, Arithmetic::Ieee),
            "crashed" => crashed_inputs(&board, &mut got, Arithmetic::Ieee),
            "race" => race_inputs(&board, &mut got, Arithmetic::Ieee),
            other => panic!("unknown net {other}"),
        }
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(
                g.to_bits(),
                w.to_bits(),
                "{id} ({class}) input {k}: {g} vs {w}"
            );
        }
        let want_base = parse(f[6]);
        let mut base = [0f32; 200];
        base_inputs(&board, &mut base);
        assert_eq!(base.as_slice(), want_base.as_slice(), "{id} base inputs");
        checked += 1;
    }
    assert_eq!(checked, 250);
}
