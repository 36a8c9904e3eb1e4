//! `requestState` seal+open: mrtr's sealer against rmcp 3.11's `RequestStateCodec`.
//!
//! Both sides carry the porting guide's deploy continuation (step `awaiting_env`, a plan id, a
//! plan digest, the request binding and an expiry). rmcp signs the guide's hand-written JSON
//! (`{"step","bind","data":{"planId","digest"},"exp"}`) with `seal_json_with` and a TTL; mrtr
//! seals the equivalent `Continuation`, whose carried bytes are the CBOR of the same plan id and
//! digest. A setup step prints both token sizes and a time ratio before criterion's groups run.
//!
//! Run: `cargo bench -p mrtr --bench seal`; add `MRTR_BENCH_BREAKDOWN=1` to also time the
//! AEAD alone at several message sizes, one HMAC, one `getrandom` and seal and open separately.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use criterion::{Criterion, criterion_group, criterion_main};
use mrtr::__bench::{
    Asks, Binding, Continuation, InputMethod, InputRequest, Sealer, bind_digest, frame_bytes,
    frame_carried, sealer,
};
use mrtr::config::{KeyRing, StateConfig, StateKey, StateMode};
use rmcp::model::{RequestStateCodec, SealOptions};
use serde::{Deserialize, Serialize};
use serde_json::json;

const PLAN_ID: &str = "plan_01JDQ8ZB3K5X7M2N4P6R8T0V2W";
const PLAN_DIGEST: &str = "9f2c1e7ab04d5c38e6f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7";
const TTL: Duration = Duration::from_secs(300);

