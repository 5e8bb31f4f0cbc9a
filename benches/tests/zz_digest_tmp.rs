use board::Board;
use nets::inputs::contact_inputs;
use nets::Arithmetic;
use rand_mt::Mt;
use trainer::evaluator_args::EvaluatorArgs;

#[test]
fn digest() {
    let mut rng = Mt::new(42);
    let mut h: u64 = 0xcbf29ce484222325;
    let mut out = vec![0f32; 250];
    let mut feed = |b: &Board, h: &mut u64| {
        contact_inputs(b, &mut out, Arithmetic::GnubgFastMath);
        for v in &out {
            *h = (*h ^ u64::from(v.to_bits())).wrapping_mul(0x100000001b3);
        }
    };
    for n in 0..300_000u32 {
        let mut b = calibrate::random_board(&mut rng);
        if n % 3 == 1 {
            for _ in 0..(1 + n % 2) {
                let k = (rng.next_u32() % 24) as usize;
                if b.sides[1][k] > 0 {
                    b.sides[1][k] -= 1;
                    b.sides[1][24] += 1;
                }
            }
        }
        if n % 5 == 2 {
            let k = (rng.next_u32() % 24) as usize;
            if b.sides[0][k] > 0 {
                b.sides[0][k] -= 1;
                b.sides[0][24] += 1;
            }
        }
        feed(&b, &mut h);
        feed(&b.swapped(), &mut h);
    }
    let ids = std::fs::read_to_string("../../shared/reference/evals_public.tsv").unwrap();
    for line in ids.lines().skip(1) {
        let id = line.split('\t').next().unwrap();
        feed(&Board::from_position_id(id).unwrap(), &mut h);
    }
    println!("DIGEST {h:016x}");
    for arith in [
        Arithmetic::GnubgFastMath,
        Arithmetic::Ieee,
        Arithmetic::Reference,
    ] {
        let args = EvaluatorArgs {
            ieee: arith == Arithmetic::Ieee,
            reference: arith == Arithmetic::Reference,
            ..Default::default()
        };
        let ev = args.build().unwrap();
        let mut s = ev.scratch();
        let mut rng = Mt::new(9);
        let mut h: u64 = 0xcbf29ce484222325;
        for _ in 0..100_000 {
            let b = calibrate::random_board(&mut rng);
            for v in ev.evaluate(&b, &mut s).outputs {
                h = (h ^ u64::from(v.to_bits())).wrapping_mul(0x100000001b3);
            }
        }
        println!("EVAL DIGEST {arith:?} {h:016x}");
    }
}
