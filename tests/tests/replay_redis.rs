//! `RedisReplayGuard` against a real `redis-server` started by each test: a continuation
//! leased by the round that presents it and spent once that round answers, across two
//! `Runtime`s (two instances behind a load balancer); a lease whose round never answered taken
//! over; a continuation refused before the body ran given back; expiry; Redis stopped mid-test
//! under both policies and mid-round; reconnection after Redis restarts.

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use mrtr::replay::{Claim, IdempotencyKey, ReplayGuard};
use mrtr::replay_redis::{RedisGuardConfig, RedisReplayGuard, Unreachable};
use mrtr::testing::*;
use mrtr::{StepKey, ask, mrtr_tool};
use mrtr_tests::redis::RedisServer;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, tool, tool_router};
use serde_json::json;
use tokio::sync::Semaphore;

#[derive(Debug, Clone, serde::Deserialize, mrtr::Elicit)]
struct Confirm {
    ok: bool,
}

/// A deploy with one question, its back end shared by every instance: the deploy is
/// idempotent by the round's `StepKey`, as the README asks of effects under single use.
#[derive(Clone)]
struct Deploys {
    /// How often the deploy code ran (a round taken over runs it again).
    runs: Arc<AtomicUsize>,
    /// The deploys the back end made, by idempotency key.
    deployed: Arc<Mutex<HashSet<IdempotencyKey>>>,
    /// A round takes a permit here after its deploy and before it answers; this instance's
    /// own, so that one instance can be held mid-round (as if it had died there).
    answer_gate: Arc<Semaphore>,
}

impl Default for Deploys {
    fn default() -> Self {
        Deploys {
            runs: Arc::default(),
            deployed: Arc::default(),
            answer_gate: Arc::new(Semaphore::new(Semaphore::MAX_PERMITS)),
        }
    }
}

impl Deploys {
    fn runs(&self) -> usize {
        self.runs.load(Ordering::SeqCst)
    }

    fn effects(&self) -> usize {
        self.deployed.lock().unwrap().len()
    }

    /// The same back end, on an instance whose rounds stop after their deploy until a permit
    /// is added.
    fn held_mid_round(&self) -> Deploys {
        Deploys {
            answer_gate: Arc::new(Semaphore::new(0)),
            ..self.clone()
        }
    }
}

#[tool_router]
impl Deploys {
    #[mrtr_tool]
    #[tool(description = "deploy after confirmation")]
    async fn deploy(&self, step: StepKey) -> Result<CallToolResult, ErrorData> {
        let confirm = ask!(confirm: elicit::<Confirm>("Deploy?"));
        let ok = confirm.accepted().is_some_and(|c| c.ok);
        self.runs.fetch_add(1, Ordering::SeqCst);
        if let Some(key) = step.get() {
            self.deployed.lock().unwrap().insert(key);
        }
        self.answer_gate
            .acquire()
            .await
            .expect("the gate is never closed")
            .forget();
        Ok(CallToolResult::success(vec![ContentBlock::text(format!(
            "deployed {ok}"
        ))]))
    }
}

/// Another build of `deploy`: it carries a local across the ask, so its step's layout differs
/// and each build refuses the other's continuations.
#[derive(Clone, Default)]
struct NextBuild;

#[tool_router]
impl NextBuild {
    #[mrtr_tool]
    #[tool(description = "deploy after confirmation")]
    async fn deploy(&self) -> Result<CallToolResult, ErrorData> {
        let plan: String = "plan-1".into();
        let confirm = ask!(confirm: elicit::<Confirm>("Deploy?"));
        let ok = confirm.accepted().is_some_and(|c| c.ok);
        Ok(CallToolResult::success(vec![ContentBlock::text(format!(
            "deployed {ok} with {plan}"
        ))]))
    }
}

const LEASE: Duration = Duration::from_millis(1_000);

fn guard(redis: &RedisServer, policy: Unreachable) -> Arc<RedisReplayGuard> {
    guard_leasing(redis, policy, LEASE)
}

