//! The program side: generate handler bodies, print them in both forms, and the oracles that
//! need no compiler (the macro's rejections, carried sets against an independent liveness).
//!
//! Also compiled into `build.rs` through `#[path]`, which generates the CI batch from it.

pub mod ast;
pub mod batch;
pub mod choice;
pub mod emit;
pub mod generate;
pub mod liveness;
pub mod reduce;
pub mod reject;
pub mod script;
pub mod shrink;