/// The porting guide's continuation, as its TypeScript example writes it.
#[derive(Serialize, Deserialize)]
struct JsonContinuation {
    step: String,
    bind: String,
    data: JsonPlan,
    exp: u64,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonPlan {
    plan_id: String,
    digest: String,
}

struct Fixture {
    binding: Binding,
    continuation: Continuation,
    /// The same continuation with the pending `target_env` ask, which mrtr's machine stores so
    /// it can re-ask without re-running code (the hand-written JSON has no equivalent).
    continuation_with_ask: Continuation,
    aead: Sealer,
    hmac: Sealer,
    bind_hex: String,
    rmcp_rs1: RequestStateCodec,
    rmcp_rs2: RequestStateCodec,
}

fn fixture() -> Fixture {
    let arguments = json!({"service": "checkout-api"});
    let bind = bind_digest("tools/call", "deploy_service", arguments.as_object());
    let binding = Binding {
        bind,
        principal: None,
    };
    let mut carried = Vec::new();
    ciborium::into_writer(&PLAN_ID, &mut carried).unwrap();
    ciborium::into_writer(&PLAN_DIGEST, &mut carried).unwrap();
    let continuation = Continuation {
        step: "awaiting_env".into(),
        fingerprint: 0x5eed_0fde_910c_a11e,
        round: 1,
        pending: Asks::new(),
        answered: BTreeMap::new(),
        carried,
    };
    let mut continuation_with_ask = continuation.clone();
    continuation_with_ask.pending.insert(
        "target_env".into(),
        InputRequest::new(
            InputMethod::Elicitation,
            Some(json!({
                "mode": "form",
                "message": "Deploy \"checkout-api\" — which environment?",
                "requestedSchema": {
                    "type": "object",
                    "properties": {"environment": {"type": "string", "enum": ["staging", "production"], "description": "Deployment target"}},
                    "required": ["environment"]
                }
            })),
        ),
    );
    let secret = vec![0x5a; 32];
    let ring = KeyRing::new(StateKey::new("k1", secret.clone()).unwrap());
    let config = StateConfig::new("deploy-server", ring).with_ttl(TTL);
    Fixture {
        binding,
        continuation,
        continuation_with_ask,
        aead: sealer(&config).unwrap(),
        hmac: sealer(&config.clone().with_mode(StateMode::Hmac)).unwrap(),
        bind_hex: bind.0.iter().map(|b| format!("{b:02x}")).collect(),
        rmcp_rs1: RequestStateCodec::try_new(secret.clone()).unwrap(),
        rmcp_rs2: RequestStateCodec::new_with_keyring("k1", [("k1", secret)]).unwrap(),
    }
}

fn mrtr_round(sealer: &Sealer, continuation: &Continuation, binding: &Binding) -> usize {
    let token = sealer.seal(continuation, binding).unwrap();
    let opened = sealer.open(black_box(&token), binding).unwrap();
    black_box(opened.continuation.carried.len())
}

/// One round of the flat handler as the nesting comparison runs it: the step's carried bytes
/// are saved afresh into a new continuation, sealed, opened.
fn mrtr_flat_round(sealer: &Sealer, continuation: &Continuation, binding: &Binding) -> usize {
    let flat = Continuation {
        carried: continuation.carried.to_vec(),
        ..continuation.clone()
    };
    let token = sealer.seal(&flat, binding).unwrap();
    let opened = sealer.open(black_box(&token), binding).unwrap();
    black_box(opened.continuation.carried.len())
}

/// The same continuation suspended one helper deep: the plan id and digest are the helper's
/// carried locals, wrapped in its frame as the caller's one slot. What a nested round adds on
/// this path: encoding the frame at the suspension and decoding it at the resume.
fn mrtr_nested_round(sealer: &Sealer, continuation: &Continuation, binding: &Binding) -> usize {
    let nested = Continuation {
        step: "AtGate".into(),
        carried: frame_bytes(1, 0x0dd5_eed0_f00d_cafe, continuation.carried.to_vec()),
        ..continuation.clone()
    };
    let token = sealer.seal(&nested, binding).unwrap();
    let opened = sealer.open(black_box(&token), binding).unwrap();
    black_box(frame_carried(&opened.continuation.carried).unwrap().len())
}

/// What the guide's `sign`/`verify` pair does, on rmcp's codec: seal with a TTL, then open,
/// parse, and check the step and the binding before trusting the data.
fn rmcp_round(codec: &RequestStateCodec, bind_hex: &str) -> usize {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let continuation = JsonContinuation {
        step: "awaiting_env".into(),
        bind: bind_hex.to_owned(),
        data: JsonPlan {
            plan_id: PLAN_ID.into(),
            digest: PLAN_DIGEST.into(),
        },
        exp: now + TTL.as_millis() as u64,
    };
    let token = codec
        .seal_json_with(&continuation, &SealOptions::new().ttl(TTL))
        .unwrap();
    let opened: JsonContinuation = codec.open_json(black_box(&token)).unwrap();
    assert!(opened.step == "awaiting_env" && opened.bind == bind_hex && opened.exp > now);
    black_box(opened.data.plan_id.len())
}

/// Best of several interleaved batches: the minimum is the figure least disturbed by the
/// other jobs on a shared two-core machine.
fn nanos_per_round(mut round: impl FnMut() -> usize, other: &mut impl FnMut() -> usize) -> f64 {
    const BATCH: u32 = 20_000;
    let mut best = f64::MAX;
    for _ in 0..7 {
        let start = Instant::now();
        for _ in 0..BATCH {
            round();
        }
        best = best.min(start.elapsed().as_nanos() as f64 / f64::from(BATCH));
        for _ in 0..BATCH / 4 {
            other();
        }
    }
    best
}

fn report(f: &Fixture) {
    let mrtr_aead = f.aead.seal(&f.continuation, &f.binding).unwrap();
    let mrtr_hmac = f.hmac.seal(&f.continuation, &f.binding).unwrap();
    let mrtr_with_ask = f.aead.seal(&f.continuation_with_ask, &f.binding).unwrap();
    let json = JsonContinuation {
        step: "awaiting_env".into(),
        bind: f.bind_hex.clone(),
        data: JsonPlan {
            plan_id: PLAN_ID.into(),
            digest: PLAN_DIGEST.into(),
        },
        exp: 1_764_450_300_000,
    };
    let options = SealOptions::new().ttl(TTL);
    let rs1 = f.rmcp_rs1.seal_json_with(&json, &options).unwrap();
    let rs2 = f.rmcp_rs2.seal_json_with(&json, &options).unwrap();

    println!("requestState sizes for the deploy continuation (bytes on the wire):");
    println!(
        "  rmcp RequestStateCodec rs1 (single key, HMAC): {}",
        rs1.len()
    );
    println!(
        "  rmcp RequestStateCodec rs2 (key ring, HMAC):   {}",
        rs2.len()
    );
    println!(
        "  mrtr x2 (XChaCha20-Poly1305):                  {}  = {:.3}x rs1",
        mrtr_aead.len(),
        ratio(mrtr_aead.len(), rs1.len())
    );
    println!(
        "  mrtr h2 (HMAC-SHA256, sign-only):              {}  = {:.3}x rs1",
        mrtr_hmac.len(),
        ratio(mrtr_hmac.len(), rs1.len())
    );
    println!(
        "  mrtr x2 with the pending target_env ask:       {}  (what the machine really seals: it re-asks without re-running code)",
        mrtr_with_ask.len()
    );
    let mut nested = f.continuation.clone();
    nested.carried = frame_bytes(1, 0x0dd5_eed0_f00d_cafe, nested.carried.clone());
    let mrtr_nested = f.aead.seal(&nested, &f.binding).unwrap();
    println!(
        "  mrtr x2 suspended one helper deep:             {}  (the same locals inside the helper's frame)",
        mrtr_nested.len()
    );

    // `cargo test --all-targets` runs this file once, unoptimised, without `--bench`: the sizes
    // are cheap and still printed, the timing loops are left to real bench runs.
    if !std::env::args().any(|arg| arg == "--bench") {
        return;
    }
    let mut rmcp = || rmcp_round(&f.rmcp_rs1, &f.bind_hex);
    let mut aead = || mrtr_round(&f.aead, &f.continuation, &f.binding);
    let mut hmac = || mrtr_round(&f.hmac, &f.continuation, &f.binding);
    let rmcp_ns = nanos_per_round(&mut rmcp, &mut aead);
    let aead_ns = nanos_per_round(&mut aead, &mut rmcp);
    let hmac_ns = nanos_per_round(&mut hmac, &mut rmcp);
    let mut nested = || mrtr_nested_round(&f.aead, &f.continuation, &f.binding);
    let mut flat = || mrtr_flat_round(&f.aead, &f.continuation, &f.binding);
    let nested_ns = nanos_per_round(&mut nested, &mut flat);
    let flat_ns = nanos_per_round(&mut flat, &mut nested);
    println!("seal+open time per round (best of 7 batches of 20000):");
    println!("  rmcp rs1:  {rmcp_ns:.0} ns");
    println!(
        "  mrtr x2:   {aead_ns:.0} ns  = {:.3}x rmcp",
        aead_ns / rmcp_ns
    );
    println!(
        "  mrtr h2:   {hmac_ns:.0} ns  = {:.3}x rmcp",
        hmac_ns / rmcp_ns
    );
    println!(
        "  mrtr x2 one helper deep: {nested_ns:.0} ns  = {:.3}x the flat x2 measured beside it ({flat_ns:.0} ns; target <= 1.2x)",
        nested_ns / flat_ns
    );
    let frame_ns = nanos_per_round(
        || {
            let bytes = frame_bytes(1, 7, f.continuation.carried.to_vec());
            black_box(frame_carried(&bytes).unwrap().len())
        },
        &mut flat,
    );
    println!("  of which the frame's encode + decode: {frame_ns:.0} ns");
    if std::env::var_os("MRTR_BENCH_BREAKDOWN").is_some() {
        breakdown(f);
    }
}

fn breakdown(f: &Fixture) {
    use chacha20poly1305::aead::{AeadInOut, KeyInit};
    let cipher = chacha20poly1305::XChaCha20Poly1305::new(&[7u8; 32].into());
    let nonce = chacha20poly1305::XNonce::from([1u8; 24]);
    let mut buffer = vec![0u8; 200];
    let mut other = || 0;
    let encrypt = nanos_per_round(
        || {
            let tag = cipher
                .encrypt_inout_detached(&nonce, b"x1.k1.", buffer.as_mut_slice().into())
                .unwrap();
            black_box(tag.len())
        },
        &mut other,
    );
    for len in [0usize, 64, 200, 2000] {
        let mut buffer = vec![0u8; len];
        let x = nanos_per_round(
            || {
                black_box(
                    cipher
                        .encrypt_inout_detached(&nonce, b"x1.k1.", buffer.as_mut_slice().into())
                        .unwrap()
                        .len(),
                )
            },
            &mut other,
        );
        let ietf = chacha20poly1305::ChaCha20Poly1305::new(&[7u8; 32].into());
        let short_nonce = chacha20poly1305::Nonce::from([1u8; 12]);
        let i = nanos_per_round(
            || {
                black_box(
                    ietf.encrypt_inout_detached(
                        &short_nonce,
                        b"x1.k1.",
                        buffer.as_mut_slice().into(),
                    )
                    .unwrap()
                    .len(),
                )
            },
            &mut other,
        );
        println!("breakdown: {len} B: XChaCha20-Poly1305 {x:.0} ns, ChaCha20-Poly1305 {i:.0} ns");
    }
    let token_text = f.aead.seal(&f.continuation, &f.binding).unwrap();
    let hmac = nanos_per_round(
        || {
            use hmac::{KeyInit as _, Mac};
            let mac = <hmac::Hmac<sha2::Sha256>>::new_from_slice(&[9u8; 32]).unwrap();
            black_box(
                mac.chain_update(token_text.as_bytes())
                    .finalize()
                    .into_bytes()[0] as usize,
            )
        },
        &mut other,
    );
    println!(
        "breakdown: HMAC-SHA256 over the {} B token {hmac:.0} ns",
        token_text.len()
    );
    let random = nanos_per_round(
        || {
            let mut nonce = [0u8; 24];
            getrandom::fill(&mut nonce).unwrap();
            black_box(nonce[0] as usize)
        },
        &mut other,
    );
    let token = f.aead.seal(&f.continuation, &f.binding).unwrap();
    let seal = nanos_per_round(
        || black_box(f.aead.seal(&f.continuation, &f.binding).unwrap().len()),
        &mut other,
    );
    let open = nanos_per_round(
        || black_box(f.aead.open(&token, &f.binding).unwrap().expires_at as usize),
        &mut other,
    );
    println!(
        "breakdown: XChaCha20-Poly1305 encrypt 200 B {encrypt:.0} ns, getrandom 24 B {random:.0} ns, x2 seal {seal:.0} ns, x2 open {open:.0} ns"
    );
}

fn ratio(a: usize, b: usize) -> f64 {
    a as f64 / b as f64
}

fn bench(c: &mut Criterion) {
    let f = fixture();
    report(&f);
    let mut group = c.benchmark_group("seal+open");
    group.bench_function("rmcp_rs1_json", |b| {
        b.iter(|| rmcp_round(&f.rmcp_rs1, &f.bind_hex))
    });
    group.bench_function("mrtr_x1_aead", |b| {
        b.iter(|| mrtr_round(&f.aead, &f.continuation, &f.binding))
    });
    group.bench_function("mrtr_h1_hmac", |b| {
        b.iter(|| mrtr_round(&f.hmac, &f.continuation, &f.binding))
    });
    group.bench_function("mrtr_x1_aead_flat_rebuilt", |b| {
        b.iter(|| mrtr_flat_round(&f.aead, &f.continuation, &f.binding))
    });
    group.bench_function("mrtr_x1_aead_one_helper_deep", |b| {
        b.iter(|| mrtr_nested_round(&f.aead, &f.continuation, &f.binding))
    });
    group.finish();
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