fn guard_leasing(
    redis: &RedisServer,
    policy: Unreachable,
    lease: Duration,
) -> Arc<RedisReplayGuard> {
    let config = RedisGuardConfig::new(redis.url())
        .key_prefix("test:spent:")
        .when_unreachable(policy)
        .timeout(Duration::from_millis(200))
        .lease(lease);
    Arc::new(RedisReplayGuard::new(config).expect("a valid Redis URL"))
}

/// One instance of the service: its own runtime and its own Redis connection.
async fn instance(deploys: &Deploys, guard: Arc<RedisReplayGuard>) -> Session {
    let server = TestServer::new(
        deploys.clone(),
        Deploys::tool_router(),
        guarded_runtime("deploys", guard),
    );
    connect(server, ScriptedClient::new(Caps::FORM_ONLY), Era::Modern).await
}

fn answer() -> serde_json::Value {
    json!({ "confirm": { "action": "accept", "content": { "ok": true } } })
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_secs()
}

async fn raw(redis: &RedisServer) -> ::redis::aio::MultiplexedConnection {
    ::redis::Client::open(redis.url())
        .expect("url")
        .get_multiplexed_async_connection()
        .await
        .expect("a raw connection to the test's Redis")
}

const SPENT_MESSAGE: &str =
    "Invalid params: requestState is invalid, expired or does not belong to this request";

fn assert_spent(response: Result<rmcp::model::CallToolResponse, rmcp::service::ServiceError>) {
    let (code, message) = expect_rpc_error(response);
    assert_eq!(code, -32602);
    assert_eq!(
        message, SPENT_MESSAGE,
        "a spent continuation is refused like any other invalid one"
    );
}

fn assert_in_flight(response: Result<rmcp::model::CallToolResponse, rmcp::service::ServiceError>) {
    let (code, message) = expect_rpc_error(response);
    assert_eq!(code, -32603);
    assert!(
        message.contains("being answered by another request") && message.contains("retry later"),
        "{message}"
    );
}

#[tokio::test]
async fn a_claim_leases_the_continuation_and_a_spend_refuses_it_until_the_token_expires() {
    let redis = RedisServer::start();
    let (a, b) = (
        guard(&redis, Unreachable::FailClosed),
        guard(&redis, Unreachable::FailClosed),
    );
    let key = IdempotencyKey([7; 16]);
    let redis_key = format!("test:spent:{}", "07".repeat(16));
    let expires_at = now() + 300;
    assert_eq!(a.claim(key, expires_at).await, Ok(Claim::Taken));
    assert_eq!(
        b.claim(key, expires_at).await,
        Ok(Claim::InFlight),
        "another instance finds the lease"
    );
    assert_eq!(a.claim(key, expires_at).await, Ok(Claim::InFlight));
    assert_eq!(
        b.claim(IdempotencyKey([8; 16]), expires_at).await,
        Ok(Claim::Taken)
    );
    let mut raw = raw(&redis).await;
    let lease_left: i64 = ::redis::cmd("PTTL")
        .arg(&redis_key)
        .query_async(&mut raw)
        .await
        .expect("PTTL");
    assert!(
        0 < lease_left && lease_left <= LEASE.as_millis() as i64,
        "a lease lives for the guard's lease: {lease_left} ms"
    );
    a.spend(key, expires_at).await.expect("Redis is up");
    assert_eq!(b.claim(key, expires_at).await, Ok(Claim::Spent));
    let expiry: i64 = ::redis::cmd("EXPIRETIME")
        .arg(&redis_key)
        .query_async(&mut raw)
        .await
        .expect("EXPIRETIME");
    assert_eq!(
        expiry, expires_at as i64,
        "a spent key lives exactly as long as the token"
    );
    b.release(key).await.expect("Redis is up");
    b.release(IdempotencyKey([8; 16]))
        .await
        .expect("Redis is up");
    assert_eq!(
        a.claim(IdempotencyKey([8; 16]), expires_at).await,
        Ok(Claim::Taken),
        "a released lease is taken at once"
    );
}

