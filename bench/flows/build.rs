//! Writes the ballast's table of pieces (`src/ballast.rs`): one entry per distinct function,
//! too many to list by hand and, without const generic expressions, to generate with a macro.

use std::fmt::Write as _;

fn main() {
    let mut table = String::from("static PIECES: [fn(u64) -> u64; PIECE_COUNT] = [\n");
    for n in 0..2048 {
        writeln!(table, "    piece::<{n}>,").expect("writing to a String");
    }
    table.push_str("];\n");
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    std::fs::write(format!("{out}/ballast_pieces.rs"), table).expect("OUT_DIR is writable");
    println!("cargo::rerun-if-changed=build.rs");
}
