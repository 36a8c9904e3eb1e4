//! Prints generated programs: `cargo run -p mrtr-differential --bin sample -- <seed> <index>..`
//! shows each handler, what the macro says about it and the oracle's live sets.

use mrtr_differential::program::batch::CaseSpec;
use mrtr_differential::program::emit::{self, Mode};
use mrtr_differential::program::{liveness, reject};

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("numbers"))
        .collect();
    let seed = args.first().copied().unwrap_or(mrtr_differential::ci::SEED);
    for &index in args.get(1..).unwrap_or(&[]) {
        let (case, _) = CaseSpec::seeded(seed, index as usize, 3);
        println!(
            "{}",
            emit::handler(&case.program, &case.name, Mode::Lowered)
        );
        println!("args: {}  scripts: {:x?}", case.args, case.scripts);
        println!("rejections: {:?}", reject::rejections(&case.program));
        let wire = liveness::wire_names(&case.program);
        for (site, live) in liveness::live_after_asks(&case.program) {
            let names: Vec<&String> = live.iter().map(|v| &wire[v]).collect();
            println!("site {site}: live {names:?}");
        }
        println!(
            "carry mismatches: {:?}\n",
            reject::carry_mismatches(&case.program)
        );
    }
}