#[tokio::test]
async fn a_lease_that_runs_out_unspent_is_taken_over_by_the_next_presentation() {
    let redis = RedisServer::start();
    let lease = Duration::from_millis(500);
    let (a, b) = (
        guard_leasing(&redis, Unreachable::FailClosed, lease),
        guard_leasing(&redis, Unreachable::FailClosed, lease),
    );
    let key = IdempotencyKey([5; 16]);
    let expires_at = now() + 300;
    assert_eq!(a.claim(key, expires_at).await, Ok(Claim::Taken));
    assert_eq!(b.claim(key, expires_at).await, Ok(Claim::InFlight));
    tokio::time::sleep(lease + Duration::from_millis(100)).await;
    assert_eq!(
        b.claim(key, expires_at).await,
        Ok(Claim::Taken),
        "the round holding it never answered"
    );
    assert_eq!(a.claim(key, expires_at).await, Ok(Claim::InFlight));
}

#[tokio::test]
async fn a_round_stranded_by_its_instance_is_taken_over_after_the_lease_and_deploys_once() {
    let redis = RedisServer::start();
    let deploys = Deploys::default();
    let stranding = instance(
        &deploys.held_mid_round(),
        guard(&redis, Unreachable::FailClosed),
    )
    .await;
    let b = instance(&deploys, guard(&redis, Unreachable::FailClosed)).await;
    let first = expect_input_required(b.round("deploy", json!({}), None, None).await);
    let state = first.request_state.clone();
    // The instance takes the lease, deploys and never answers, as if killed there; its client
    // gives up once the deploy is done.
    let presented = Instant::now();
    let stranded = stranding.round("deploy", json!({}), Some(answer()), state.clone());
    tokio::select! {
        _ = stranded => panic!("the held instance must not answer"),
        () = async {
            while deploys.runs() == 0 {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        } => {}
    }
    assert_eq!((deploys.runs(), deploys.effects()), (1, 1));
    assert_in_flight(
        b.round("deploy", json!({}), Some(answer()), state.clone())
            .await,
    );
    assert_eq!(deploys.runs(), 1, "the refused retry ran nothing");
    // The client retries as the message says; the lease runs out within LEASE of the claim.
    let done = loop {
        tokio::time::sleep(Duration::from_millis(100)).await;
        match b
            .round("deploy", json!({}), Some(answer()), state.clone())
            .await
        {
            Err(rmcp::service::ServiceError::McpError(error))
                if error.code.0 == -32603 && presented.elapsed() < 10 * LEASE => {}
            other => break expect_complete(other),
        }
    };
    assert!(
        presented.elapsed() >= LEASE,
        "taken over only once the lease had run out"
    );
    assert_eq!(text_of(&done), "deployed true");
    assert_eq!(
        (deploys.runs(), deploys.effects()),
        (2, 1),
        "the round ran again and the deploy, idempotent by its StepKey, happened once"
    );
    assert_spent(b.round("deploy", json!({}), Some(answer()), state).await);
    b.close().await;
    // `stranding` still holds its round: dropped, not closed.
}

#[tokio::test]
async fn a_continuation_another_build_refuses_is_given_back_not_spent() {
    let redis = RedisServer::start();
    let deploys = Deploys::default();
    let old = instance(&deploys, guard(&redis, Unreachable::FailClosed)).await;
    let next = connect(
        TestServer::new(
            NextBuild,
            NextBuild::tool_router(),
            guarded_runtime("deploys", guard(&redis, Unreachable::FailClosed)),
        ),
        ScriptedClient::new(Caps::FORM_ONLY),
        Era::Modern,
    )
    .await;
    let first = expect_input_required(old.round("deploy", json!({}), None, None).await);
    let state = first.request_state.clone();
    let (code, _) = expect_rpc_error(
        next.round("deploy", json!({}), Some(answer()), state.clone())
            .await,
    );
    assert_eq!(code, -32602, "the next build cannot restore the old layout");
    let done = expect_complete(
        old.round("deploy", json!({}), Some(answer()), state.clone())
            .await,
    );
    assert_eq!(
        text_of(&done),
        "deployed true",
        "the refused round released its lease at once: the old build runs it"
    );
    assert_eq!(deploys.effects(), 1);
    assert_spent(old.round("deploy", json!({}), Some(answer()), state).await);
    old.close().await;
    next.close().await;
}

#[tokio::test]
async fn with_redis_lost_mid_round_the_answer_goes_out_and_the_round_may_run_again() {
    let mut redis = RedisServer::start();
    let deploys = Deploys::default();
    let held = deploys.held_mid_round();
    let a = instance(&held, guard(&redis, Unreachable::FailClosed)).await;
    let b = instance(&deploys, guard(&redis, Unreachable::FailClosed)).await;
    let first = expect_input_required(a.round("deploy", json!({}), None, None).await);
    let state = first.request_state.clone();
    let round = a.round("deploy", json!({}), Some(answer()), state.clone());
    let lose_redis_then_answer = async {
        while deploys.runs() == 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        // Claimed and deployed; Redis dies before the round answers, taking the lease along
        // (no persistence), and the spend finds no Redis.
        redis.stop();
        held.answer_gate.add_permits(1);
    };
    let started = Instant::now();
    let (done, ()) = tokio::join!(round, lose_redis_then_answer);
    assert_eq!(
        text_of(&expect_complete(done)),
        "deployed true",
        "the round that ran still answers"
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the answer did not wait on the dead Redis"
    );
    redis.restart();
    let again =
        retry_until_redis_answers(|| b.round("deploy", json!({}), Some(answer()), state.clone()))
            .await;
    assert_eq!(
        text_of(&again),
        "deployed true",
        "nothing recorded the spend: the token runs again until it expires (at least once)"
    );
    assert_eq!(
        (deploys.runs(), deploys.effects()),
        (2, 1),
        "the idempotent deploy still happened once"
    );
    assert_spent(b.round("deploy", json!({}), Some(answer()), state).await);
    a.close().await;
    b.close().await;
}

#[tokio::test]
async fn a_duplicated_final_retry_on_another_instance_runs_its_effect_once() {
    let redis = RedisServer::start();
    let deploys = Deploys::default();
    let a = instance(&deploys, guard(&redis, Unreachable::FailClosed)).await;
    let b = instance(&deploys, guard(&redis, Unreachable::FailClosed)).await;
    let first = expect_input_required(a.round("deploy", json!({}), None, None).await);
    let state = first.request_state.clone();
    let done = expect_complete(
        b.round("deploy", json!({}), Some(answer()), state.clone())
            .await,
    );
    assert_eq!(text_of(&done), "deployed true");
    // First where it answered: its spend went to Redis ahead of this claim on the same
    // connection, and by the time that claim is answered the spend has landed for the other.
    for duplicate_on in [&b, &a] {
        assert_spent(
            duplicate_on
                .round("deploy", json!({}), Some(answer()), state.clone())
                .await,
        );
    }
    assert_eq!(deploys.runs(), 1, "the round ran once");
    a.close().await;
    b.close().await;
}

#[tokio::test]
async fn a_spent_continuation_is_forgotten_once_the_token_has_expired() {
    let redis = RedisServer::start();
    let guard = guard(&redis, Unreachable::FailClosed);
    let key = IdempotencyKey([9; 16]);
    let expires_at = now() + 1;
    assert_eq!(guard.claim(key, expires_at).await, Ok(Claim::Taken));
    guard.spend(key, expires_at).await.expect("Redis is up");
    assert_eq!(guard.claim(key, expires_at).await, Ok(Claim::Spent));
    while now() <= expires_at {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut raw = raw(&redis).await;
    let exists: u32 = ::redis::cmd("EXISTS")
        .arg(format!("test:spent:{key}"))
        .query_async(&mut raw)
        .await
        .expect("EXISTS");
    assert_eq!(exists, 0, "Redis dropped the key at the token's expiry");
}

#[tokio::test]
async fn with_redis_stopped_fail_closed_refuses_the_round_runs_nothing_and_does_not_spend_it() {
    let mut redis = RedisServer::start();
    let deploys = Deploys::default();
    let session = instance(&deploys, guard(&redis, Unreachable::FailClosed)).await;
    let first = expect_input_required(session.round("deploy", json!({}), None, None).await);
    redis.stop();
    let (code, message) = expect_rpc_error(
        session
            .round(
                "deploy",
                json!({}),
                Some(answer()),
                first.request_state.clone(),
            )
            .await,
    );
    assert_eq!(code, -32603);
    assert!(message.contains("replay store unavailable"), "{message}");
    assert!(message.contains("nothing was run"), "{message}");
    assert_eq!(deploys.runs(), 0, "nothing ran");
    redis.restart();
    let done = retry_until_redis_answers(|| {
        session.round(
            "deploy",
            json!({}),
            Some(answer()),
            first.request_state.clone(),
        )
    })
    .await;
    assert_eq!(
        text_of(&done),
        "deployed true",
        "the refused token was not spent"
    );
    assert_eq!(deploys.runs(), 1);
    session.close().await;
}

#[tokio::test]
async fn with_redis_stopped_fail_open_runs_the_round_unguarded() {
    let mut redis = RedisServer::start();
    let deploys = Deploys::default();
    let session = instance(&deploys, guard(&redis, Unreachable::FailOpen)).await;
    let first = expect_input_required(session.round("deploy", json!({}), None, None).await);
    redis.stop();
    let done = expect_complete(
        session
            .round(
                "deploy",
                json!({}),
                Some(answer()),
                first.request_state.clone(),
            )
            .await,
    );
    assert_eq!(text_of(&done), "deployed true");
    assert_eq!(deploys.runs(), 1);
    session.close().await;
}

#[tokio::test]
async fn the_guard_reconnects_after_redis_restarts() {
    let mut redis = RedisServer::start();
    let guard = guard(&redis, Unreachable::FailClosed);
    let expires_at = now() + 300;
    assert_eq!(
        guard.claim(IdempotencyKey([1; 16]), expires_at).await,
        Ok(Claim::Taken)
    );
    redis.restart();
    let mut claimed = None;
    for _ in 0..50 {
        match guard.claim(IdempotencyKey([2; 16]), expires_at).await {
            Ok(first) => {
                claimed = Some(first);
                break;
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
    assert_eq!(
        claimed,
        Some(Claim::Taken),
        "claims work again on the restarted Redis"
    );
    assert_eq!(
        guard.claim(IdempotencyKey([2; 16]), expires_at).await,
        Ok(Claim::InFlight)
    );
}

#[tokio::test]
async fn a_redis_that_never_answers_fails_the_claim_within_the_timeout() {
    // Accepts connections and reads nothing back: a hung or partitioned Redis.
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("redis://{}/", silent.local_addr().unwrap());
    let held = tokio::spawn(async move {
        let mut open = Vec::new();
        while let Ok((stream, _)) = silent.accept().await {
            open.push(stream);
        }
    });
    let guard =
        RedisReplayGuard::new(RedisGuardConfig::new(url).timeout(Duration::from_millis(100)))
            .unwrap();
    let claim = tokio::time::timeout(
        Duration::from_secs(10),
        guard.claim(IdempotencyKey([3; 16]), now() + 300),
    )
    .await
    .expect("the claim is bounded by the guard's timeout, not left hanging");
    let error = claim.expect_err("a claim Redis never answered fails closed");
    assert!(error.0.contains("Redis at"), "{error}");
    held.abort();
}

/// The first claims after a restart may still meet the broken connection; the manager
/// reconnects in the background.
async fn retry_until_redis_answers<F, Fut>(mut round: F) -> CallToolResult
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<
            Output = Result<rmcp::model::CallToolResponse, rmcp::service::ServiceError>,
        >,
{
    for _ in 0..50 {
        match round().await {
            Err(rmcp::service::ServiceError::McpError(error)) if error.code.0 == -32603 => {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            other => return expect_complete(other),
        }
    }
    panic!("Redis did not answer claims within 5 s of its restart");
}
