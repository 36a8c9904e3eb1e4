//! Carried locals saved and restored, as every suspended round does: mrtr's CBOR codec against
//! ciborium as the runtime used it before (`into_writer`, `from_reader_with_buffer` with one
//! reused scratch buffer) and serde_json (what a hand port that carries its state as JSON runs).
//!
//! The values are `staged_rollout`'s carried locals (its plan, the waves left, the wave number)
//! and `summarize_incidents`' incidents, shaped as the example's. A setup step prints each
//! codec's byte count before criterion's groups run.
//!
//! Run: `cargo bench -p mrtr --bench carry`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use mrtr::__bench::{carry_restore, carry_save};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct DeployPlan {
    id: String,
    digest: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Incident {
    id: String,
    service: String,
    severity: String,
    title: String,
}

/// One round's carried locals, each saved and restored as a slot of its own.
#[derive(Clone, Debug, PartialEq)]
struct Carried {
    plan: DeployPlan,
    waves: Vec<String>,
    wave: usize,
    incidents: Vec<Incident>,
}

fn carried() -> Carried {
    let incident = |id: &str, severity: &str, title: &str| Incident {
        id: id.into(),
        service: "checkout".into(),
        severity: severity.into(),
        title: title.into(),
    };
    Carried {
        plan: DeployPlan {
            id: "plan-checkout-42fbb2".into(),
            digest: "42fbb229c28a2459".into(),
        },
        waves: ["canary", "eu-west", "us-east", "ap-south"]
            .map(String::from)
            .to_vec(),
        wave: 2,
        incidents: vec![
            incident("INC-1041", "high", "p99 latency above 2 s on /pay"),
            incident("INC-1042", "medium", "card declines spiking after 1.4.1"),
            incident("INC-1043", "low", "stale currency rates in eu-west"),
        ],
    }
}

/// A codec as the runtime's slots use one: append a value, read one from the front.
trait Codec {
    fn save<T: Serialize>(&mut self, value: &T, out: &mut Vec<u8>);
    fn restore<T: for<'de> Deserialize<'de>>(&mut self, input: &mut &[u8]) -> T;
}

struct Mrtr;

impl Codec for Mrtr {
    fn save<T: Serialize>(&mut self, value: &T, out: &mut Vec<u8>) {
        carry_save(value, out).expect("encodes");
    }

    fn restore<T: for<'de> Deserialize<'de>>(&mut self, input: &mut &[u8]) -> T {
        carry_restore(input).expect("decodes")
    }
}

/// ciborium with one scratch buffer for every value, as the runtime kept one per thread.
struct Ciborium(Vec<u8>);

impl Codec for Ciborium {
    fn save<T: Serialize>(&mut self, value: &T, out: &mut Vec<u8>) {
        ciborium::into_writer(value, out).expect("encodes");
    }

    fn restore<T: for<'de> Deserialize<'de>>(&mut self, input: &mut &[u8]) -> T {
        ciborium::de::from_reader_with_buffer(input, &mut self.0).expect("decodes")
    }
}

struct Json;

impl Codec for Json {
    fn save<T: Serialize>(&mut self, value: &T, out: &mut Vec<u8>) {
        serde_json::to_writer(out, value).expect("encodes");
    }

    fn restore<T: for<'de> Deserialize<'de>>(&mut self, input: &mut &[u8]) -> T {
        let mut values = serde_json::Deserializer::from_slice(input).into_iter::<T>();
        let value = values.next().expect("a value").expect("decodes");
        *input = &input[values.byte_offset()..];
        value
    }
}

fn save_all(codec: &mut impl Codec, carried: &Carried, out: &mut Vec<u8>) {
    codec.save(&carried.plan, out);
    codec.save(&carried.waves, out);
    codec.save(&carried.wave, out);
    codec.save(&carried.incidents, out);
}

fn restore_all(codec: &mut impl Codec, mut input: &[u8]) -> Carried {
    let carried = Carried {
        plan: codec.restore(&mut input),
        waves: codec.restore(&mut input),
        wave: codec.restore(&mut input),
        incidents: codec.restore(&mut input),
    };
    assert!(input.is_empty(), "bytes left after the carried locals");
    carried
}

/// One suspension's save and the next round's restore.
fn round_trip(codec: &mut impl Codec, carried: &Carried, out: &mut Vec<u8>) -> Carried {
    out.clear();
    save_all(codec, carried, out);
    restore_all(codec, out)
}

fn bench(c: &mut Criterion) {
    let value = carried();
    let mut out = Vec::new();
    for (name, bytes) in [
        ("mrtr cbor", round_trip_len(&mut Mrtr, &value)),
        (
            "ciborium",
            round_trip_len(&mut Ciborium(vec![0; 4096]), &value),
        ),
        ("serde_json", round_trip_len(&mut Json, &value)),
    ] {
        eprintln!("carry: {name}: {bytes} bytes");
    }

    let mut group = c.benchmark_group("carry save+restore");
    group.bench_function("mrtr_cbor", |b| {
        b.iter(|| round_trip(&mut Mrtr, black_box(&value), &mut out))
    });
    let mut ciborium = Ciborium(vec![0; 4096]);
    group.bench_function("ciborium", |b| {
        b.iter(|| round_trip(&mut ciborium, black_box(&value), &mut out))
    });
    group.bench_function("serde_json", |b| {
        b.iter(|| round_trip(&mut Json, black_box(&value), &mut out))
    });
    group.finish();
}

/// The bytes one round carries; checks on the way that the value comes back whole.
fn round_trip_len(codec: &mut impl Codec, value: &Carried) -> usize {
    let mut out = Vec::new();
    assert_eq!(&round_trip(codec, value, &mut out), value);
    out.len()
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(50);
    targets = bench
}
criterion_main!(benches);
